#!/usr/bin/env bash
# `gpumeter compare`, `merge` and `env` on records with known differences: verdicts and exit
# codes for CI, rows on one side listed, other statistics refused, shards joined and mixed ones
# refused, the environment printed without a GPU. Bad input: one line, exit 2.
#   test_compare.sh GPUMETER MAKE_COMPARE_RECORDS
set -u
gpumeter=$1
make=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
run() {
  local name=$1
  shift
  "$gpumeter" "$@" >"$work/$name.out" 2>"$work/$name.err"
  rc=$?
}
"$make" "$work" || { echo "FAIL: cannot make the records" >&2; exit 1; }
r=$work

# --- compare: a 10% regression, found and gated -------------------------------------------------
run slower compare "$r/base.json" "$r/slower.json" --fail-on-regression 5
[[ $rc -eq 1 ]] || fail "slower: exit code $rc, expected 1 (a regression beyond 5%)"
# The change and its interval share their figures: two would print "+10% [+10%, +10%]".
grep -qF '| copy / a (n=1024) | device_busy | 10.0 us | 11.0 us | +10.00% [+9.995%, +10.01%] |' "$work/slower.out" ||
  fail "slower: copy/a row: $(grep 'copy / a' "$work/slower.out")"
grep -qE '^\| copy / b .*\| no difference detected' "$work/slower.out" || fail "slower: copy/b row"
grep -qF "Regressions beyond 5.0% (1):" "$work/slower.out" || fail "slower: the gate's list"
grep -qF -- "- copy / a (n=1024): 10.00% slower (95% interval 9.995% to 10.01%)" "$work/slower.out" ||
  fail "slower: the regression not named: $(grep -- '- copy / a' "$work/slower.out")"
grep -qF "Only in base (1):" "$work/slower.out" && grep -qF -- "- gemm / x (n=1024)" "$work/slower.out" ||
  fail "slower: a row only in base was dropped"
grep -qF "Only in new (1):" "$work/slower.out" && grep -qF -- "- softmax / y (n=1024)" "$work/slower.out" ||
  fail "slower: a row only in new was dropped"
grep -qE "Geometric mean of new / base over 2 row\(s\): \+4\.[0-9]% \(slower\)" "$work/slower.out" ||
  fail "slower: geometric mean: $(grep Geometric "$work/slower.out")"
# Beyond the regression's size, or without a gate: exit 0.
run tolerant compare "$r/base.json" "$r/slower.json" --fail-on-regression 20
[[ $rc -eq 0 ]] || fail "tolerant: exit code $rc, expected 0 (10% is within 20%)"
run nogate compare "$r/base.json" "$r/slower.json"
[[ $rc -eq 0 ]] || fail "nogate: exit code $rc, expected 0"
run same compare "$r/base.json" "$r/same.json" --fail-on-regression 0
[[ $rc -eq 0 ]] || fail "same: exit code $rc, expected 0"
[[ $(grep -c 'no difference detected' "$work/same.out") -eq 3 ]] || fail "same: expected 3 rows without a difference"

# --- compare: sides at different clocks are said to be, by the rule that flags a sample --------
run clocks compare "$r/cool.json" "$r/hot.json"
[[ $rc -eq 0 ]] || fail "clocks: exit code $rc, expected 0"
grep -qF '| copy / a (n=1024) | device_busy | 10.0 us | 10.0 us | +0% [' "$work/clocks.out" &&
  grep -F '| copy / a (n=1024)' "$work/clocks.out" |
  grep -qE 'no difference detected \(would see [0-9.]+%\); the two ran at different SM clocks \(median 1386 MHz against 1980 MHz\) \|' ||
  fail "clocks: copy/a does not say its clocks: $(grep 'copy / a' "$work/clocks.out")"
grep -F '| copy / b (n=1024)' "$work/clocks.out" | grep -q 'clock' &&
  fail "clocks: copy/b, the routine power cap a step down, said something: $(grep 'copy / b' "$work/clocks.out")"

# --- compare: another statistic is refused, not compared ----------------------------------------
run mixed compare "$r/base.json" "$r/mixed.json"
[[ $rc -eq 2 ]] || fail "mixed: exit code $rc, expected 2"
grep -qF "two different statistics are never compared" "$work/mixed.out" || fail "mixed: no refusal in the table"
[[ $(wc -l <"$work/mixed.err") -eq 1 ]] || fail "mixed: not one line on stderr"

# --- compare: bad input ---------------------------------------------------------------------------
expect_bad() {  # name words
  [[ $rc -eq 2 ]] || fail "$1: exit code $rc, expected 2"
  [[ -s "$work/$1.out" ]] && fail "$1: wrote to stdout"
  grep -qF -- "$2" "$work/$1.err" || fail "$1: does not say '$2': $(cat "$work/$1.err")"
  [[ $(wc -l <"$work/$1.err") -le 2 ]] || fail "$1: more than two lines on stderr"
}
run one_file compare "$r/base.json"
expect_bad one_file "new is required"
run missing compare "$r/base.json" "$r/nope.json"
expect_bad missing "nope.json: cannot open"
run twice compare "$r/base.json" "$r/base.json"
expect_bad twice "the same record"
run bad_pct compare "$r/base.json" "$r/slower.json" --fail-on-regression -3
expect_bad bad_pct "--fail-on-regression"
run unknown_flag compare --frob "$r/base.json" "$r/slower.json"
expect_bad unknown_flag "--frob"
grep -qF "Run 'gpumeter compare --help'" "$work/unknown_flag.err" || fail "unknown_flag: no pointer at --help"

# --- merge ----------------------------------------------------------------------------------------
run merge merge "$r/shard1.json" "$r/shard2.json" -o "$r/merged.json"
[[ $rc -eq 0 && -f "$r/merged.json" ]] || fail "merge: rc $rc: $(cat "$work/merge.err")"
run merged_report report "$r/merged.json"
[[ $(grep -cE '^\| copy +\| (a|b) ' "$work/merged_report.out") -eq 2 ]] || fail "merge: not both rows"
grep -qF "merged from 2 records: shard1, shard2" "$work/merged_report.out" || fail "merge: does not say what it joined"
run merge_again merge "$r/shard1.json" "$r/shard2.json" -o "$r/merged.json"
expect_bad merge_again "already exists"
run merge_dup merge "$r/base.json" "$r/same.json" -o "$r/dup.json"
expect_bad merge_dup "is in two of the records"
run merge_mixed merge "$r/shard1.json" "$r/other.json" -o "$r/mixed-merge.json"
expect_bad merge_mixed "differ in devices"
[[ -e "$r/mixed-merge.json" ]] && fail "merge_mixed: wrote a record"
run merge_allowed merge "$r/shard1.json" "$r/other.json" -o "$r/allowed.json" --allow-mixed
[[ $rc -eq 0 ]] || fail "merge_allowed: rc $rc"
run allowed_report report "$r/allowed.json"
grep -qF "merged records that differ in devices" "$work/allowed_report.out" || fail "merge_allowed: the deviation is missing"
# Shards that measured their own ceilings: joined into the fastest either saw, every percent
# recomputed against them (shard3's row read 102% of its own 4.0 TB/s, 97.2% of the joint 4.2).
run merge_ceilings merge "$r/shard3.json" "$r/shard4.json" -o "$r/ceilings.json"
[[ $rc -eq 0 ]] || fail "merge_ceilings: rc $rc: $(cat "$work/merge_ceilings.err")"
run ceilings_report report --wide "$r/ceilings.json"
grep -qE '^\| copy +\| c .*\| 97\.2% +\|' "$work/ceilings_report.out" || fail "merge_ceilings: copy/c is not 97.2% of the joint ceiling: $(grep -E '^\| copy' "$work/ceilings_report.out")"
grep -qF "(above the measured ceiling)" "$work/ceilings_report.out" && fail "merge_ceilings: a row is still marked above a ceiling"
grep -qF "each record measured its own ceilings" "$work/ceilings_report.out" || fail "merge_ceilings: the deviation is missing"
run merge_one merge "$r/shard1.json" -o "$r/one.json"
expect_bad merge_one "records"

# --- env: exit 0 and "not available" without a GPU --------------------------------------------
run env env
[[ $rc -eq 0 ]] || fail "env: exit code $rc"
grep -qE '^host: ' "$work/env.out" || fail "env: no host line"
grep -qE '^device: ' "$work/env.out" || fail "env: no device line"
run env_json env --json
[[ $rc -eq 0 ]] || fail "env --json: exit code $rc"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert "device_state" in j and "host" in j' \
  "$work/env_json.out" 2>/dev/null || fail "env --json: not JSON with host and device_state"
run env_bad env --device -1
expect_bad env_bad "--device"

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all compare, merge and env checks passed"
