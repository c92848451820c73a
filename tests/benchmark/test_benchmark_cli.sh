#!/usr/bin/env bash
# The benchmark command line, driven as a user drives it, on a program of host work
# (host_benchmarks.cpp): listing, filters, axes, output formats, progress only on a terminal,
# records written case by case, cases isolated in their own processes, and one clear line with
# exit code 2 for every bad input, and the device lock (P1) held for the sweep. It asserts the
# plumbing, never a timing ratio.
#   test_benchmark_cli.sh BENCHMARK_PROGRAM GPUMETER FAKE_NVML
set -u
bench=$1
gpumeter=$2
fake_nvml=$3
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
# The device lock of this test's own (other tests and real GPU users never wait for it), and
# an idle device as the fake NVML reports it: a machine's real GPU, busy with another test's
# process, would otherwise refuse the sweeps.
export GPU_LOCK="$work/gpu.lock"
fake_idle_device "$fake_nvml"
run() { run_program "$bench" "$@"; }  # NAME ARGS...: the program
# Tiny budgets: this test checks what happens, not how fast. The host clock even where a GPU
# is present: the cases are CPU work, which a device-time backend would refuse (no device work).
quick=(--budget 1,2 --timing host)

# --- usage errors: one line naming the problem, one pointing at --help, exit 2, no stdout ----
expect_usage() {  # name expected-words
  [[ $rc -eq 2 ]] || fail "$1: exit code $rc, expected 2"
  [[ -s "$work/$1.out" ]] && fail "$1: wrote to stdout"
  [[ $(wc -l <"$work/$1.err") -eq 2 ]] || fail "$1: not two lines on stderr: $(cat "$work/$1.err")"
  grep -qF -- "$2" "$work/$1.err" || fail "$1: does not say '$2': $(cat "$work/$1.err")"
  grep -qF -- "--help" "$work/$1.err" || fail "$1: does not point at --help"
}
run unknown_flag --frob
expect_usage unknown_flag "--frob"
run unknown_axis --axis q=1
expect_usage unknown_axis "no selected benchmark has an axis 'q'"
run bad_value --axis n=12x
expect_usage bad_value "axis 'n': '12x' is not an integer"
run bad_timing --timing gpu
expect_usage bad_timing "--timing"
run bad_budget --budget 5
expect_usage bad_budget "WARMUP_MS,MEASURE_MS"
run bad_regex --filter "(x"
expect_usage bad_regex "not a valid regular expression"
run no_match --filter nothing-matches-this
expect_usage no_match "no case matches"
run md_and_csv --md --csv
expect_usage md_and_csv "--md"
# One meaning of the table's format in every program (as `gpumeter report` and `gpumeter run`):
# CSV holds every column, so --wide beside it is refused, not ignored.
run csv_and_wide --csv --wide
expect_usage csv_and_wide "--wide"
run timeout_alone --timeout 3
expect_usage timeout_alone "--timeout needs --isolate"
# The output folder is checked before anything is measured (measuring would reach the case that
# aborts, and exit otherwise than 2).
run not_writable --out /proc/nope "${quick[@]}"
expect_usage not_writable "/proc/nope"

# --- help, version, list, filter, axes ------------------------------------------------------
run help --help
[[ $rc -eq 0 ]] && grep -qF -- "--isolate" "$work/help.out" || fail "help: rc $rc"
run version --version
[[ $rc -eq 0 && "$(cat "$work/version.out")" =~ \(gpumeter\ [0-9]+\.[0-9]+\.[0-9]+\)$ ]] ||
  fail "version: rc $rc, '$(cat "$work/version.out")'"
run list --list
[[ $rc -eq 0 && $(wc -l <"$work/list.out") -eq 11 ]] || fail "list: rc $rc, $(wc -l <"$work/list.out") cases"
grep -qP '^0\tsum \(kind=plain, n=1000\)$' "$work/list.out" || fail "list: first case: $(head -1 "$work/list.out")"
run filtered --list --filter "n=4000|what=fine"
[[ $(cut -f2 "$work/filtered.out" | tr '\n' ';') == "sum (kind=plain, n=4000);trouble (what=fine);" ]] ||
  fail "filter: $(cat "$work/filtered.out")"
run axes --list --axis n=1e3:3e3:1e3 --filter sum
[[ $(cut -f2 "$work/axes.out" | tr '\n' ';') == "sum (kind=plain, n=1000);sum (kind=plain, n=2000);sum (kind=plain, n=3000);" ]] ||
  fail "axis override: $(cat "$work/axes.out")"

# --- a sweep: record, table, CSV, quiet, no progress in a pipe ------------------------------
run sweep --wide --filter "sum|fine|skip|wrong|throw" --out "$work/r1" "${quick[@]}"
[[ $rc -eq 1 ]] || fail "sweep: exit code $rc, expected 1 (two cases produced no number)"
records=("$work"/r1/gpumeter-*.json)
[[ ${#records[@]} -eq 1 && -f "${records[0]}" ]] || fail "sweep: not one record: ${records[*]}"
[[ -n $(ls "$work"/r1/*.partial.json* 2>/dev/null) ]] && fail "sweep: the partial record or the journal was left behind"
grep -qE '^\| sum +\| loop +\| kind=plain, n=1000 ' "$work/sweep.out" || fail "sweep: no sum row"
grep -qF "Skipped: not on this machine" "$work/sweep.out" || fail "sweep: the skip's reason is missing"
grep -qF "VerificationFailed: off-by-one: element 0 is 1, the reference 2" "$work/sweep.out" ||
  fail "sweep: the wrong output is not named"
grep -qF "UserCodeError: the benchmark's setup threw std::runtime_error: setup failed on purpose" \
  "$work/sweep.out" || fail "sweep: the throwing setup is not named"
grep -q $'\r' "$work/sweep.err" && fail "sweep: a progress line went to a pipe"
"$gpumeter" report --wide "${records[0]}" >"$work/report.md" || fail "report of the sweep's record"
diff <(sed -n '/^| case/,/^$/p' "$work/sweep.out") <(sed -n '/^| case/,/^$/p' "$work/report.md") >/dev/null ||
  fail "the program's table is not the report of its record"

# --- the user's exceptions: each fails its case only, named with its type and message; the ------
# other cases are measured, the record is complete, and the exit code is that of a failed case.
run user_code --wide --filter "n=1000|fine|throw" --out "$work/r12" "${quick[@]}"
[[ $rc -eq 1 ]] || fail "user_code: exit code $rc, expected 1: $(cat "$work/user_code.err")"
grep -qF "internal error" "$work/user_code.err" && fail "user_code: an internal error: $(cat "$work/user_code.err")"
records=("$work"/r12/gpumeter-*.json)
[[ ${#records[@]} -eq 1 && -f "${records[0]}" && "${records[0]}" != *.partial.json ]] ||
  fail "user_code: not one complete record: $(ls "$work/r12")"
grep -qF "partial record" "$work/user_code.out" && fail "user_code: the record says it is partial"
grep -qE '^\| sum +\| loop +\| kind=plain, n=1000 ' "$work/user_code.out" || fail "user_code: sum not measured"
grep -qE '^\| trouble +\| fine ' "$work/user_code.out" || fail "user_code: the fine case not measured"
for expected in \
  "UserCodeError: the benchmark's setup threw std::runtime_error: setup failed on purpose" \
  "UserCodeError: implementation 'checked', its output check threw std::runtime_error: the check failed on purpose" \
  "UserCodeError: implementation 'flaky', iteration 0, the measured call threw std::out_of_range: the fifth call failed on purpose" \
  "UserCodeError: implementation 'odd', the reset before its untimed call threw int;"; do
  grep -qF "$expected" "$work/user_code.out" || fail "user_code: not named: $expected"
done
[[ $(grep -o '"error": *"UserCodeError"' "${records[0]}" | wc -l) -eq 4 ]] ||
  fail "user_code: the record does not hold 4 UserCodeError failures"
"$gpumeter" report "${records[0]}" >/dev/null || fail "user_code: the record does not read"

run csv --filter "n=1000" --csv --out "$work/r2" "${quick[@]}"
[[ $rc -eq 0 && "$(head -1 "$work/csv.out")" == case,implementation,params,* ]] || fail "csv: rc $rc"
[[ $(grep -c '^sum,' "$work/csv.out") -eq 2 ]] || fail "csv: expected two sum rows"
run quiet --filter "n=1000" --quiet --out "$work/r3" "${quick[@]}"
[[ $rc -eq 0 && ! -s "$work/quiet.out" && ! -s "$work/quiet.err" ]] || fail "quiet: rc $rc, printed something"

# --- progress: on a terminal only -----------------------------------------------------------
if command -v script >/dev/null; then
  script -qec "$(printf '%q ' "$bench" --filter "sum" --out "$work/r4" "${quick[@]}")" /dev/null \
    >"$work/tty.out" 2>&1
  grep -qF "[1/2] sum" "$work/tty.out" || fail "progress: no progress line on a terminal"
else
  echo "note: no 'script' command; the terminal progress check did not run"
fi

# --- faults: a crash keeps what came before (in the run's journal); --isolate keeps the sweep going
run crash --filter "n=1000|crash" --out "$work/r5" "${quick[@]}"
[[ $rc -ne 0 ]] || fail "crash: exit code 0 although the process aborted"
partial=("$work"/r5/*.partial.jsonl)
[[ -f "${partial[0]}" ]] || fail "crash: no journal on disk: $(ls "$work/r5")"
# Issue 51: it died of SIGABRT saying nothing, the journal named nowhere. Now one line names the
# case and the journal (docs/cli.md), and the process still dies of its signal (134 to a shell).
[[ $rc -eq 134 ]] || fail "crash: exit code $rc, expected 134 (SIGABRT)"
grep -qF "the process crashed (signal 6) measuring case trouble (what=crash): the 1 case(s) finished before it are in the journal ${partial[0]}, which gpumeter report reads; --isolate" "$work/crash.err" ||
  fail "crash: no line naming the case and the journal: $(cat "$work/crash.err")"
"$gpumeter" report "${partial[0]}" >"$work/partial.md" || fail "crash: the partial record does not read"
grep -qE '^\| sum +\| loop ' "$work/partial.md" || fail "crash: the case before the crash is not in the partial record"
grep -qF "partial record: read from the run's journal, which holds 1 of 2 cases" "$work/partial.md" ||
  fail "crash: the partial record does not say it is partial: $(grep -F partial "$work/partial.md")"

run isolate --isolate --wide --timeout 3 --filter "n=1000|fine|crash|hang|wrong|in-check" --out "$work/r6" "${quick[@]}"
[[ $rc -eq 1 ]] || fail "isolate: exit code $rc, expected 1"
grep -qE '^\| sum +\| loop ' "$work/isolate.out" || fail "isolate: sum not measured"
grep -qE '^\| trouble +\| fine ' "$work/isolate.out" || fail "isolate: the case after the crash not measured"
grep -qF "Crashed: the case's process was killed by signal 6" "$work/isolate.out" ||
  fail "isolate: the crash is not named: $(grep Crashed "$work/isolate.out")"
grep -qF "Timeout: the case ran longer than --timeout 3.00 s" "$work/isolate.out" ||
  fail "isolate: the hang is not named"
grep -qF "VerificationFailed: off-by-one" "$work/isolate.out" || fail "isolate: the failure inside a child is lost"
grep -qF "UserCodeError: implementation 'checked', its output check threw std::runtime_error" \
  "$work/isolate.out" || fail "isolate: the user's exception inside a child is lost"
[[ $(ls -A "$work/r6" | grep -c '^\.') -eq 0 ]] || fail "isolate: left case files behind: $(ls -A "$work/r6")"
# The parent held the lock; its cases' processes ran under it without taking it again.
grep -qF "device lock" "$work/isolate.out" && fail "isolate: a lock deviation on an idle device"

# --- the device lock (P1) ---------------------------------------------------------------------
# Held by another run: the sweep gives up after --lock-timeout, naming the holder, exit 4, and
# measures nothing.
"$gpumeter" lock -- sleep 30 &
holder=$!
pids+=($holder)
for _ in $(seq 200); do [[ "$(head -n1 "$GPU_LOCK" 2>/dev/null)" == "$holder" ]] && break; sleep 0.05; done
for _ in $(seq 200); do pgrep -P "$holder" >/dev/null && break; sleep 0.05; done
pids+=($(pgrep -P "$holder"))
run locked --filter "n=1000" --lock-timeout 1 --out "$work/r7" "${quick[@]}"
[[ $rc -eq 4 ]] || fail "locked: exit code $rc, expected 4: $(cat "$work/locked.err")"
grep -qF "DeviceBusy: device cuda:0 is locked by another run: $GPU_LOCK is held by pid $holder (" "$work/locked.err" ||
  fail "locked: the holder is not named: $(cat "$work/locked.err")"
[[ -n $(ls "$work"/r7/*.json 2>/dev/null) ]] && fail "locked: wrote a record"
# --no-lock measures anyway, and the record says the lock was not taken.
run no_lock --no-lock --filter "n=1000" --out "$work/r8" "${quick[@]}"
[[ $rc -eq 0 ]] || fail "no_lock: exit code $rc: $(cat "$work/no_lock.err")"
grep -qF -- ": device lock not taken (--no-lock)" "$work/no_lock.out" || fail "no_lock: no deviation"
{ kill -KILL "$holder"; wait "$holder"; } 2>/dev/null

# Under `gpumeter lock`, the sweep finds the lock held for it (no wait, no second check).
"$gpumeter" lock --timeout 5 -- "$bench" --isolate --filter "n=1000" --lock-timeout 0 \
  --out "$work/r9" "${quick[@]}" >"$work/under_lock.out" 2>"$work/under_lock.err"
rc=$?
[[ $rc -eq 0 ]] || fail "under_lock: exit code $rc: $(cat "$work/under_lock.err")"
grep -qF "device lock" "$work/under_lock.out" && fail "under_lock: a lock deviation"

# A busy device (the fake NVML lists another process): --allow-contended measures, and the
# record is marked contended, naming the process.
sleep 30 &
other=$!
pids+=($other)
sleep 0.2
GPUMETER_FAKE_NVML_PROCESSES="$other:1073741824" run contended --wide --allow-contended --filter "n=1000" \
  --out "$work/r10" "${quick[@]}"
[[ $rc -eq 0 ]] || fail "contended: exit code $rc: $(cat "$work/contended.err")"
grep -qE -- "^- [^ ]+: contended: .*pid $other \(sleep 30, 1.00 GiB\)" "$work/contended.out" ||
  fail "contended: the record is not marked: $(grep -F -- '- ' "$work/contended.out")"
grep -qF "going ahead on a busy device" "$work/contended.err" || fail "contended: not said on stderr"
# No NVML: the lock is taken, and the record says the device could not be checked.
GPUMETER_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 run unchecked --filter "n=1000" \
  --out "$work/r11" "${quick[@]}"
[[ $rc -eq 0 ]] || fail "unchecked: exit code $rc: $(cat "$work/unchecked.err")"
grep -qF -- ": device lock taken without the idle check: NVML not loaded" "$work/unchecked.out" ||
  fail "unchecked: no deviation: $(grep -F -- '- ' "$work/unchecked.out")"

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all benchmark command-line checks passed"
