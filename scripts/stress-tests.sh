#!/usr/bin/env bash
# Runs the built test suites (build/ and build-asan/, as scripts/test.sh leaves them) ROUNDS
# times with every core kept busy by other processes, as a shared CI machine may be: a test
# that asserts a CPU timing ratio would fail here. Prints one line per round and exits 1 if any
# round failed.
#   scripts/stress-tests.sh [ROUNDS]   (default 10)
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-10}
cores=$(nproc)
load=()
for _ in $(seq "$cores"); do
  (while :; do :; done) &
  load+=($!)
done
trap 'kill "${load[@]}" 2>/dev/null' EXIT
echo "stress: $cores busy loops, one per core, while the suites run $rounds times"
failed=0
for r in $(seq "$rounds"); do
  start=$(date +%s)
  status=pass
  ctest --test-dir build -j "$cores" >"/tmp/stress-$r.log" 2>&1 || status=FAIL
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan -j "$cores" >>"/tmp/stress-$r.log" 2>&1 || status=FAIL
  summary=$(grep -E "tests passed" "/tmp/stress-$r.log" | tr '\n' ';')
  echo "round $r: $status ($(( $(date +%s) - start )) s) $summary"
  if [ "$status" = FAIL ]; then
    failed=1
    grep -E "\((Failed|Timeout|SEGFAULT|Subprocess aborted)\)" "/tmp/stress-$r.log"
  fi
done
exit $failed
