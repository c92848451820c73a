#!/usr/bin/env bash
# `gpumeter compare`, `merge` and `env` on records with known differences: verdicts and exit
# codes for CI, rows on one side listed, other statistics refused, shards joined and mixed ones
# refused, the environment printed without a GPU. Bad input: one line, exit 2.
#   test_compare.sh GPUMETER MAKE_COMPARE_RECORDS
set -u
gpumeter=$1
make=$2
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
"$make" "$work" || { echo "FAIL: cannot make the records" >&2; exit 1; }
r=$work

# --- compare: a 10% regression, found and gated -------------------------------------------------
run slower compare "$r/base.json" "$r/slower.json" --fail-on-regression 5%
[[ $rc -eq 1 ]] || fail "slower: exit code $rc, expected 1 (a regression beyond 5%)"
# The change and its interval share their figures: two would print "+10% [+10%, +10%]".
# The table as report's (case, implementation, params; aligned), its findings below it.
grep -qE '^\| copy +\| a +\| n=1024 +\| 10\.0 us +\| 11\.0 us +\| \+10\.000% \[\+9\.9991%, \+10\.001%\] +\|$' "$work/slower.out" ||
  fail "slower: copy/a row: $(grep '| copy ' "$work/slower.out")"
grep -qxF -- '- copy / a (n=1024): slower' "$work/slower.out" || fail "slower: copy/a finding"
grep -qE '^- copy / b \(n=1024\): no difference detected' "$work/slower.out" || fail "slower: copy/b finding"
grep -qF "Regressions beyond 5% (1):" "$work/slower.out" || fail "slower: the gate's list"
grep -qF -- "- copy / a (n=1024): 10.000% slower (99% interval 9.9991% to 10.001%)" "$work/slower.out" ||
  fail "slower: the regression not named: $(grep -- '- copy / a' "$work/slower.out")"
grep -qF "Only in base (1):" "$work/slower.out" && grep -qF -- "- gemm / x (n=1024)" "$work/slower.out" ||
  fail "slower: a row only in base was dropped"
grep -qF "Only in new (1):" "$work/slower.out" && grep -qF -- "- softmax / y (n=1024)" "$work/slower.out" ||
  fail "slower: a row only in new was dropped"
# The mean claims no direction of its own ("+0.10% (slower)" where no row differed): the rows do.
grep -qxE "Geometric mean of new / base over 2 device-time row\(s\): \+4\.[0-9]%; by row: 1 slower, 1 with no difference detected" "$work/slower.out" ||
  fail "slower: geometric mean: $(grep Geometric "$work/slower.out")"
grep -qF "Gate (--fail-on-regression 5%): FAILED: 1 row(s) slower beyond 5%; 1 row of base not in new; 1 row of new not in base" "$work/slower.out" ||
  fail "slower: the gate's verdict: $(grep Gate "$work/slower.out")"
# One fraction rule: 0.05 is the gate 5% is, word for word.
run slower_fraction compare "$r/base.json" "$r/slower.json" --fail-on-regression 0.05
[[ $rc -eq 1 ]] || fail "slower_fraction: exit code $rc, expected 1"
cmp -s "$work/slower.out" "$work/slower_fraction.out" ||
  fail "slower_fraction: 0.05 and 5% gave different reports: $(diff "$work/slower.out" "$work/slower_fraction.out")"
# Within the regression's size, rows missing on either side still fail the gate: it cannot see
# them. --allow-missing lets them pass, and the output still names them. Without a gate: exit 0.
run tolerant compare "$r/base.json" "$r/slower.json" --fail-on-regression 20%
[[ $rc -eq 1 ]] || fail "tolerant: exit code $rc, expected 1 (rows missing on either side)"
grep -qF "gpumeter compare: the gate failed: 1 row of base not in new; 1 row of new not in base" "$work/tolerant.err" ||
  fail "tolerant: stderr does not say why: $(cat "$work/tolerant.err")"
run tolerant_allowed compare "$r/base.json" "$r/slower.json" --fail-on-regression 20% --allow-missing
[[ $rc -eq 0 ]] || fail "tolerant_allowed: exit code $rc, expected 0 (10% is within 20%, missing rows allowed)"
grep -qF "Gate (--fail-on-regression 20%): passed with --allow-missing, which let pass what it could not see: 1 row of base not in new; 1 row of new not in base" "$work/tolerant_allowed.out" ||
  fail "tolerant_allowed: the gate's verdict: $(grep Gate "$work/tolerant_allowed.out")"
# The gate as given: 1.25 is no 1.2% gate (two significant figures once said so).
run finer compare "$r/base.json" "$r/slower.json" --fail-on-regression 1.25%
grep -qF "Regressions beyond 1.25% (1):" "$work/finer.out" ||
  fail "finer: the gate's threshold as given: $(grep Regressions "$work/finer.out")"
run regression_allowed compare "$r/base.json" "$r/slower.json" --fail-on-regression 5% --allow-missing
[[ $rc -eq 1 ]] || fail "regression_allowed: exit code $rc, expected 1 (--allow-missing does not let a regression pass)"
run nogate compare "$r/base.json" "$r/slower.json"
[[ $rc -eq 0 ]] || fail "nogate: exit code $rc, expected 0"
run allow_alone compare "$r/base.json" "$r/slower.json" --allow-missing
[[ $rc -eq 2 ]] || fail "allow_alone: exit code $rc, expected 2 (--allow-missing needs the gate)"
# Refused by the core's rule (gate_options), in the words the pytest plugin gives too.
grep -qF -- "--allow-missing needs --fail-on-regression FRACTION" "$work/allow_alone.err" ||
  fail "allow_alone: not the core's words: $(cat "$work/allow_alone.err")"
run same compare "$r/base.json" "$r/same.json" --fail-on-regression 0%
[[ $rc -eq 0 ]] || fail "same: exit code $rc, expected 0"
[[ $(grep -c 'no difference detected' "$work/same.out") -eq 4 ]] || fail "same: expected 3 rows and the mean without a difference"
grep -qxF "Geometric mean of new / base over 3 device-time row(s): 0%; by row: no row differs (3 with no difference detected)" "$work/same.out" ||
  fail "same: geometric mean: $(grep Geometric "$work/same.out")"
grep -qF "Gate (--fail-on-regression 0%): passed: no row slower beyond 0%, none missing, failed or not run" "$work/same.out" ||
  fail "same: the gate's verdict: $(grep Gate "$work/same.out")"

# --- compare: the gate fails on what it cannot see -----------------------------------------------
# A partial record (its run stopped after 1 of 2 cases) printed "Only in base" and passed.
run partial compare "$r/base.json" "$r/partial.json" --fail-on-regression 5%
[[ $rc -eq 1 ]] || fail "partial: exit code $rc, expected 1"
grep -qF "Note: the new record is partial: the run had finished 1 of 2 cases" "$work/partial.out" ||
  fail "partial: does not say the record is partial"
grep -qF -- "- gemm / x (n=1024): not in new, whose record is partial (its run stopped before the end)" "$work/partial.out" ||
  fail "partial: the missing row does not say why: $(grep -- '- gemm' "$work/partial.out")"
grep -qF "gpumeter compare: the gate failed: 1 row of base not in new; the new record is partial: the run had finished 1 of 2 cases" "$work/partial.err" ||
  fail "partial: stderr: $(cat "$work/partial.err")"
run partial_allowed compare "$r/base.json" "$r/partial.json" --fail-on-regression 5% --allow-missing
[[ $rc -eq 0 ]] || fail "partial_allowed: exit code $rc, expected 0"
# A case that crashed in the new run showed only as "Only in base", and the gate passed.
run crashed compare "$r/base.json" "$r/crashed.json" --fail-on-regression 5%
[[ $rc -eq 1 ]] || fail "crashed: exit code $rc, expected 1"
grep -qF -- "- copy / a (n=1024): crashed: the case's process was killed by signal 11 (Segmentation fault) (in new)" "$work/crashed.out" ||
  fail "crashed: copy/a does not say why it is missing: $(grep -- '- copy / a' "$work/crashed.out")"
grep -qF "Cases not measured (1):" "$work/crashed.out" &&
  grep -qF -- "- copy / (every implementation) (n=1024) (new): crashed: the case's process was killed" "$work/crashed.out" ||
  fail "crashed: the crashed case is not listed"
grep -qF "1 case of new crashed" "$work/crashed.err" || fail "crashed: stderr: $(cat "$work/crashed.err")"
# No row in common gave an empty table and exit 0.
run disjoint compare "$r/base.json" "$r/disjoint.json" --fail-on-regression 5%
[[ $rc -eq 1 ]] || fail "disjoint: exit code $rc, expected 1"
grep -qF "No row is in both records: nothing was compared." "$work/disjoint.out" || fail "disjoint: does not say nothing was compared"
grep -qF "no row is in both records" "$work/disjoint.err" || fail "disjoint: stderr: $(cat "$work/disjoint.err")"
run disjoint_allowed compare "$r/base.json" "$r/disjoint.json" --fail-on-regression 5% --allow-missing
[[ $rc -eq 0 ]] || fail "disjoint_allowed: exit code $rc, expected 0"

# --- compare: wall-clock rows across records, judged from the 2x floor of two runs -------------
# Two host runs of the same code read "-3.7% [-4.8%, -2.6%] | faster".
run wall compare "$r/wall_base.json" "$r/wall_same.json" --fail-on-regression 1%
[[ $rc -eq 0 ]] || fail "wall: exit code $rc, expected 0 (no direction measured under 2x)"
grep -qE '^\| sum +\| a +\| n=1024 +\| 100 us +\| 96\.3 us +\| 0\.96x the time +\|' "$work/wall.out" &&
  grep -qxF -- '- sum / a (n=1024): no difference this machine can resolve now (under the 2.0x floor of what the host clock claims' "$work/wall.out" &&
  grep -qxE -- '  across two runs, whose passes were not interleaved \(neither row has a yardstick\); passes spread [0-9.]+%\) \(2\.0x resolution\)' "$work/wall.out" &&
  grep -qxF "Each side's median wall clock, row by row:" "$work/wall.out" ||
  fail "wall: the row: $(grep 'sum' "$work/wall.out")"
grep -qE 'faster|slower|%\]' <(grep 'sum / a' "$work/wall.out") && fail "wall: a direction or an interval on a wall-clock row"
grep -qF "Note: 1 row timed by the wall clock without a yardstick on both sides: judged by the 2.0x floor of two runs, so a slowdown under 2.0x is not a regression the gate can see, nor one wider apart than the spread of its passes bounds" "$work/wall.out" ||
  fail "wall: the gate's limit is not said"
run wall_slow compare "$r/wall_base.json" "$r/wall_slow.json" --fail-on-regression 5%
[[ $rc -eq 1 ]] || fail "wall_slow: exit code $rc, expected 1 (2.5x slower, a directional difference)"
grep -qF -- "- sum / a (n=1024): 2.5x slower (directional difference, 2.0x resolution)" "$work/wall_slow.out" ||
  fail "wall_slow: the regression: $(grep -- '- sum' "$work/wall_slow.out")"

# --- compare: names that are markup are shown, not obeyed ---------------------------------------
# A case named with '|', backticks or <script> split the table and passed HTML through.
run marked compare "$r/marked_base.json" "$r/marked_new.json"
[[ $rc -eq 0 ]] || fail "marked: exit code $rc"
marked_row='| x\|y \`rm -rf\` \<script>alert(1)\</script> \*\*bold\*\* | a              | n=1024 |'
grep -qF -- "$marked_row" "$work/marked.out" || fail "marked: the name is not escaped: $(grep 'rm -rf' "$work/marked.out")"
header_cells=$(grep -m1 '^| case' "$work/marked.out" | sed 's/\\|//g' | tr -cd '|' | wc -c)
while IFS= read -r line; do
  cells=$(sed 's/\\|//g' <<<"$line" | tr -cd '|' | wc -c)
  [[ $cells -eq $header_cells ]] || fail "marked: a row of $cells separators for $header_cells: $line"
done < <(grep '^| x' "$work/marked.out")
grep -qE '(^|[^\\])(<script|`|\*\*)' "$work/marked.out" && fail "marked: raw markup: $(grep -nE '(^|[^\\])(<script|`|\*\*)' "$work/marked.out")"

# --- compare: sides at different clocks are said to be, by the rule that flags a sample --------
run clocks compare "$r/cool.json" "$r/hot.json"
[[ $rc -eq 0 ]] || fail "clocks: exit code $rc, expected 0"
grep -qE '^\| copy +\| a +\| n=1024 +\| 10\.0 us +\| 10\.0 us +\| 0% \[' "$work/clocks.out" &&
  sed ':a;N;$!ba;s/\n  / /g' "$work/clocks.out" | grep -F -- '- copy / a (n=1024)' |
  grep -qE 'no difference detected \(would see [0-9.]+%\); the two ran at different SM clocks \(median 1386 MHz against 1980 MHz\)$' ||
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
run bad_pct compare "$r/base.json" "$r/slower.json" --fail-on-regression -3%
expect_bad bad_pct "--fail-on-regression"
# A bare 5 is someone's 5%: refused, both spellings named, never read as 500%.
run bare_pct compare "$r/base.json" "$r/slower.json" --fail-on-regression 5
expect_bad bare_pct "--fail-on-regression must be a fraction, written 5% or 0.05, got 5"
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
mkdir -p "$r/a-folder"
run merge_dir merge "$r/shard1.json" "$r/shard2.json" -o "$r/a-folder"
expect_bad merge_dir "-o $r/a-folder is a directory"
run merge_dup merge "$r/base.json" "$r/same.json" -o "$r/dup.json"
expect_bad merge_dup "is in two of the records"
# Two boards of one kind (other.json: another H200's uuid) merge, each row keeping its board.
run merge_boards merge "$r/shard1.json" "$r/other.json" -o "$r/boards.json"
[[ $rc -eq 0 ]] || fail "merge_boards: rc $rc: $(cat "$work/merge_boards.err")"
run boards_report report "$r/boards.json"
grep -qF "boards: the rows ran on 2 (rows of two boards are never compared)" \
  "$work/boards_report.out" || fail "merge_boards: the report does not list the two boards"
# other.json's one row keeps its board under the first record's header (GPU-11111111).
[[ $(grep -c '"uuid": "GPU-99999999' "$r/boards.json") -eq 1 ]] ||
  fail "merge_boards: other.json's row lost its board"
# compare's header names every board of a record joined from several, not its first alone.
run boards_compare compare "$r/shard1.json" "$r/boards.json"
[[ $rc -eq 0 ]] || fail "boards_compare: rc $rc: $(cat "$work/boards_compare.err")"
grep -qxF "Base: shard1 on NVIDIA H200 (cuda:0, GPU-11111111-2222-3333-4444-555555555555)" \
  "$work/boards_compare.out" || fail "boards_compare: the base's one board: $(head -n 2 "$work/boards_compare.out")"
grep -qE "^New:  .* on 2 boards: NVIDIA H200 \(cuda:0, GPU-11111111-2222-3333-4444-555555555555\), NVIDIA H200 \(GPU-99999999-2222-3333-4444-555555555555\)$" \
  "$work/boards_compare.out" || fail "boards_compare: the new record's boards: $(head -n 2 "$work/boards_compare.out")"
grep -qF "Note: the two records were measured on different devices" "$work/boards_compare.out" ||
  fail "boards_compare: a board only one side has is not noted"
# Another kind of device is mixed: refused unless --allow-mixed.
sed 's/NVIDIA H200/NVIDIA A100/g' "$r/other.json" >"$r/a100.json"
run merge_mixed merge "$r/shard1.json" "$r/a100.json" -o "$r/mixed-merge.json"
expect_bad merge_mixed "differ in devices"
[[ -e "$r/mixed-merge.json" ]] && fail "merge_mixed: wrote a record"
run merge_allowed merge "$r/shard1.json" "$r/a100.json" -o "$r/allowed.json" --allow-mixed
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
# One record merges: a whole sweep's, or a sweep's only shard.
run merge_one merge "$r/shard1.json" -o "$r/one.json"
[[ $rc -eq 0 ]] || fail "merge_one: rc $rc: $(cat "$work/merge_one.err")"
[[ -s "$r/one.json" ]] || fail "merge_one: no record written"

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
