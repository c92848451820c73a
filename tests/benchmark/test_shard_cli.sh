#!/usr/bin/env bash
# A sweep split into shards as a cluster's array job runs it (B10), on a program of host work
# (host_benchmarks.cpp): --shard K/N and the schedulers' variables, the shards run one after
# another and merged (the same rows as the whole sweep, in its order), a missing shard and a
# killed one named by the merge, empty shards (more shards than cases) valid and not needed, a
# merge of one record, an altered shard record or journal refused, and every bad value one line
# with exit 2. It asserts the plumbing, never a timing ratio.
#   test_shard_cli.sh BENCHMARK_PROGRAM GPUMETER FAKE_NVML
set -u
bench=$1
gpumeter=$2
fake_nvml=$3
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
export GPU_LOCK="$work/gpu.lock"
fake_idle_device "$fake_nvml"
no_scheduler_index  # no scheduler of the machine this runs on may deal this test's cases
run() { run_program "$bench" "$@"; }     # NAME ARGS...: the program
g() { run_program "$gpumeter" "$@"; }    # NAME ARGS...: gpumeter
expect_usage() {  # NAME WORDS: exit 2, the words said, nothing on stdout
  [[ $rc -eq 2 ]] || fail "$1: exit code $rc, expected 2: $(cat "$work/$1.err")"
  [[ -s "$work/$1.out" ]] && fail "$1: wrote to stdout"
  grep -qF -- "$2" "$work/$1.err" || fail "$1: does not say '$2': $(cat "$work/$1.err")"
}
# The rows of a record, one line each: case, implementation and params, sorted (CSV's first
# columns; the times differ from run to run).
rows() {
  "$gpumeter" report --csv "$1" | tail -n +2 | cut -d, -f1-4 | sort
}
quick=(--budget 1,2 --timing host)
sweep=(--filter '^sum' --axis n=1:24 "${quick[@]}")  # 24 cases of one implementation each

# --- bad values: one line naming the option or variable, exit 2 --------------------------------
for bad in 4/4 -1/4 1/0 x abc/4 1/4/4 "1/100001"; do
  run "bad_$RANDOM" "${sweep[@]}" --shard "$bad" --out "$work/bad"
  [[ $rc -eq 2 ]] || fail "--shard $bad: exit code $rc, expected 2"
done
run empty_option "${sweep[@]}" --shard '' --out "$work/bad"
expect_usage empty_option "--shard: is empty"
# '--shard=' with nothing after it: refused by name, not read as --shard --quiet (the parser
# would take the next argument as its value).
run empty_equals "${sweep[@]}" --shard= --quiet --out "$work/bad"
expect_usage empty_equals "--shard: is empty (given as '--shard='"
grep -qF -- "--quiet" "$work/empty_equals.err" && fail "empty_equals: took the next argument"
run empty_equals_last "${sweep[@]}" --out "$work/bad" --shard=
expect_usage empty_equals_last "--shard: is empty (given as '--shard='"
SLURM_ARRAY_TASK_ID=1 run half_slurm "${sweep[@]}" --out "$work/bad"
expect_usage half_slurm "SLURM_ARRAY_TASK_COUNT is not"
SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=4 run conflict "${sweep[@]}" --shard 2/4 --out "$work/bad"
expect_usage conflict "but the scheduler says shard 1 of 4 (SLURM_ARRAY_TASK_ID=1"
JOB_COMPLETION_INDEX=2 run no_completions "${sweep[@]}" --out "$work/bad"
expect_usage no_completions "set JOB_COMPLETIONS"
[[ -e "$work/bad" && -n $(ls -A "$work/bad") ]] && fail "a refused shard wrote files: $(ls "$work/bad")"

# --- more shards than cases: an empty shard is a valid empty part, measured by no one ----------
run too_many "${sweep[@]}" --shard 30/40 --out "$work/empty"
[[ $rc -eq 0 ]] || fail "too_many: exit code $rc, expected 0: $(cat "$work/too_many.err")"
grep -qF "shard 30 of 40 (--shard 30/40) holds none of the 24 selected cases" "$work/too_many.err" ||
  fail "too_many: does not say the shard is empty: $(cat "$work/too_many.err")"
[[ -e "$work/empty" ]] && fail "too_many: an empty shard wrote files"
# 5 cases in 7 shards: shards 5 and 6 hold none, and the merge of the other five is the whole.
few=(--filter '^sum' --axis n=1:5 "${quick[@]}")
for k in 0 1 2 3 4 5 6; do
  run "few$k" "${few[@]}" --shard "$k/7" --out "$work/few$k"
  [[ $rc -eq 0 ]] || fail "few $k of 7: exit code $rc: $(cat "$work/few$k.err")"
done
[[ -e "$work/few5" || -e "$work/few6" ]] && fail "few: an empty shard wrote a record"
g few_merge merge --allow-missing-shards "$work"/few?/gpumeter-*.json -o "$work/few.json"
[[ $rc -eq 0 ]] || fail "few_merge: exit code $rc: $(cat "$work/few_merge.err")"
g few_report report "$work/few.json"
grep -qF "the 7 shards of one sweep of 5 cases, every shard merged (2 of them hold no case" \
  "$work/few_report.out" || fail "few_merge: does not say every shard merged"
grep -qE "missing|ShardMissing" "$work/few_report.out" && fail "few_merge: says a shard is missing"

# --- --list: the shard's own cases, dealt round robin -------------------------------------------
run list "${sweep[@]}" --list --shard 1/4
[[ $(cut -f2 "$work/list.out" | tr '\n' ';') == "sum (kind=plain, n=2);sum (kind=plain, n=6);sum (kind=plain, n=10);sum (kind=plain, n=14);sum (kind=plain, n=18);sum (kind=plain, n=22);" ]] ||
  fail "list: not shard 1 of 4's cases: $(cat "$work/list.out")"

# --- the whole sweep, then its 4 shards one after another, merged --------------------------------
run whole "${sweep[@]}" --quiet --out "$work/whole"
[[ $rc -eq 0 ]] || fail "whole: exit code $rc: $(cat "$work/whole.err")"
for k in 0 1 2; do
  run "shard$k" "${sweep[@]}" --shard "$k/4" --out "$work/s$k"
  [[ $rc -eq 0 ]] || fail "shard $k: exit code $rc: $(cat "$work/shard$k.err")"
  grep -qF "shard $k of 4 (--shard $k/4): 6 of the sweep's 24 cases" "$work/shard$k.err" ||
    fail "shard $k: does not say which shard: $(cat "$work/shard$k.err")"
done
# The last one as a Slurm array task would be started (--array=1-4: id 4 is shard 3).
SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=4 \
  run shard3 "${sweep[@]}" --out "$work/s3"
[[ $rc -eq 0 ]] || fail "shard 3 (Slurm): exit code $rc: $(cat "$work/shard3.err")"
grep -qF "shard 3 of 4 (SLURM_ARRAY_TASK_ID=4" "$work/shard3.err" ||
  fail "shard 3: does not say the Slurm variables: $(cat "$work/shard3.err")"
grep -qF '"source": "slurm"' "$work"/s3/gpumeter-*.json || fail "shard 3: the record does not say Slurm"
# A shard's table says it is one share of a sweep, read from its shard section (no deviation
# of the writer's says it).
g shard_report report "$work"/s1/gpumeter-*.json
grep -qF "one shard of a sweep: shard 1 of 4 (--shard 1/4), 6 of its 24 cases" \
  "$work/shard_report.out" || fail "shard report: does not say it is one shard"
grep -qF '"one shard of a sweep' "$work"/s1/gpumeter-*.json &&
  fail "shard record: the writer still says it in a deviation"
g merge merge "$work"/s{3,1,0,2}/gpumeter-*.json -o "$work/merged.json"
[[ $rc -eq 0 ]] || fail "merge: exit code $rc: $(cat "$work/merge.err")"
rows "$work"/whole/gpumeter-*.json >"$work/whole.rows"
rows "$work/merged.json" >"$work/merged.rows"
[[ $(wc -l <"$work/whole.rows") -eq 48 ]] || fail "whole: not 48 rows (24 cases of 2 implementations)"
diff "$work/whole.rows" "$work/merged.rows" >/dev/null || fail "merged: not the whole sweep's rows"
# In the whole sweep's order, whatever order the shards were given in.
diff <("$gpumeter" report --csv "$work"/whole/gpumeter-*.json | cut -d, -f1-4) \
  <("$gpumeter" report --csv "$work/merged.json" | cut -d, -f1-4) >/dev/null ||
  fail "merged: the rows are not in the whole sweep's order"
g merged_report report "$work/merged.json"
grep -qF "the 4 shards of one sweep of 24 cases, every shard merged" \
  "$work/merged_report.out" || fail "merged: does not say it joined 4 shards"
grep -qF "one shard of a sweep" "$work/merged_report.out" && fail "merged: still says it is a shard"
# A shard in a process per case (--isolate): each case's process deals the same way, so it
# measures the same cases as the shard in one process.
run isolated "${sweep[@]}" --isolate --shard 1/4 --out "$work/i1"
[[ $rc -eq 0 ]] || fail "isolated: exit code $rc: $(cat "$work/isolated.err")"
diff <(rows "$work"/i1/gpumeter-*.json) <(rows "$work"/s1/gpumeter-*.json) >/dev/null ||
  fail "isolated: not shard 1's rows"
# --shard all: every case, though a scheduler's variables are set.
SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=4 run all "${sweep[@]}" --shard all --list
[[ $(wc -l <"$work/all.out") -eq 24 ]] || fail "--shard all: not every case: $(wc -l <"$work/all.out")"

# --- merges that are not of one sweep's shards ------------------------------------------------
g missing merge "$work"/s{0,1,3}/gpumeter-*.json -o "$work/missing.json"
expect_usage missing "shard 2 of 4 is missing (its 6 cases, sum (kind=plain, n=3) first)"
[[ -e "$work/missing.json" ]] && fail "missing: wrote a record"
g missing_allowed merge --allow-missing-shards "$work"/s{0,1,3}/gpumeter-*.json -o "$work/missing.json"
[[ $rc -eq 0 ]] || fail "missing_allowed: exit code $rc: $(cat "$work/missing_allowed.err")"
g missing_report report --wide "$work/missing.json"
[[ $(grep -c "ShardMissing" "$work/missing_report.out") -ge 6 ]] ||
  fail "missing_allowed: the 6 lost cases are not failures named ShardMissing"
run again "${sweep[@]}" --shard 0/4 --out "$work/s0b"
g twice merge "$work"/s{0,0b,1,2,3}/gpumeter-*.json -o "$work/twice.json"
expect_usage twice "shard 0 of 4 is in two of the records"
run other_budget --filter '^sum' --axis n=1:24 --budget 1,3 --timing host --shard 2/4 --out "$work/o2"
g other merge "$work"/s{0,1,3}/gpumeter-*.json "$work"/o2/gpumeter-*.json -o "$work/other.json"
expect_usage other "shards of one sweep run one program with the same options"
g whole_among merge "$work"/s{0,1,2,3}/gpumeter-*.json "$work"/whole/gpumeter-*.json -o "$work/w.json"
expect_usage whole_among "a whole sweep's record among shards"
# One record: a one-task array's only shard is the whole sweep; a lone surviving shard names the
# others, or keeps its rows with theirs as failures.
run only "${sweep[@]}" --shard 0/1 --quiet --out "$work/only"
g only_merge merge "$work"/only/gpumeter-*.json -o "$work/only.json"
[[ $rc -eq 0 ]] || fail "only_merge: exit code $rc: $(cat "$work/only_merge.err")"
[[ $(rows "$work/only.json" | wc -l) -eq 48 ]] || fail "only_merge: not the 48 rows"
g lone merge "$work"/s1/gpumeter-*.json -o "$work/lone.json"
expect_usage lone "shard 0 of 4 is missing"
g lone_allowed merge --allow-missing-shards "$work"/s1/gpumeter-*.json -o "$work/lone.json"
[[ $rc -eq 0 ]] || fail "lone_allowed: exit code $rc: $(cat "$work/lone_allowed.err")"

# --- an altered shard record: a row moved to another shard is refused by the reader -------------
altered="$work/altered.json"
sed 's/^  "shard": {$/&/; /^  "shard": {$/,/^  }/ s/"index": 1,/"index": 2,/' "$work"/s1/gpumeter-*.json >"$altered"
grep -q '"index": 2,' "$altered" || fail "altered: the test's edit did not apply"
g altered report "$altered"
expect_usage altered "is a case of shard 1 of 4, not of this record's shard 2 of 4"

# --- a shard killed while it runs: its journal is partial, and the merge names what it lost ------
# 3 cases dealt to 2 shards: sum n=1000 and trouble what=hang to shard 0, sum n=4000 to shard 1.
mix=(--filter 'n=1000|n=4000|what=hang' "${quick[@]}")
run k1 "${mix[@]}" --shard 1/2 --out "$work/k1"
[[ $rc -eq 0 ]] || fail "killed: shard 1: exit code $rc: $(cat "$work/k1.err")"
"$bench" "${mix[@]}" --shard 0/2 --out "$work/k0" >"$work/k0.out" 2>"$work/k0.err" &
pid=$!
pids+=($pid)
for _ in $(seq 200); do  # 10 s for its first case to reach the journal
  [[ $(cat "$work"/k0/*.partial.jsonl 2>/dev/null | wc -l) -ge 2 ]] && break
  sleep 0.05
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
journal=$(ls "$work"/k0/*.partial.jsonl 2>/dev/null | head -n1)
[[ -n $journal ]] || fail "killed: no journal of shard 0"
# A journal whose planned count is not its shard's cases is of no run of it.
sed '1 s/"cases":2,/"cases":3,/' "$journal" >"$work/replanned.partial.jsonl"
cmp -s "$journal" "$work/replanned.partial.jsonl" && fail "replanned: the test's edit did not apply"
g replanned report "$work/replanned.partial.jsonl"
expect_usage replanned "the run planned 3 cases, but its shard 0 of 2 holds 2"
g killed merge "$journal" "$work"/k1/gpumeter-*.json -o "$work/killed.json"
expect_usage killed "shard 0 of 2 is partial: 1 of its 2 cases did not run (trouble (what=hang))"
g killed_allowed merge --allow-missing-shards "$journal" "$work"/k1/gpumeter-*.json -o "$work/killed.json"
[[ $rc -eq 0 ]] || fail "killed_allowed: exit code $rc: $(cat "$work/killed_allowed.err")"
g killed_report report --wide "$work/killed.json"
grep -qE '^\| sum +\| loop ' "$work/killed_report.out" || fail "killed: the finished rows are lost"
grep -qF "ShardIncomplete" "$work/killed_report.out" || fail "killed: the lost case is not named"
grep -qF "partial record" "$work/killed_report.out" &&
  fail "killed: the merge, every case accounted for, still reads as partial"

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "shards: every check passed"
