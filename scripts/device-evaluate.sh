#!/usr/bin/env bash
# Issue 29 on the GPU machine, in one go (about 5 minutes): build and install the Python module
# with that machine's Python, run the GPU exploit suite (tests/python/test_exploits.py at 1024^3),
# then `gpumeter evaluate` over every GPU candidate against an honest bf16 gelu(a @ b) of 4096^3,
# then the cost of fresh inputs and checks (time to an answer with and without, the same
# candidates) and A against A with the checks on and off. JSON lines and logs under $OUT; the
# table of candidate -> verdict, speedup last.
#   OUT=... bash scripts/device-evaluate.sh
#   SITE=/tmp/gpumeter-site REUSE_SITE=1 ...   reuse a module just installed there from this tree
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/device-evaluate-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)  # the evaluate runs below start in tests/python
PY=${PYTHON:-python3}
SITE=${SITE:-/tmp/gpumeter-site-evaluate}
start=$(date +%s)
t0=$(date +%s)
if [[ -n ${REUSE_SITE:-} && -f $SITE/gpumeter/_evaluate.py ]]; then
  echo "pip install: reused $SITE" | tee "$OUT/steps.txt"
else
  rm -rf "$SITE"
  CMAKE_BUILD_PARALLEL_LEVEL=16 "$PY" -m pip install --no-build-isolation --no-deps \
    --target "$SITE" -v . >"$OUT/pip-install.log" 2>&1
  echo "pip install: rc=$? ($(( $(date +%s) - t0 )) s)" | tee "$OUT/steps.txt"
fi
export PYTHONPATH="$SITE:$PWD/tests/python"

# The exploit suite's GPU tests in this process (1024^3: the host-computed answer stays seconds);
# its host tests run in CI, and its evaluate test is the run below at 4096^3.
t0=$(date +%s)
GPUMETER_EXPLOIT_N=1024 timeout 300 "$PY" -m pytest -q -rs -p no:cacheprovider \
  tests/python/test_exploits.py -k "gpu and not gpu_evaluate" >"$OUT/exploits-pytest.log" 2>&1
echo "exploit suite: rc=$? ($(( $(date +%s) - t0 )) s)" | tee -a "$OUT/steps.txt"

# gpumeter evaluate at 4096^3: returned answers, then answers written into a given buffer.
export GPUMETER_EXPLOIT_N=4096
common=(--timing cupti --rtol 2e-2 --atol 1e-1 --timeout 120 --out "$OUT/records"
        --jsonl "$OUT/evaluate.jsonl")
t0=$(date +%s)
(cd tests/python && timeout 420 "$PY" -m gpumeter evaluate "${common[@]}" \
  --reference exploits.problem:gpu_reference --inputs exploits.problem:gpu_inputs \
  honest=exploits.honest:gpu fused=exploits.honest:gpu_fused \
  memo_first_call=exploits.memo_first_call:gpu memo_pointer=exploits.memo_pointer:gpu \
  memo_content=exploits.memo_content:gpu superbatch=exploits.superbatch:gpu \
  side_stream=exploits.side_stream:gpu threads=exploits.threads:gpu \
  persist_l2=exploits.persist_l2:gpu cupti_off=exploits.cupti_off:gpu \
  cupti_blink=exploits.cupti_blink:gpu patch_verify=exploits.patch_verify:gpu \
  patch_allclose=exploits.patch_allclose:gpu patch_timer=exploits.patch_timer:gpu \
  partial=exploits.partial:gpu) \
  >"$OUT/evaluate.log" 2>&1
echo "evaluate (returned answers): rc=$? ($(( $(date +%s) - t0 )) s)" | tee -a "$OUT/steps.txt"
t0=$(date +%s)
(cd tests/python && timeout 240 "$PY" -m gpumeter evaluate "${common[@]}" --outputs 2 \
  --reference exploits.problem:gpu_reference_out --inputs exploits.problem:gpu_inputs_out \
  honest_out=exploits.honest:gpu_out copy_device=exploits.copy_device:gpu \
  copy_host=exploits.copy_host:gpu deferred=exploits.deferred:gpu) \
  >"$OUT/evaluate-outputs.log" 2>&1
echo "evaluate (written buffers): rc=$? ($(( $(date +%s) - t0 )) s)" | tee -a "$OUT/steps.txt"

# What fresh inputs and checks cost, and A against A with the checks on and off.
t0=$(date +%s)
timeout 240 "$PY" bench/python/evaluate_cost.py --out "$OUT/cost" --repeats 6 >"$OUT/cost.log" 2>&1
echo "cost and A against A: rc=$? ($(( $(date +%s) - t0 )) s)" | tee -a "$OUT/steps.txt"

echo "total $(( $(date +%s) - start )) s"
cat "$OUT/steps.txt"
grep -E "passed|failed|error" "$OUT/exploits-pytest.log" | tail -3
grep -E "^(FAILED|ERROR|SKIPPED)" "$OUT/exploits-pytest.log" | cut -c1-300
tail -12 "$OUT/cost.log"
echo
echo "candidate -> verdict, speedup (reference time / candidate time, and its interval)"
"$PY" - "$OUT/evaluate.jsonl" <<'PYEOF'
import json, sys
for line in open(sys.argv[1]):
    x = json.loads(line)
    s, iv = x.get("speedup"), x.get("interval")
    shown = "-" if s is None else f"{s:.3g}x" + (f" ({iv[0]:.3g}x to {iv[1]:.3g}x)" if iv else "")
    why = "" if x["verdict"] in ("faster", "slower", "no difference") else " | " + str(x.get("why"))[:140]
    print(f"{x['candidate']:<16} {x['verdict']:<13} correct={str(x['correct']).lower():<5} {shown}{why}")
PYEOF
