#!/usr/bin/env bash
# Issue 38 on the GPU machine: no candidate work outside its timed call can count for it. Two parts,
# each under the device tool's 10 minutes, the second on the same warm machine (it reuses the
# build and the installed module):
#   PART=1: the default configuration built with the machine's g++ 13 and -Werror (the GPU tests
#           and the A-against-A bench only), the C++ GPU tests (known answers, the ledger by role,
#           work in a check, a new process on the device), the Python module installed, the
#           Python GPU tests (known answers, fresh inputs, the exploit suite at 1024^3);
#   PART=2: `gpumeter evaluate` over every GPU exploit and honest candidate at 4096^3 (returned
#           answers, then written buffers), what the new checks cost (time to an answer), and A
#           against A with every check on: C++ (4 kinds x REPEAT) and Python.
# Logs and JSON under $OUT; a short table last.
#   OUT=... PART=1 bash scripts/device-outside-the-call.sh
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/device-outside-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
PY=${PYTHON:-python3}
SITE=${SITE:-/tmp/gpumeter-site-outside}
B=build-outside
PART=${PART:-1}
REPEAT=${REPEAT:-25}
start=$(date +%s)
steps=()
source scripts/device-step.sh  # step NAME TIMEOUT CMD...

if [[ $PART == 1 ]]; then
  step configure 120 cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DGPUMETER_WERROR=ON -DGPUMETER_CUDA=ON
  step build 300 cmake --build "$B" -j 16 --target test_cuda_integrity test_cupti_internals \
    test_cuda_backend gpumeter-a-vs-a gpumeter
  grep -c "warning:" "$OUT/build.log" | sed 's/^/build warnings: /' >"$OUT/warnings.txt"
  step cpp-integrity 120 "$B/tests/gpu/test_cuda_integrity"
  step cpp-internals 60 "$B/tests/gpu/test_cupti_internals"
  step cpp-backend 200 "$B/tests/gpu/test_cuda_backend"
  rm -rf "$SITE"
  step pip 240 env CMAKE_BUILD_PARALLEL_LEVEL=16 "$PY" -m pip install --no-build-isolation \
    --no-deps --target "$SITE" .
  step python-gpu 240 env PYTHONPATH="$SITE:$PWD/tests/python" GPUMETER_EXPLOIT_N=1024 \
    "$PY" -m pytest -q -rs -p no:cacheprovider tests/python/test_gpu.py \
    tests/python/test_fresh_inputs.py tests/python/test_exploits.py -k "gpu or fresh"
  {
    cat "$OUT/warnings.txt"
    grep -hE "KNOWN-ANSWER|INTEGRITY|COST|FAILED|PASSED|Failure" "$OUT"/cpp-*.log | cut -c1-240
    grep -E "passed|failed" "$OUT/python-gpu.log" | tail -1
    grep -E "^(FAILED|ERROR)" "$OUT/python-gpu.log" | cut -c1-300
  } >"$OUT/tails.txt" 2>&1
else
  # A fresh machine (the first part's was given back): build and install what this part runs.
  if [[ ! -x $B/bench/cuda/gpumeter-a-vs-a ]]; then
    step configure 120 cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DGPUMETER_CUDA=ON
    step build 300 cmake --build "$B" -j 16 --target gpumeter-a-vs-a
  fi
  if [[ ! -f $SITE/gpumeter/_evaluate.py ]]; then
    step pip 240 env CMAKE_BUILD_PARALLEL_LEVEL=16 "$PY" -m pip install --no-build-isolation \
      --no-deps --target "$SITE" .
  fi
  export PYTHONPATH="$SITE:$PWD/tests/python"
  export GPUMETER_EXPLOIT_N=4096
  common=(--timing cupti --rtol 2e-2 --atol 1e-1 --timeout 120 --out "$OUT/records"
          --jsonl "$OUT/evaluate.jsonl")
  step evaluate 330 bash -c "cd tests/python && $PY -m gpumeter evaluate ${common[*]} \
    --reference exploits.problem:gpu_reference --inputs exploits.problem:gpu_inputs \
    honest=exploits.honest:gpu fused=exploits.honest:gpu_fused \
    memo_first_call=exploits.memo_first_call:gpu memo_pointer=exploits.memo_pointer:gpu \
    memo_content=exploits.memo_content:gpu superbatch=exploits.superbatch:gpu \
    side_stream=exploits.side_stream:gpu threads=exploits.threads:gpu \
    host_computed=exploits.host_computed:gpu persist_l2=exploits.persist_l2:gpu \
    cupti_off=exploits.cupti_off:gpu cupti_blink=exploits.cupti_blink:gpu \
    patch_verify=exploits.patch_verify:gpu patch_allclose=exploits.patch_allclose:gpu \
    patch_timer=exploits.patch_timer:gpu partial=exploits.partial:gpu burst=exploits.burst:gpu \
    lazy_result=exploits.lazy_result:gpu slow_reference=exploits.slow_reference:gpu \
    helper_process=exploits.helper_process:gpu"
  step evaluate-out 120 bash -c "cd tests/python && $PY -m gpumeter evaluate ${common[*]} \
    --outputs 2 --reference exploits.problem:gpu_reference_out \
    --inputs exploits.problem:gpu_inputs_out honest_out=exploits.honest:gpu_out \
    copy_device=exploits.copy_device:gpu copy_host=exploits.copy_host:gpu \
    deferred=exploits.deferred:gpu"
  step a-vs-a-cpp 150 "$B/bench/cuda/gpumeter-a-vs-a" --out "$OUT/a-vs-a" --repeat "$REPEAT" \
    --checks --no-sweep
  step cost 150 "$PY" bench/python/evaluate_cost.py --out "$OUT/cost" --repeats 12
  {
    tail -8 "$OUT/a-vs-a-cpp.log"
    tail -10 "$OUT/cost.log"
    echo "candidate -> verdict, speedup (reference time / candidate time), seconds"
    "$PY" - "$OUT/evaluate.jsonl" <<'PYEOF'
import json, sys
for line in open(sys.argv[1]):
    x = json.loads(line)
    s, iv = x.get("speedup"), x.get("interval")
    shown = "-" if s is None else f"{s:.3g}x" + (f" ({iv[0]:.3g}x to {iv[1]:.3g}x)" if iv else "")
    e2e = x.get("end_to_end_speedup")
    shown += "" if e2e is None else f" e2e {e2e:.3g}x"
    why = "" if x["verdict"] in ("faster", "slower", "no difference") else \
        " | " + str(x.get("why"))[:110]
    print(f"{x['candidate']:<15} {x['verdict']:<13} {str(x['correct'])[0]} {shown} "
          f"{x.get('seconds', '-')}s{why}")
PYEOF
  } >"$OUT/tails.txt" 2>&1
fi
printf '%s\n' "${steps[@]}" >"$OUT/steps.txt"
cat "$OUT/tails.txt"
echo "== part $PART: $(( $(date +%s) - start )) s"
cat "$OUT/steps.txt"
