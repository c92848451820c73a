#!/usr/bin/env bash
# `gpumeter report` on good and bad records (SPEC P10, B2): a good record prints a table and
# exits 0; every bad input exits 2 with ONE line on stderr naming the file and the problem, and
# prints no table at all.
#   test_report.sh GPUMETER MAKE_RECORD
set -u

gpumeter=$1
make_record=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# run NAME ARGS...: runs gpumeter, leaving $work/NAME.out, $work/NAME.err and $rc.
run() {
  local name=$1
  shift
  "$gpumeter" "$@" >"$work/$name.out" 2>"$work/$name.err"
  rc=$?
}

# expect_bad NAME EXPECTED_SUBSTRING... ARGS are given by the caller through run first.
expect_bad() {
  local name=$1 file=$2 problem=$3
  [[ $rc -eq 2 ]] || fail "$name: exit code $rc, expected 2"
  [[ -s "$work/$name.out" ]] && fail "$name: printed to stdout (a partial table?): $(head -c 200 "$work/$name.out")"
  local lines
  lines=$(wc -l <"$work/$name.err")
  [[ $lines -eq 1 ]] || fail "$name: $lines lines on stderr, expected 1: $(cat "$work/$name.err")"
  grep -qF -- "$file" "$work/$name.err" || fail "$name: stderr does not name $file: $(cat "$work/$name.err")"
  grep -qF -- "$problem" "$work/$name.err" || fail "$name: stderr does not say '$problem': $(cat "$work/$name.err")"
}

good=$("$make_record" "$work") || { echo "FAIL: cannot make a record" >&2; exit 1; }
[[ -f "$good" ]] || { echo "FAIL: make_record printed '$good', not a file" >&2; exit 1; }

# --- good input ------------------------------------------------------------------------------
run good report "$good"
[[ $rc -eq 0 ]] || fail "good: exit code $rc: $(cat "$work/good.err")"
[[ -s "$work/good.err" ]] && fail "good: wrote to stderr: $(cat "$work/good.err")"
grep -qE '^\| case +\| implementation +\|' "$work/good.out" || fail "good: no table header"
grep -qE '^\| gemm +\| cublas +\| dtype=bf16, m=4096 +\| cupti +\| device_busy +\| 12.3 \[12.0, 12.7\]' "$work/good.out" \
  || fail "good: no gemm row: $(cat "$work/good.out")"
grep -qF 'not measured' "$work/good.out" || fail "good: no 'not measured' cell"
grep -qF 'Deviations:' "$work/good.out" || fail "good: no deviations section"
grep -qF "$(basename "$good" .json | sed 's/^gpumeter-//')" "$work/good.out" || fail "good: run id not listed as a source"

run csv report --csv "$good"
[[ $rc -eq 0 ]] || fail "csv: exit code $rc"
[[ "$(head -n 1 "$work/csv.out")" == case,implementation,params,* ]] || fail "csv: header: $(head -n 1 "$work/csv.out")"
[[ $(wc -l <"$work/csv.out") -eq 3 ]] || fail "csv: expected header + 2 rows"
grep -qF '"softmax, fused",triton,"n=""1,024"""' "$work/csv.out" || fail "csv: commas not quoted"

# The same record twice would print every row twice: refused, naming both files.
cp "$good" "$work/copy.json"
run two report "$good" "$work/copy.json"
expect_bad two "$work/copy.json" "the same record"
grep -qF "$good" "$work/two.err" || fail "two: the first file is not named: $(cat "$work/two.err")"

# --- bad input -------------------------------------------------------------------------------
head -c 700 "$good" >"$work/truncated.json"
run truncated report "$work/truncated.json"
expect_bad truncated "$work/truncated.json" "truncated"

echo '{"schema": "gpumeter.record", "schema_version": 2,,}' >"$work/invalid.json"
run invalid report "$work/invalid.json"
expect_bad invalid "$work/invalid.json" "not valid JSON (parse error at byte"

run missing report "$work/does-not-exist.json"
expect_bad missing "$work/does-not-exist.json" "cannot open (No such file or directory)"

sed 's/"schema_version": 2,/"schema_version": 7,/' "$good" >"$work/v7.json"
run v7 report "$work/v7.json"
expect_bad v7 "$work/v7.json" "unsupported schema_version 7 (this gpumeter reads 1 to 2)"

sed 's/"device_busy_ms":/"device_busy_msec":/' "$good" >"$work/nofield.json"
run nofield report "$work/nofield.json"
expect_bad nofield "$work/nofield.json" "missing field results[0].summary.device_busy_ms"

: >"$work/empty.json"
run empty report "$work/empty.json"
expect_bad empty "$work/empty.json" "not valid JSON (empty file)"

# All records are read before anything is printed: a bad one after a good one prints no table.
run mixed report "$good" "$work/truncated.json"
expect_bad mixed "$work/truncated.json" "truncated"
run mixed_csv report --csv "$good" "$work/v7.json"
expect_bad mixed_csv "$work/v7.json" "unsupported schema_version 7"

# --- usage -----------------------------------------------------------------------------------
run version --version
[[ $rc -eq 0 && "$(cat "$work/version.out")" =~ ^gpumeter\ [0-9]+\.[0-9]+\.[0-9]+$ ]] \
  || fail "version: rc $rc, '$(cat "$work/version.out")'"

run help --help
[[ $rc -eq 0 ]] && grep -q 'report' "$work/help.out" || fail "help: rc $rc, no report command listed"

run report_help report --help
[[ $rc -eq 0 ]] && grep -q -- '--csv' "$work/report_help.out" || fail "report --help: rc $rc"

run none
[[ $rc -eq 2 ]] || fail "no command: exit code $rc, expected 2"
grep -qi 'usage' "$work/none.err" || fail "no command: no usage on stderr"
[[ -s "$work/none.out" ]] && fail "no command: wrote to stdout"

run unknown frobnicate
[[ $rc -eq 2 ]] || fail "unknown command: exit code $rc, expected 2"
grep -qF 'frobnicate' "$work/unknown.err" || fail "unknown command: not named: $(cat "$work/unknown.err")"
grep -qi 'usage' "$work/unknown.err" || fail "unknown command: no usage on stderr"

run nofiles report
[[ $rc -eq 2 ]] || fail "report without records: exit code $rc, expected 2"

run badflag report --frob "$good"
[[ $rc -eq 2 ]] || fail "report --frob: exit code $rc, expected 2"

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all gpumeter report checks passed"
