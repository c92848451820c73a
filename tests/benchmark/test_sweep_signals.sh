#!/usr/bin/env bash
# A sweep stopped from outside, on a program of host work (host_benchmarks.cpp):
#   - SIGKILL of an --isolate sweep's parent: the hanging case's process dies with it (within a
#     bound), the device lock is never free while that process lives, and the next run takes the
#     lock and finds no file of the killed run left;
#   - SIGINT (Ctrl-C) and SIGTERM: the record of the cases finished so far is written as the
#     partial record, one line on stderr names it, and the exit code is 128+N; under --isolate
#     the case's process is killed first;
#   - SIGKILL of a sweep in one process: its journal holds the cases finished, and reads as a
#     partial record (report and compare say so);
#   - temporary files: one whose writer is gone is removed by the next run, one still held is
#     kept.
# No timing ratio is asserted.
#   test_sweep_signals.sh BENCHMARK_PROGRAM GPUMETER FAKE_NVML
set -u
set -m  # background jobs get SIGINT as a terminal's would (a plain script ignores it for them)
bench=$1
gpumeter=$2
fake_nvml=$3
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
export GPU_LOCK="$work/gpu.lock"
fake_idle_device "$fake_nvml"
quick=(--budget 1,2 --timing host)

# A process that runs: it exists and is not a zombie (a zombie holds no descriptor).
alive() {
  local state
  state=$(awk '/^State:/ {print $2}' "/proc/$1/status" 2>/dev/null)
  [[ -n $state && $state != Z ]]
}
# Waits up to 10 s for the first child of $1; prints its pid.
child_of() {
  local c=""
  for _ in $(seq 200); do
    c=$(pgrep -P "$1" | head -n1)
    [[ -n $c ]] && break
    sleep 0.05
  done
  echo "$c"
}
# Waits up to 10 s for the run's journal in $1 to hold a finished case (its second line).
wait_for_partial() {
  for _ in $(seq 200); do
    [[ $(cat "$1"/*.partial.jsonl 2>/dev/null | wc -l) -ge 2 ]] && return 0
    sleep 0.05
  done
  return 1
}
# Files in $1 other than records, partial records and the journals of killed runs.
leftovers() {
  ls -A "$1" | grep -vE '^gpumeter-[A-Za-z0-9._-]+\.jsonl?$'
}

# --- SIGKILL of an --isolate sweep's parent ----------------------------------------------------
"$bench" --isolate --timeout 3600 --filter "what=hang" --out "$work/k" "${quick[@]}" \
  >"$work/k.out" 2>"$work/k.err" &
parent=$!
pids+=($parent)
child=$(child_of "$parent")
if [[ -z $child ]]; then
  fail "kill: no process for the hanging case: $(cat "$work/k.err")"
else
  pids+=($child)
  # The case's process holds the device lock's descriptor: the lock lives as long as it does.
  ls -l "/proc/$child/fd" 2>/dev/null | grep -qF -- "$GPU_LOCK" ||
    fail "kill: the case's process does not hold the device lock"
  kill -KILL "$parent"
  gone=""
  for _ in $(seq 100); do  # 5 s
    # At no moment is the lock free while the case's process still runs.
    if flock -n "$GPU_LOCK" true && alive "$child"; then
      fail "kill: the device lock was free while the case's process still ran"
      break
    fi
    if ! alive "$child"; then
      gone=yes
      break
    fi
    sleep 0.05
  done
  [[ -n $gone ]] || fail "kill: the case's process still runs 5 s after its parent was killed"
fi
wait "$parent" 2>/dev/null
# The next run takes the lock at once, and finds nothing of the killed run but records.
"$bench" --filter "n=1000" --lock-timeout 0 --out "$work/k" "${quick[@]}" >"$work/next.out" 2>"$work/next.err"
rc=$?
[[ $rc -eq 0 ]] || fail "kill: the next run exits $rc: $(cat "$work/next.err")"
[[ -z $(leftovers "$work/k") ]] || fail "kill: files left behind: $(leftovers "$work/k" | tr '\n' ' ')"

# --- SIGKILL of a sweep in one process: its journal is the partial record ----------------------
"$bench" --filter "n=1000|what=hang" --out "$work/s" "${quick[@]}" >"$work/s.out" 2>"$work/s.err" &
pid=$!
pids+=($pid)
wait_for_partial "$work/s" || fail "sigkill: no case in the journal after the first case"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
journal=$(ls "$work"/s/*.partial.jsonl 2>/dev/null | head -n1)
"$gpumeter" report --wide "$journal" >"$work/s.md" 2>&1 || fail "sigkill: the journal does not read: $(cat "$work/s.md")"
grep -qE '^\| sum +\| loop ' "$work/s.md" || fail "sigkill: the finished case is not in the journal's record"
grep -qF "partial record: read from the run's journal, which holds 1 of 2 cases" "$work/s.md" ||
  fail "sigkill: the journal's record does not say it is partial: $(grep -F partial "$work/s.md")"
"$gpumeter" compare "$(ls "$work"/k/gpumeter-*.json | head -n1)" "$journal" >"$work/s.cmp" 2>&1
grep -qF "the new record is partial" "$work/s.cmp" || fail "sigkill: compare does not flag the journal as partial: $(cat "$work/s.cmp")"
[[ -z $(leftovers "$work/s") ]] || fail "sigkill: files left behind: $(leftovers "$work/s" | tr '\n' ' ')"

# --- SIGINT of a sweep in one process: what was finished is kept, and said -----------------------
"$bench" --filter "n=1000|what=hang" --out "$work/i" "${quick[@]}" >"$work/i.out" 2>"$work/i.err" &
pid=$!
pids+=($pid)
wait_for_partial "$work/i" || fail "sigint: no partial record after the first case"
kill -INT "$pid"
wait "$pid"
rc=$?
[[ $rc -eq 130 ]] || fail "sigint: exit code $rc, expected 130 (128 + SIGINT)"
partial=$(ls "$work"/i/*.partial.json 2>/dev/null | head -n1)
[[ $(wc -l <"$work/i.err") -eq 1 ]] || fail "sigint: not one line on stderr: $(cat "$work/i.err")"
grep -qF "interrupted by SIGINT: the record of the 1 of 2 cases finished before it is $partial (a partial record)" \
  "$work/i.err" || fail "sigint: the partial record is not named: $(cat "$work/i.err")"
"$gpumeter" report --wide "$partial" >"$work/i.md" 2>&1 || fail "sigint: the partial record does not read"
grep -qE '^\| sum +\| loop ' "$work/i.md" || fail "sigint: the finished case is not in the partial record"
grep -qF "partial record: interrupted by SIGINT after 1 of 2 cases, while measuring trouble (what=hang)" \
  "$work/i.md" || fail "sigint: the partial record does not say it was interrupted"
[[ -z $(leftovers "$work/i") ]] || fail "sigint: files left behind: $(leftovers "$work/i" | tr '\n' ' ')"

# --- SIGINT of an --isolate sweep: its case's process goes first ------------------------------
"$bench" --isolate --filter "n=1000|what=hang" --out "$work/j" "${quick[@]}" >"$work/j.out" 2>"$work/j.err" &
pid=$!
pids+=($pid)
wait_for_partial "$work/j" || fail "isolate sigint: no partial record after the first case"
child=$(child_of "$pid")
[[ -n $child ]] && pids+=($child)
kill -INT "$pid"
wait "$pid"
rc=$?
[[ $rc -eq 130 ]] || fail "isolate sigint: exit code $rc, expected 130"
[[ -n $child ]] && alive "$child" && fail "isolate sigint: the case's process still runs"
grep -qE "interrupted by SIGINT: the record of the 1 of 2 cases finished before it is .*\.partial\.json" \
  "$work/j.err" || fail "isolate sigint: $(cat "$work/j.err")"
[[ -z $(leftovers "$work/j") ]] || fail "isolate sigint: files left behind: $(leftovers "$work/j" | tr '\n' ' ')"

# --- SIGTERM before any case finished: a partial record with no row, said so ------------------
"$bench" --filter "what=hang" --out "$work/t" "${quick[@]}" >"$work/t.out" 2>"$work/t.err" &
pid=$!
pids+=($pid)
# Once the sweep holds its lock (the file names it), it is in its cases.
for _ in $(seq 200); do [[ "$(head -n1 "$GPU_LOCK" 2>/dev/null)" == "$pid" ]] && break; sleep 0.05; done
sleep 0.3
kill -TERM "$pid"
wait "$pid"
rc=$?
[[ $rc -eq 143 ]] || fail "sigterm: exit code $rc, expected 143 (128 + SIGTERM)"
grep -qF "interrupted by SIGTERM: the record of the 0 of 1 cases finished before it is" "$work/t.err" ||
  fail "sigterm: $(cat "$work/t.err")"
partial=$(ls "$work"/t/*.partial.json 2>/dev/null | head -n1)
"$gpumeter" report "$partial" >"$work/t.md" 2>&1 || fail "sigterm: the partial record does not read: $(cat "$work/t.md")"

# --- temporaries: removed when their writer is gone, kept while it holds them -----------------
mkdir -p "$work/tmp"
echo '{"half a rec' >"$work/tmp/.gpumeter-tmp-record-0123456789abcdef"
echo '{"being written' >"$work/tmp/.gpumeter-tmp-partial-fedcba9876543210"
flock "$work/tmp/.gpumeter-tmp-partial-fedcba9876543210" sleep 30 >/dev/null 2>&1 &
holder=$!
pids+=($holder)
for _ in $(seq 100); do pgrep -P "$holder" >/dev/null && break; sleep 0.05; done
pids+=($(pgrep -P "$holder"))  # the sleep that holds the lock, ended with the test
"$bench" --filter "n=1000" --out "$work/tmp" "${quick[@]}" >"$work/tmp.out" 2>"$work/tmp.err" ||
  fail "temporaries: the run failed: $(cat "$work/tmp.err")"
[[ -e "$work/tmp/.gpumeter-tmp-record-0123456789abcdef" ]] &&
  fail "temporaries: a dead writer's temporary file survived the next run"
[[ -e "$work/tmp/.gpumeter-tmp-partial-fedcba9876543210" ]] ||
  fail "temporaries: a temporary file still being written was removed"

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all sweep signal checks passed"
