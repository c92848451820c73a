#!/usr/bin/env bash
# `gpumeter lock` (P1) without a GPU: the lock file in a temporary folder (GPU_LOCK) and the
# idle check against the fake NVML (tests/unit/fake_nvml.cpp), whose compute processes and free
# memory each step sets. Two holders serialize, a holder killed with SIGKILL releases the lock,
# a waiter that times out names the holder, a busy device is refused naming what keeps it busy
# (or used when allowed, saying so), and the command's exit code comes back. Orderings are
# checked with whole-second margins, never CPU timing ratios.
#   test_lock.sh GPUMETER FAKE_NVML
set -u
gpumeter=$1
fake_nvml=$2
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
export GPU_LOCK="$work/gpu.lock"
fake_idle_device "$fake_nvml"
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# Waits (up to 10 s) until the lock file names pid $1.
wait_holder() {
  for _ in $(seq 200); do
    [[ "$(head -n1 "$GPU_LOCK" 2>/dev/null)" == "$1" ]] && break
    sleep 0.05
  done
  [[ "$(head -n1 "$GPU_LOCK" 2>/dev/null)" == "$1" ]] || { fail "pid $1 never held the lock"; return 1; }
  # The holder names itself before it starts its command: wait for the command too.
  for _ in $(seq 200); do
    pgrep -P "$1" >/dev/null && return 0
    sleep 0.05
  done
  fail "pid $1 never started its command"
  return 1
}
one_line() {  # name expected-words...
  local name=$1
  shift
  [[ $(wc -l <"$work/$name.err") -eq 1 ]] || fail "$name: not one line on stderr: $(cat "$work/$name.err")"
  for w in "$@"; do
    grep -qF -- "$w" "$work/$name.err" || fail "$name: does not say '$w': $(cat "$work/$name.err")"
  done
}

# --- two holders started together: the second starts after the first ends ------------------
for k in a b; do
  "$gpumeter" lock -- sh -c "date +%s%N >'$work/$k'; sleep 1; date +%s%N >>'$work/$k'" &
  pids+=($!)
done
wait "${pids[@]}"
pids=()
read -r -d '' a_start a_end <"$work/a"
read -r -d '' b_start b_end <"$work/b"
if [[ -z "${a_end:-}" || -z "${b_end:-}" ]]; then
  fail "serialize: a holder did not run: a='$(cat "$work/a")' b='$(cat "$work/b")'"
elif ! ((b_start >= a_end || a_start >= b_end)); then
  fail "serialize: the holders overlapped: a $a_start..$a_end, b $b_start..$b_end"
fi

# --- a holder killed with SIGKILL releases the lock: the next one gets it at once ------------
"$gpumeter" lock -- sh -c "echo \$\$ >'$work/child.pid'; exec sleep 30" &
holder=$!
pids+=($holder)
wait_holder "$holder"
for _ in $(seq 100); do [[ -s "$work/child.pid" ]] && break; sleep 0.05; done
pids+=("$(cat "$work/child.pid")")  # the command outlives its lock holder; killed at the end
{ kill -KILL "$holder"; wait "$holder"; } 2>/dev/null
start=$(now_ms)
run after_kill lock --timeout 20 -- true
[[ $rc -eq 0 ]] || fail "after_kill: exit code $rc: $(cat "$work/after_kill.err")"
(($(now_ms) - start < 10000)) || fail "after_kill: took $(($(now_ms) - start)) ms: the dead holder blocked"

# --- a waiter that times out names the holder's pid and command -----------------------------
"$gpumeter" lock -- sleep 20 &
holder=$!
pids+=($holder)
wait_holder "$holder"
pids+=($(pgrep -P "$holder"))  # its sleep, which outlives it below
run timeout lock --timeout 1 -- touch "$work/timeout-ran"
[[ $rc -eq 4 ]] || fail "timeout: exit code $rc, expected 4"
one_line timeout "is locked by another run" "held by pid $holder (" "lock -- sleep 20)" "gave up after"
[[ -e "$work/timeout-ran" ]] && fail "timeout: the command ran without the lock"
{ kill -KILL "$holder"; wait "$holder"; } 2>/dev/null
# Nested under the holder's command, gpumeter lock finds the lock held for it.
run nested lock -- "$gpumeter" lock --timeout 0 -- sh -c 'echo "held: $GPUMETER_LOCK_HELD"'
[[ $rc -eq 0 ]] || fail "nested: exit code $rc: $(cat "$work/nested.err")"
grep -qE "^held: [0-9]+:$GPU_LOCK\$" "$work/nested.out" || fail "nested: $(cat "$work/nested.out")"

# SIGTERM to the holder ends its command first, then the holder, with the command's status.
"$gpumeter" lock -- sleep 20 &
holder=$!
pids+=($holder)
wait_holder "$holder"
command_pid=$(pgrep -P "$holder")
[[ -n "$command_pid" ]] || fail "sigterm: the holder's command is not running"
pids+=($command_pid)
kill -TERM "$holder"
wait "$holder"
rc=$?
[[ $rc -eq 143 ]] || fail "sigterm: exit code $rc, expected 143 (the command ended by SIGTERM)"
kill -0 "$command_pid" 2>/dev/null && fail "sigterm: the command outlived its holder"

# --- the idle check (fake NVML): other processes refuse, naming them ------------------------
sleep 30 &
other=$!
pids+=($other)
sleep 0.2  # its command line, as /proc shows it
export GPUMETER_FAKE_NVML_PROCESSES="$other:1073741824"
run busy lock --idle-timeout 0.5 -- touch "$work/busy-ran"
[[ $rc -eq 4 ]] || fail "busy: exit code $rc, expected 4"
one_line busy "device cuda:0 is in use" "pid $other (sleep 30, 1.00 GiB)" "--allow-contended"
[[ -e "$work/busy-ran" ]] && fail "busy: the command ran on a busy device"
[[ -s "$GPU_LOCK" ]] && fail "busy: the lock was taken: $(cat "$GPU_LOCK")"

run allowed lock --allow-contended -- sh -c "touch '$work/allowed-ran'; echo \"\$GPUMETER_LOCK_NOTE\""
[[ $rc -eq 0 ]] || fail "allowed: exit code $rc: $(cat "$work/allowed.err")"
[[ -e "$work/allowed-ran" ]] || fail "allowed: the command did not run"
one_line allowed "going ahead on a busy device" "pid $other (sleep 30"
grep -q "^contended: .*pid $other (sleep 30" "$work/allowed.out" ||
  fail "allowed: the command was not told: $(cat "$work/allowed.out")"

# This script's own context (an ancestor of the command's gpumeter programs): not contention,
# but the command is told, for its records.
export GPUMETER_FAKE_NVML_PROCESSES="$$:1000"
run ancestor lock --idle-timeout 0 -- sh -c 'echo "$GPUMETER_LOCK_NOTE"'
[[ $rc -eq 0 ]] || fail "ancestor: exit code $rc: $(cat "$work/ancestor.err")"
grep -q "^device lock: processes this run descends from .*: pid $$ (" "$work/ancestor.out" ||
  fail "ancestor: the command was not told: $(cat "$work/ancestor.out")"

# Low free memory, no other process: refused, naming the memory and the floor.
export GPUMETER_FAKE_NVML_PROCESSES=""
export GPUMETER_FAKE_NVML_FREE_BYTES=1000000000
run low_memory lock --idle-timeout 0 -- true
[[ $rc -eq 4 ]] || fail "low_memory: exit code $rc, expected 4"
one_line low_memory "free memory 0.93 GiB" "below the 2.00 GiB floor"
unset GPUMETER_FAKE_NVML_FREE_BYTES

# --- the command's exit code comes back; usage errors are one line and exit 2 ---------------
run code lock -- sh -c 'exit 7'
[[ $rc -eq 7 ]] || fail "code: exit code $rc, expected 7"
run signal lock -- sh -c 'kill -TERM $$'
[[ $rc -eq 143 ]] || fail "signal: exit code $rc, expected 143 (128 + SIGTERM)"
run not_found lock -- /nonexistent/command
[[ $rc -eq 127 ]] || fail "not_found: exit code $rc, expected 127"
one_line not_found "/nonexistent/command"
run no_command lock
[[ $rc -eq 2 ]] || fail "no_command: exit code $rc, expected 2"
grep -qF "COMMAND is required" "$work/no_command.err" && grep -qF -- "--help" "$work/no_command.err" ||
  fail "no_command: $(cat "$work/no_command.err")"
run bad_timeout lock --timeout soon -- true
[[ $rc -eq 2 ]] || fail "bad_timeout: exit code $rc, expected 2"
grep -qF "gpumeter lock: --timeout must be a duration >= 0 s (10s, 500ms or bare seconds), got 'soon'" "$work/bad_timeout.err" ||
  fail "bad_timeout: $(cat "$work/bad_timeout.err")"

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "gpumeter lock: all checks passed"
