#!/usr/bin/env bash
# `gpumeter run` on the device, against known answers (nvtx_gpu_program.cpp): spins that stop on
# %globaltimer inside NVTX ranges, so each range's device_busy per instance is known. Checks a
# nested range, two concurrent kernels (their union, not their sum), a graph of three kernels, a
# start/end range covering a kernel launched from another thread (and a push range on the main
# thread that does not), a domain range, kernels outside every range (one running during a
# range), a program without ranges (exit 2) and a range left open (exit 1). Exit 77 without a usable device.
#   test_run_gpu.sh GPUMETER GPU_PROGRAM [OUT_DIR]
set -u
gpumeter=$1
program=$2
work=${3:-$(mktemp -d)}
mkdir -p "$work"
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH GPUMETER_RUN_PARTS
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP: no usable CUDA device (nvidia-smi -L failed)"
  exit 77
fi
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

"$gpumeter" run --out "$work/known" -- "$program" known >"$work/known.md" 2>"$work/known.err"
rc=$?
[[ $rc == 0 ]] || fail "known: exit $rc: $(cat "$work/known.err")"
record=$(ls "$work"/known/*.json 2>/dev/null | head -n1)
if [[ -n $record ]]; then
  python3 - "$record" <<'PY' || fail "known: a reading is off its known answer (table above)"
import json, sys
r = json.load(open(sys.argv[1], encoding="utf-8"))
rows = {(x["case"], x["params"].get("domain", "")): x for x in r["results"]}
ranges = {(g["domain"], g["name"]): g for g in r["program"]["ranges"]}
ok = True
def want(name, lo, hi, kernels, domain=""):
    global ok
    row = rows.get((name, domain))
    if row is None:
        print(f"{name}: no row"); ok = False; return
    busy = row["samples"]["device_busy_ns"]
    n = row["samples"]["n_kernels"]
    good = len(busy) == 5 if name != "in_domain" else len(busy) == 1
    good = good and all(lo <= b <= hi for b in busy) and all(k == kernels for k in n)
    print(f"{name:12s} busy {busy} kernels {n}  known [{lo}, {hi}] ns, {kernels} kernel(s): "
          f"{'ok' if good else 'OFF'}")
    ok = ok and good
want("spin20", 19900, 24000, 1)
want("step", 19900, 24000, 1)
# Sum (100 us) or a launch's stagger (58-65 us when launched without the gate) is off.
want("two_streams", 49900, 55000, 2)
want("graph", 29900, 36000, 3)
want("threaded", 14900, 18000, 1)
want("in_domain", 9900, 12500, 1, "gpumeter_test")
g = ranges.get(("", "main_only"))
if not g or g["instances"] != 5 or g["with_device_work"] != 0:
    print("main_only: wanted 5 instances without device work:", g); ok = False
out = [o for o in r["program"]["outside"] if "empty" in o["kernel"]]
if not out or sum(o["n_kernels"] for o in out) < 2:
    print("outside: wanted the two empty kernels outside every range:", r["program"]["outside"])
    ok = False
gates = [o for o in r["program"]["outside"] if "spin" in o["kernel"]]
if sum(o["n_kernels"] for o in gates) != 5:
    print("outside: wanted the five gates of two_streams outside every range:", gates)
    ok = False
print("outside:", [(o["kernel"][:40], o["n_kernels"]) for o in r["program"]["outside"]])
sys.exit(0 if ok else 1)
PY
else
  fail "known: no record"
fi

"$gpumeter" run --out "$work/none" -- "$program" none >/dev/null 2>"$work/none.err"
rc=$?
[[ $rc == 2 && $(cat "$work/none.err") == *NoRangesFound* ]] ||
  fail "none: exit $rc, wanted 2 with NoRangesFound: $(cat "$work/none.err")"
"$gpumeter" run --out "$work/open" -- "$program" open >/dev/null 2>"$work/open.err"
rc=$?
[[ $rc == 1 && $(cat "$work/open.err") == *RangeLeftOpen*left_open* ]] ||
  fail "open: exit $rc, wanted 1 with RangeLeftOpen naming left_open: $(cat "$work/open.err")"
echo "none: $(cat "$work/none.err")"
echo "open: $(cat "$work/open.err")"

if ((failures > 0)); then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "gpumeter run on the device: all known answers hold"
