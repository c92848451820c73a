#!/usr/bin/env bash
# Issue 30's evidence on the GPU machine (H200), in about four minutes:
#  1. The process exit. gpumeter.phases() of one candidate (PyTorch's saxpy of 2^24 floats, 100
#     calls, 3 fresh processes a setting) gives its phases, the process exit among them, and the
#     measured total of 100 calls to the exit with the synchronize beside it. Beside them, this
#     script's own spawn-to-exit wall time of the same steps (a one-shot process: init, convert,
#     100 calls, synchronize, exit), 3 times: the two must agree within their spreads.
#  2. Fills are not kernels (T7). bench/program/train_step.py through `gpumeter run`: each range's
#     kernels per instance; beside them a PyTorch profiler trace of the same steps in a separate
#     process (torch.profiler, a chrome trace), its kernels and memsets attributed to the
#     record_function ranges of the same names by their launch's correlation id (the launch's
#     runtime call lies inside the range, on any thread of the process: the autograd engine's
#     launches count toward the range its caller waits in, as gpumeter run's default does).
#     gpumeter's kernels must equal the profiler's kernels, not kernels + memsets.
# Records, traces and logs under $OUT; a table last.
#   OUT=... bash scripts/device-impossible-records.sh
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/device-impossible-records-out}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
B=${BUILD:-build-impossible}
SITE=${SITE:-/tmp/gpumeter-site-30}
start=$(date +%s)
log() { echo "$*" | tee -a "$OUT/steps.txt"; }
: >"$OUT/steps.txt"

GEN=()
command -v ninja >/dev/null 2>&1 && GEN=(-G Ninja)
t0=$(date +%s)
{ cmake -S . -B "$B" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DGPUMETER_CUDA=ON \
    -DGPUMETER_PYTHON=OFF -DGPUMETER_EXAMPLES=OFF -DGPUMETER_TESTS=OFF &&
  cmake --build "$B" -j 16 --target gpumeter gpumeter_collector gpumeter_cupti_guard; } \
  >"$OUT/build.log" 2>&1
log "build: rc=$? ($(( $(date +%s) - t0 )) s)"
t0=$(date +%s)
if [[ -n ${REUSE_SITE:-} && -f $SITE/gpumeter/__init__.py ]]; then
  log "pip install: reused $SITE"
else
  rm -rf "$SITE"
  $PY -m pip install --no-build-isolation --no-deps --target "$SITE" . >"$OUT/pip-install.log" 2>&1
  log "pip install: rc=$? ($(( $(date +%s) - t0 )) s)"
fi
G=$B/src/cli/gpumeter

# 1. The process exit, beside the parent's own spawn-to-exit.
t0=$(date +%s)
PYTHONPATH="$SITE:$PWD/examples/python" timeout 200 $PY - "$OUT" >"$OUT/exit.log" 2>&1 <<'PY'
import json, os, statistics, subprocess, sys, time
import gpumeter

out = sys.argv[1]
n, calls = 1 << 24, 100
r = gpumeter.phases({"torch": "warp_saxpy:torch_candidate"}, name="saxpy", params={"n": n},
                    processes=3, calls=(1, calls))
with open(os.path.join(out, "phases-record.json"), "w") as f:
    f.write(r.record.to_json())
print(r)
# The parent's own wall time of a one-shot process doing the same steps.
oneshot = ("import warp_saxpy as w\n"
           f"s = w.torch_candidate({n})\n"
           "s['init'](); s['convert']()\n"
           f"for _ in range({calls}): s['call']()\n"
           "s['sync']()\n")
walls = []
for _ in range(3):
    t = time.monotonic_ns()
    subprocess.run([sys.executable, "-c", oneshot], check=True, env=dict(os.environ))
    walls.append(time.monotonic_ns() - t)
t = [x for x in r.total_n() if x.setting == "fresh_cached"][0]
at = [a for a in t.at if a.calls == calls][0]
exits = [p for p in r.record.phases if p.phase == "process_exit" and p.setting == "fresh_cached"]
totals = [x for x in r.record.totals if x.calls == calls and x.setting == "fresh_cached"][0]
exit_ns = sorted(exits[0].samples_ns) if exits else []
sync_ns = sorted(totals.samples_ns)
# The spread of gpumeter's total to the exit: each process's synchronize plus the exits' range.
low = min(sync_ns) + (min(exit_ns) if exit_ns else 0)
high = max(sync_ns) + (max(exit_ns) if exit_ns else 0)
agree = (at.measured_to_exit_ns is not None and
         min(walls) <= high and max(walls) >= low)
summary = {"exit_ns": exit_ns, "total_sync_ns": sync_ns,
           "measured_to_exit_ns": at.measured_to_exit_ns, "measured_sync_ns": at.measured_ns,
           "predicted_ns": at.predicted_ns, "parent_spawn_to_exit_ns": sorted(walls),
           "agree_within_spread": agree}
json.dump(summary, open(os.path.join(out, "exit-summary.json"), "w"), indent=1)
ms = lambda v: "-" if v is None else f"{v / 1e6:.0f} ms"
print(f"EXIT exit phase (median) {ms(statistics.median(exit_ns) if exit_ns else None)} "
      f"[{ms(exit_ns[0] if exit_ns else None)}, {ms(exit_ns[-1] if exit_ns else None)}]")
print(f"EXIT total({calls}) to exit {ms(at.measured_to_exit_ns)} [{ms(low)}, {ms(high)}], "
      f"to the synchronize {ms(at.measured_ns)}, predicted {ms(at.predicted_ns)}")
print(f"EXIT parent spawn-to-exit {ms(statistics.median(walls))} "
      f"[{ms(min(walls))}, {ms(max(walls))}]: {'agree' if agree else 'DISAGREE'}")
PY
log "exit phase: rc=$? ($(( $(date +%s) - t0 )) s)"

# 2. The training step's ranges: gpumeter run beside a profiler trace of the same steps.
T=bench/program/train_step.py
STEPS=10
t0=$(date +%s)
"$G" run --out "$OUT/train" --label train -- "$PY" "$T" --steps $STEPS >"$OUT/train.md" 2>"$OUT/train.err"
log "gpumeter run train_step: rc=$? ($(( $(date +%s) - t0 )) s)"
t0=$(date +%s)
"$G" run --out "$OUT/train-copies" --label train --count-copies --csv -- "$PY" "$T" --steps $STEPS \
  >"$OUT/train-copies.csv" 2>"$OUT/train-copies.err"
log "gpumeter run --count-copies --csv: rc=$? ($(( $(date +%s) - t0 )) s)"
t0=$(date +%s)
timeout 120 $PY - "$OUT" "$STEPS" >"$OUT/profiler.log" 2>&1 <<'PY'
import json, os, sys
import torch
sys.path.insert(0, "bench/program")
import train_step as ts

out, steps = sys.argv[1], int(sys.argv[2])
model, opt, x, y = ts.build()
for _ in range(3):  # the warm-up train_step.py runs outside its ranges
    torch.nn.functional.mse_loss(model(x), y).backward()
    ts.optimizer_step(model, opt, False)
torch.cuda.synchronize()
rf = torch.profiler.record_function
acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
with torch.profiler.profile(activities=acts) as prof:
    for _ in range(steps):
        with rf("forward"):
            loss = torch.nn.functional.mse_loss(model(x), y)
        with rf("backward"):
            loss.backward()
        with rf("optimizer"):
            ts.optimizer_step(model, opt, False)
    torch.cuda.synchronize()
trace = os.path.join(out, "profiler-trace.json")
prof.export_chrome_trace(trace)
events = json.load(open(trace))["traceEvents"]
ranges = [e for e in events if e.get("cat") == "user_annotation" and
          e.get("name") in ("forward", "backward", "optimizer")]
launch_ts = {}  # correlation id -> the runtime call's start
for e in events:
    if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
        launch_ts[e["args"]["correlation"]] = e["ts"]
counts = {(g["name"], g["ts"]): {"kernel": 0, "memset": 0, "memcpy": 0} for g in ranges}
unattributed = {"kernel": 0, "memset": 0, "memcpy": 0}
for e in events:
    kind = {"kernel": "kernel", "gpu_memset": "memset", "gpu_memcpy": "memcpy"}.get(e.get("cat"))
    if kind is None:
        continue
    t = launch_ts.get(e.get("args", {}).get("correlation"))
    owners = [g for g in ranges if t is not None and g["ts"] <= t <= g["ts"] + g["dur"]]
    for g in owners:
        counts[(g["name"], g["ts"])][kind] += 1
    if not owners:
        unattributed[kind] += 1
per_range = {}
for (name, _), c in counts.items():
    per_range.setdefault(name, []).append(c)
summary = {name: {k: sorted(c[k] for c in cs) for k in ("kernel", "memset", "memcpy")}
           for name, cs in per_range.items()}
summary["(outside the ranges)"] = unattributed
json.dump(summary, open(os.path.join(out, "profiler-summary.json"), "w"), indent=1)
print(json.dumps(summary))
PY
log "profiler trace: rc=$? ($(( $(date +%s) - t0 )) s)"

echo "total $(( $(date +%s) - start )) s" | tee -a "$OUT/steps.txt"
cat "$OUT/steps.txt"
echo
grep '^EXIT' "$OUT/exit.log"
echo
# gpumeter's kernels per instance (each sample's n_kernels) beside the profiler's per instance.
$PY - "$OUT" <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
def kernels(folder):
    files = glob.glob(os.path.join(out, folder, "*.json"))
    if not files:
        return {}
    r = json.load(open(files[0]))
    return {x["case"]: sorted(set(x["samples"]["n_kernels"])) for x in r["results"]}
g = kernels("train")
gc = kernels("train-copies")
try:
    p = json.load(open(os.path.join(out, "profiler-summary.json")))
except OSError:
    p = {}
print(f"{'range':10s} {'gpumeter kernels':>17s} {'--count-copies':>15s} "
      f"{'profiler kernels':>17s} {'profiler memsets':>17s}  verdict")
for name in ("forward", "backward", "optimizer"):
    pk = p.get(name, {}).get("kernel", [])
    pm = p.get(name, {}).get("memset", [])
    mine = g.get(name, [])
    ok = bool(mine) and bool(pk) and set(mine) == set(pk)
    print(f"{name:10s} {str(mine):>17s} {str(gc.get(name, [])):>15s} {str(sorted(set(pk))):>17s} "
          f"{str(sorted(set(pm))):>17s}  {'kernels agree' if ok else 'DIFFER'}")
print("profiler, outside the ranges:", p.get("(outside the ranges)"))
PY
