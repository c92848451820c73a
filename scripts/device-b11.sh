#!/usr/bin/env bash
# Issue 29's core on the GPU machine, in one go: builds the GPU tests and the Python module with
# that machine's compiler and Python; runs the integrity tests (canaries, a kernel hidden from the
# records, a persisting-L2 window, a known answer with fresh inputs and checks), the CUDA backend's
# known answers, the example's readings, the Python GPU tests, and the honest bf16 gelu(a @ b)
# with and without fresh inputs (bench/python/honest_gelu.py). Logs under $OUT; a table last.
#   OUT=... bash scripts/device-b11.sh
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/device-b11-out}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
B=${BUILD:-build-b11}
SITE=/tmp/gpumeter-site
STEPS=()
timed() {  # name log cmd...
  local name=$1 log=$2 t0 rc
  shift 2
  t0=$(date +%s)
  "$@" >"$log" 2>&1
  rc=$?
  STEPS+=("$(printf '%-24s %4s %5ss' "$name" "$rc" "$(( $(date +%s) - t0 ))")")
  return $rc
}
timed configure "$OUT/configure.log" cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DGPUMETER_CUDA=ON
timed build "$OUT/build.log" cmake --build "$B" -j 16 --target test_cuda_integrity \
  test_cuda_backend unit_core time-my-kernel gpumeter
( $PY -m pip install --no-build-isolation --no-deps --target "$SITE" . >"$OUT/pip.log" 2>&1;
  echo "pip rc=$?" >>"$OUT/pip.log" ) &
PIP=$!
timed integrity "$OUT/integrity.log" "$B/tests/gpu/test_cuda_integrity"
timed backend "$OUT/backend.log" "$B/tests/gpu/test_cuda_backend"
timed ledger-unit "$OUT/ledger-unit.log" "$B/tests/unit/unit_core" \
  --gtest_filter='Canary*:CheckProbability*:CopiesCannotHideWork*:FreshInputs*:HiddenWork*:Ledger*'
timed example "$OUT/example.log" "$B/examples/time-my-kernel" --out "$OUT/records"
wait $PIP
STEPS+=("$(printf '%-24s %4s' pip "$(tail -1 "$OUT/pip.log")")")
export PYTHONPATH="$SITE"
timed pytest-gpu "$OUT/pytest.log" timeout 300 $PY -m pytest -q -s -rs tests/python/test_gpu.py \
  tests/python/test_fresh_inputs.py tests/python/test_gpu_runtimes.py
timed gelu "$OUT/gelu.jsonl" timeout 240 $PY bench/python/honest_gelu.py --repeat 2
printf '%s\n' "${STEPS[@]}"
grep -hE "KNOWN-ANSWER|INTEGRITY|FAILED|Failure|passed|failed" "$OUT/integrity.log" \
  "$OUT/backend.log" | cut -c1-240
grep -E "^\| scale" "$OUT/example.log"
grep -E "passed|failed" "$OUT/pytest.log" | tail -2
grep -hE "Error|error" "$OUT/pytest.log" | head -5 | cut -c1-240
grep -v '^{' "$OUT/gelu.jsonl" | tail -12
