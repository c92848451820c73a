#!/usr/bin/env bash
# The main job end to end on the host backend: the example writes a record, `gpumeter report`
# renders it (markdown and CSV), and a truncated or corrupted copy of the same record is
# refused with exit code 2, a one-line error naming the file, and no partial table.
#
# It asserts the plumbing, never a CPU timing ratio: CI machines are shared and loaded (under
# the sanitizers, a 4x null test read 3.9x to 6.6x and the two sums 1.3x to 2.3x apart across
# reruns), so which verdict the host clock gives is not this test's business; that a verdict is
# given, by the rule the record names, and that the report reads it back the same, is.
set -euo pipefail
trap 'echo "example_then_report: check failed at line $LINENO" >&2; tail -n 30 "$dir/example.out" >&2 2>/dev/null' ERR
example=$1
gpumeter=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# The GPU hidden: --timing host on a GPU times the GPU work (the synchronized wall clock).
CUDA_VISIBLE_DEVICES="" "$example" --timing host --out "$dir/records" >"$dir/example.out"
grep -q "host backend" "$dir/example.out"
grep -q "^| sum-f64 *| one-chain" "$dir/example.out"
# A verdict by the wall-clock rule, whichever way the loaded CPU made it come out.
# Under 1.5x, or where the passes do not bound it, no direction is worded: the medians' ratio,
# "four-chains took 0.91x the time of ...", and why nothing is claimed.
verdict='(four-chains is [0-9.]*x (faster|slower) than one-chain \(directional difference; |(no measured difference at this precision|no difference this machine can resolve now \(.*\)) between four-chains and one-chain \(four-chains took [0-9.]+x the time of one-chain, by their medians; ).*synchronized_wall_clock, rule: 1.5x resolution( and the passes. interval)?\)'
# Terminal output breaks long items at 120 characters, continuing them indented: read each item
# as one line.
unwrap() { sed -e ':a' -e 'N' -e '$!ba' -e 's/\n  */ /g' "$1"; }
unwrap "$dir/example.out" | grep -Eq -- "$verdict"
grep -Eq "^- null-test:sum-f64 / four-chains \(.*\): 4x the work took [0-9.]+x the time: (pass|FAIL)" "$dir/example.out"
record=$(ls "$dir"/records/gpumeter-*.json)
[ "$(echo "$record" | wc -l)" -eq 1 ]

"$gpumeter" report "$record" >"$dir/report.md"
grep -q "^| sum-f64 *| four-chains" "$dir/report.md"
grep -q "host-clock" "$dir/report.md"
grep -q "L2 flush off" "$dir/report.md"  # the host backend flushes nothing, and says so
# The verdicts and the null test are rendered from the record too, beside the table, and read
# exactly as the example printed them from the same record.
sed -n '/^Comparisons/,$p' "$dir/example.out" | grep -v '^Record:' | sed '/^$/d' >"$dir/example.verdicts"
sed -n '/^Comparisons/,$p' "$dir/report.md" | sed '/^$/d' >"$dir/report.verdicts"
unwrap "$dir/report.verdicts" | grep -Eq -- "$verdict"
diff "$dir/example.verdicts" "$dir/report.verdicts"
"$gpumeter" report --csv "$record" >"$dir/report.csv"
[ "$(grep -c '^sum-f64,' "$dir/report.csv")" -eq 2 ]

expect_refusal() {  # file, expected words in the error
  set +e
  "$gpumeter" report "$record" "$1" >"$dir/out" 2>"$dir/err"
  local rc=$?
  set -e
  [ "$rc" -eq 2 ] || { echo "exit $rc, want 2 for $1"; cat "$dir/err"; exit 1; }
  [ ! -s "$dir/out" ] || { echo "partial output for $1:"; cat "$dir/out"; exit 1; }
  [ "$(wc -l <"$dir/err")" -eq 1 ] || { echo "not one line:"; cat "$dir/err"; exit 1; }
  grep -q "$1" "$dir/err" || { echo "error does not name $1"; cat "$dir/err"; exit 1; }
  grep -qi "$2" "$dir/err" || { echo "error does not say '$2'"; cat "$dir/err"; exit 1; }
}

head -c $(($(wc -c <"$record") / 2)) "$record" >"$dir/truncated.json"
expect_refusal "$dir/truncated.json" "json"
sed -E 's/"schema_version": [0-9]+/"schema_version": 99/' "$record" >"$dir/future.json"
expect_refusal "$dir/future.json" "schema_version"
sed 's/"latency_ns"/"latency_nz"/' "$record" >"$dir/missing.json"
expect_refusal "$dir/missing.json" "latency_ns"
expect_refusal "$dir/absent.json" "open"
echo "example_then_report: all checks passed"
