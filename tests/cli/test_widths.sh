#!/usr/bin/env bash
# Every screen a person reads fits a terminal: each line of `--help` of the gpumeter command, of
# each subcommand and of the other programs given is at most 100 columns; each line of `gpumeter
# report` and `gpumeter compare` at most 120, on records made on the host (gpumeter-example's
# host backend) and on the H200 (gpumeter-example's GPU records, with their null test row).
#   test_widths.sh GPUMETER SOURCE_DIR [PROGRAM...]
set -u
gpumeter=$1
src=$2
shift 2
failures=0
checked=0
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
# check LIMIT WHAT TEXT: every line of TEXT at most LIMIT characters (UTF-8 code points), but for
# a line that is one word alone, which no wrapping can cut: the checkout's path in an install hint
# (the test must pass in a checkout of any path).
check() {
  local limit=$1 what=$2 text=$3
  checked=$((checked + 1))
  [[ -n $text ]] || fail "$what printed nothing"
  local long
  long=$(printf '%s\n' "$text" | LC_ALL=C.UTF-8 awk -v n="$limit" '
    { word = $0; sub(/^ +/, "", word) }
    length($0) > n && word ~ / / { print length($0) ": " $0 }')
  [[ -z $long ]] || fail "$what: lines over $limit columns:
$long"
}

for sub in "" report compare merge env lock run plot; do
  # shellcheck disable=SC2086
  out=$("$gpumeter" $sub --help 2>&1) || fail "gpumeter $sub --help exited $?"
  check 100 "gpumeter $sub --help" "$out"
done
for program in "$@"; do
  out=$("$program" --help 2>&1) || fail "$program --help exited $?"
  check 100 "$(basename "$program") --help" "$out"
done

host_a=$src/tests/data/host_example_a.json
host_b=$src/tests/data/host_example_b.json
gpu_a=$src/bench/results/2026-12-01-h200-ba39f1e/records/gpumeter-20261201T014841Z-3264-5e9f2e89.json
gpu_b=$src/bench/results/2026-12-01-h200-31cc39c/records/gpumeter-20261201T054324Z-16564-7a31af2f.json
for record in "$host_a" "$gpu_a" "$gpu_b"; do
  out=$("$gpumeter" report "$record" 2>&1) || fail "report $record exited $?"
  check 120 "report $(basename "$record")" "$out"
done
out=$("$gpumeter" compare "$host_a" "$host_b" 2>&1) || fail "compare of the host records exited $?"
check 120 "compare of the host records" "$out"
[[ $out == *"| case "*"| implementation "*"| params "* ]] ||
  fail "compare's table has no case, implementation and params columns: $out"
# gpu_a and gpu_b ran on two H200 boards, whose rows are never compared (exit 2, the reason
# given); the widths are checked on gpu_a against a copy of itself under another run id.
out=$("$gpumeter" compare "$gpu_a" "$gpu_b" 2>&1)
[[ $? -eq 2 && $out == *"the rows ran on two boards (NVIDIA H200 GPU-8a620f81"* ]] ||
  fail "compare of GPU records of two boards: not refused with the reason: $out"
sed 's/"run_id": "20261201T014841Z-3264-5e9f2e89"/"run_id": "20261201T014841Z-3264-5e9f2e8a"/' \
  "$gpu_a" >"$work/gpu_a_again.json"
out=$("$gpumeter" compare "$gpu_a" "$work/gpu_a_again.json" 2>&1) ||
  fail "compare of the GPU records exited $?"
check 120 "compare of the GPU records" "$out"
# Aligned: every line of the table as long as its header.
table=$(printf '%s\n' "$out" | grep '^|')
[[ $(printf '%s\n' "$table" | awk '{ print length($0) }' | sort -u | wc -l) == 1 ]] ||
  fail "compare's table is not aligned:
$table"

# Every statistic labelled by what it is: a host row's wall clock is never titled device_busy,
# in the wide table or in CSV (whose time columns the statistic column names).
out=$("$gpumeter" report --wide "$host_a" 2>&1)
header=$(printf '%s\n' "$out" | grep -m1 '^| case')
[[ $header == *"wall clock median [p10, p90]"* && $header != *device_busy* ]] ||
  fail "report --wide of a host record: its time is not titled wall clock: $header"
out=$("$gpumeter" report --wide "$gpu_a" 2>&1)
header=$(printf '%s\n' "$out" | grep -m1 '^| case')
[[ $header == *"device_busy median [p10, p90]"* ]] ||
  fail "report --wide of a GPU record: its time is not titled device_busy: $header"
out=$("$gpumeter" report --csv "$host_a" 2>&1)
header=$(printf '%s\n' "$out" | head -n1)
[[ $header == *",statistic,time_median_us,time_p10_us,time_p90_us,"* && $header != *device_busy* ]] ||
  fail "report --csv: the time columns are not named by the statistic column: $header"
[[ $(printf '%s\n' "$out" | sed -n 2p) == *",synchronized_wall_clock,"* ]] ||
  fail "report --csv of a host record: its rows do not say synchronized_wall_clock"
checked=$((checked + 4))

if [[ $failures -gt 0 ]]; then
  echo "$failures of $checked checks failed"
  exit 1
fi
echo "widths: $checked texts checked, every line fits"
