#!/usr/bin/env bash
# Every GPU check of issues 28, 29, 30 and 33 in one device call (about 8 minutes): a new user's
# build of the default configuration with the machine's g++ 13 (scripts/device-first-contact.sh),
# the CUDA known answers and B11's integrity tests from that build, one install of the Python
# module, the exploit suite's GPU tests and evaluate tests, the Python GPU tests, the pytest
# plugin's GPU sample (scripts/device-pytest.sh), and the exit phase and the training step's
# kernels beside a profiler (scripts/device-impossible-records.sh). Each step's logs go to
# $OUT/<step>/, packed into $OUT/logs.tar.gz (the device tool returns at most 8 files); the
# summary of every step is printed last and kept as $OUT/summary.txt.
#   OUT=... bash scripts/device-final.sh
set -u
cd "$(dirname "$0")/.." || exit 1
FINAL=${OUT:-$PWD/device-final-out}
mkdir -p "$FINAL"
W=$(mktemp -d /tmp/device-final.XXXXXX)
PY=${PYTHON:-python3}
export SITE=/tmp/gpumeter-site-final REUSE_SITE=1
SUMMARY=()
step() {  # name cmd...: runs cmd with OUT=$W/name, its output to $W/name.log
  local name=$1 t0 rc
  shift
  mkdir -p "$W/$name"
  t0=$(date +%s)
  OUT="$W/$name" "$@" >"$W/$name.log" 2>&1
  rc=$?
  SUMMARY+=("$(printf '%-18s rc %-3s %4ss' "$name" "$rc" "$(( $(date +%s) - t0 ))")")
  return $rc
}
FIRST_CONTACT_BUDGET=330 step first-contact bash scripts/device-first-contact.sh
B=build-first-contact
step cuda-tests bash -c "'$B/tests/gpu/test_cuda_integrity' && '$B/tests/gpu/test_cuda_backend'"
step pip bash -c "rm -rf '$SITE' && CMAKE_BUILD_PARALLEL_LEVEL=16 $PY -m pip install \
  --no-build-isolation --no-deps --target '$SITE' ."
step python-gpu bash -c "PYTHONPATH='$SITE:$PWD/tests/python' timeout 240 $PY -m pytest -q -rs \
  -p no:cacheprovider tests/python/test_gpu.py tests/python/test_fresh_inputs.py \
  tests/python/test_exploits.py"
PYTEST_K=gpu_sample step pytest-plugin bash scripts/device-pytest.sh
step impossible bash scripts/device-impossible-records.sh
printf '%s\n' "${SUMMARY[@]}" >"$FINAL/summary.txt"
{
  echo "== first-contact"; tail -25 "$W/first-contact.log"
  echo "== cuda-tests"; grep -hE "KNOWN-ANSWER|INTEGRITY|FAILED|PASSED" "$W/cuda-tests.log" | cut -c1-220
  echo "== python-gpu"; grep -E "passed|failed" "$W/python-gpu.log" | tail -2
  grep -E "^(FAILED|ERROR)" "$W/python-gpu.log" | cut -c1-300
  echo "== pytest-plugin"; tail -12 "$W/pytest-plugin.log"
  echo "== impossible"; tail -30 "$W/impossible.log"
} >"$FINAL/tails.txt" 2>&1
tar -czf "$FINAL/logs.tar.gz" -C "$W" . 2>/dev/null
cat "$FINAL/tails.txt"
echo "== summary"
cat "$FINAL/summary.txt"
