#!/usr/bin/env bash
# Issue 36's GPU evidence (H200), in about two minutes: fills and copies of a real training step
# are counted apart from its kernels by `gpumeter run`, checked against a PyTorch profiler trace.
#
# The program is bench/program/train_bf16_mlp.py: a bf16 MLP of four Linear(4096, 4096) + GELU
# layers, batch 8192, torch.optim.AdamW with its defaults, zero_grad(set_to_none=True), each of
# the forward, backward and optimizer ranges closed after a torch.cuda.synchronize(); 5 steps,
# no warm-up, so the first optimizer range holds AdamW's state creation (its zero fills).
#   1. `gpumeter run --keep-parts`: the record (each range instance's kernels and uncounted copy
#      time) and the collector's parts, read here by this script's own code (not gpumeter's): each
#      instance's device records by kind, and the kernel records launched by a fill or copy call.
#   2. `gpumeter run --count-copies --csv`: the fills inside device_busy, the kernels unchanged.
#   3. The same steps under torch.profiler in a process of its own (CUPTI serves one client):
#      its kernels, memsets and memcpys attributed to the record_function of the same name by
#      their launch's correlation id (the launch's runtime call inside the range, any thread).
# The table last: per range, each instance's kernels as gpumeter counted them, as the parts hold
# them and as the profiler saw them, its fills and copies apart, and the uncounted copy time.
# "agree" when gpumeter's kernels equal the profiler's and the parts' for every instance, and no
# fill is among them.
#   OUT=... bash scripts/device-first-contact2.sh
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/device-first-contact2-out}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
B=${BUILD:-build-first-contact2}
STEPS=5
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
log "build: rc=$? ($(( $(date +%s) - t0 )) s, $(grep -c 'warning:' "$OUT/build.log") warnings)"
G=$B/src/cli/gpumeter
T=bench/program/train_bf16_mlp.py

t0=$(date +%s)
timeout 150 "$G" run --keep-parts --out "$OUT/run" --label train -- "$PY" "$T" --steps $STEPS \
  >"$OUT/run.md" 2>"$OUT/run.err"
log "gpumeter run: rc=$? ($(( $(date +%s) - t0 )) s)"
t0=$(date +%s)
timeout 150 "$G" run --count-copies --csv --out "$OUT/run-copies" --label train -- "$PY" "$T" \
  --steps $STEPS >"$OUT/run-copies.csv" 2>"$OUT/run-copies.err"
log "gpumeter run --count-copies: rc=$? ($(( $(date +%s) - t0 )) s)"
t0=$(date +%s)
timeout 150 "$PY" "$T" --steps $STEPS --profile "$OUT/trace.json" >"$OUT/profile.log" 2>&1
log "profiler trace: rc=$? ($(( $(date +%s) - t0 )) s)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader >"$OUT/gpu.txt" 2>&1
"$PY" -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)" \
  >>"$OUT/gpu.txt" 2>&1

# The three views, read by this script alone, and the table.
"$PY" - "$OUT" >"$OUT/table.txt" 2>"$OUT/table.err" <<'PY'
import glob, json, os, sys

out = sys.argv[1]
RANGES = ("forward", "backward", "optimizer")


def copy_api(api):
    return "Memcpy" in api or "Memset" in api


# 1. The record: each instance's kernels and uncounted copy time, in the order they ran.
def record_of(folder):
    files = sorted(glob.glob(os.path.join(folder, "gpumeter-*.json")))
    if not files:
        return {}
    r = json.load(open(files[0]))
    return {x["case"]: {"kernels": x["samples"]["n_kernels"],
                        "uncounted_us": [round(v / 1e3, 1) for v in x["samples"]["uncounted_copy_ns"]],
                        "busy_us": [round(v / 1e3, 1) for v in x["samples"]["device_busy_ns"]]}
            for x in r["results"]}


gm = record_of(os.path.join(out, "run"))
gmc = record_of(os.path.join(out, "run-copies"))

# 2. The parts: ranges of the thread that opened them, launches of any thread inside them by
# host time (the autograd engine's launches happen while the opener waits in backward), and each
# launch's device records by kind. A driver call inside a runtime call is that call.
parts = {}
for path in glob.glob(os.path.join(out, "run", "parts-*", "part-*.json")):
    p = json.load(open(path))
    opened = {}
    instances = []
    for kind, ns, tid, _id, name, _dom in p["ranges"]:
        if kind == "push":
            opened.setdefault(tid, []).append((name, ns))
        elif kind == "pop" and opened.get(tid):
            name, begin = opened[tid].pop()
            instances.append((name, begin, ns))
    runtime_of = {}
    launches = {}
    for tid, corr, enclosing, ns, api, _cap in p["launches"]:
        if enclosing and enclosing != corr:
            runtime_of[corr] = enclosing
        elif not enclosing:
            launches[corr] = (ns, api)
    counts = {(rname, begin): {"kernel": 0, "memset": 0, "memcpy": 0, "fill_kernel": 0}
              for rname, begin, _end in instances if rname in RANGES}
    for kind, s, e, corr, dev, stream, node, name in p["device"]:
        corr = runtime_of.get(corr, corr)
        if corr not in launches:
            continue
        ns, api = launches[corr]
        for rname, begin, end in instances:
            if rname in RANGES and begin <= ns <= end:
                c = counts[(rname, begin)]
                if kind == "kernel" and copy_api(api):
                    c["fill_kernel"] += 1  # a kernel record of a fill or copy call
                else:
                    c[kind] += 1
    for (rname, begin), c in sorted(counts.items(), key=lambda kv: kv[0][1]):
        parts.setdefault(rname, []).append(c)

# 3. The profiler's trace.
prof = {}
try:
    events = json.load(open(os.path.join(out, "trace.json")))["traceEvents"]
    ranges = [e for e in events if e.get("cat") == "user_annotation" and e.get("name") in RANGES]
    launch_ts = {}
    for e in events:
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            launch_ts.setdefault(e["args"]["correlation"], e["ts"])
    per = {(g["name"], g["ts"]): {"kernel": 0, "memset": 0, "memcpy": 0} for g in ranges}
    for e in events:
        kind = {"kernel": "kernel", "gpu_memset": "memset", "gpu_memcpy": "memcpy"}.get(e.get("cat"))
        if kind is None:
            continue
        t = launch_ts.get(e.get("args", {}).get("correlation"))
        for g in ranges:
            if t is not None and g["ts"] <= t <= g["ts"] + g["dur"]:
                per[(g["name"], g["ts"])][kind] += 1
    for (name, ts), c in sorted(per.items(), key=lambda kv: kv[0][1]):
        prof.setdefault(name, []).append(c)
except (OSError, ValueError, KeyError) as e:
    print("profiler trace not read:", e)

summary = {"gpumeter": gm, "gpumeter_count_copies": gmc, "parts": parts, "profiler": prof}
json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1)

verdicts = []
for name in RANGES:
    g = gm.get(name, {})
    pk = [c["kernel"] for c in parts.get(name, [])]
    pf = [c["memset"] + c["memcpy"] + c["fill_kernel"] for c in parts.get(name, [])]
    fk = [c["fill_kernel"] for c in parts.get(name, [])]
    qk = [c["kernel"] for c in prof.get(name, [])]
    qf = [c["memset"] + c["memcpy"] for c in prof.get(name, [])]
    ck = gmc.get(name, {}).get("kernels", [])
    ok = bool(g) and g.get("kernels") == pk == qk and ck == pk
    verdicts.append(ok)
    print(f"{name}:")
    print(f"  gpumeter run        kernels {g.get('kernels')}  uncounted copy (us) {g.get('uncounted_us')}")
    print(f"  --count-copies      kernels {ck}  device_busy (us) {gmc.get(name, {}).get('busy_us')}")
    print(f"  parts (this script) kernels {pk}  fills+copies {pf}  (kernel records of fill calls {fk})")
    print(f"  profiler trace      kernels {qk}  memsets+memcpys {qf}")
    print(f"  -> {'agree' if ok else 'DIFFER'}")
print("ALL AGREE" if verdicts and all(verdicts) else "SOME DIFFER")
PY
log "table: rc=$?"
echo "total $(( $(date +%s) - start )) s" | tee -a "$OUT/steps.txt"
echo
cat "$OUT/gpu.txt"
echo
sed -n '/^| case/,/^$/p' "$OUT/run.md" | head -8
echo
cat "$OUT/table.err" | tail -5
cat "$OUT/table.txt"
