#!/usr/bin/env bash
# --devices (B10) on the CPU: a sweep spread over the devices of one host, one process and one
# device lock per device, the cases dealt as for --shard, the parts merged into one record in
# which every row names its board. Stand-in device ids (GPUMETER_STAND_IN_DEVICES: the host CPU
# under the host clock, each with a uuid and a lock of its own) take the GPUs' place. Checked: the
# same rows as the whole sweep in its order, each row's board, comparisons only within a board,
# a repeated or missing id refused, a device whose lock is held or whose process dies losing only
# its own cases, and --devices in a scheduler's array task. It asserts the plumbing, never a
# timing ratio.
#   test_devices_cli.sh BENCHMARK_PROGRAM GPUMETER FAKE_NVML
set -u
bench=$1
gpumeter=$2
fake_nvml=$3
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
# Each device its own lock: /tmp/gpumeter-gpu-stand-in-K.lock (GPU_LOCK would be one for all).
unset GPU_LOCK
fake_idle_device "$fake_nvml"
export GPUMETER_STAND_IN_DEVICES=3
no_scheduler_index
run() { run_program "$bench" "$@"; }     # NAME ARGS...: the program
g() { run_program "$gpumeter" "$@"; }    # NAME ARGS...: gpumeter
expect_usage() {  # NAME WORDS: exit 2, the words said, nothing on stdout
  [[ $rc -eq 2 ]] || fail "$1: exit code $rc, expected 2: $(cat "$work/$1.err")"
  [[ -s "$work/$1.out" ]] && fail "$1: wrote to stdout"
  grep -qF -- "$2" "$work/$1.err" || fail "$1: does not say '$2': $(cat "$work/$1.err")"
}
# The rows of a record in its order: case, implementation, params (CSV's first columns).
rows() {
  "$gpumeter" report --csv "$1" | tail -n +2 | cut -d, -f1-4
}
# Each row's board uuid, in the record's order.
boards() {
  python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(r["board"]["uuid"])' "$1"
}
quick=(--budget 1,2 --timing host --lock-timeout 5)
sweep=(--filter '^sum' --axis n=1:9 "${quick[@]}")  # 9 cases of 2 implementations each

# --- the whole sweep, then the same sweep over 3 devices ------------------------------------------
run whole "${sweep[@]}" --device 0 --quiet --out "$work/whole"
[[ $rc -eq 0 ]] || fail "whole: exit code $rc: $(cat "$work/whole.err")"
run devices "${sweep[@]}" --devices all --out "$work/dev"
[[ $rc -eq 0 ]] || fail "devices: exit code $rc: $(cat "$work/devices.err")"
for k in 0 1 2; do
  grep -qF "device $k (stand-in-$k): shard $k of 3, 3 of the sweep's 9 cases" "$work/devices.err" ||
    fail "devices: does not say what device $k measures: $(cat "$work/devices.err")"
done
merged=$(ls "$work"/dev/gpumeter-*.json 2>/dev/null | head -n1)
[[ -n $merged ]] || fail "devices: no merged record in --out"
[[ $(ls -d "$work"/dev/gpumeter-*.devices/device-* 2>/dev/null | wc -l) -eq 3 ]] ||
  fail "devices: not one folder of parts per device: $(ls -R "$work/dev")"
rows "$work"/whole/gpumeter-*.json >"$work/whole.rows"
rows "$merged" >"$work/merged.rows"
[[ $(wc -l <"$work/whole.rows") -eq 18 ]] || fail "whole: not 18 rows"
diff "$work/whole.rows" "$work/merged.rows" >/dev/null ||
  fail "devices: not the whole sweep's rows in its order: $(diff "$work/whole.rows" "$work/merged.rows")"
# Case i (n=i+1) ran on device i mod 3, and its two rows name that board.
boards "$merged" >"$work/merged.boards"
expected=""
for i in $(seq 0 8); do expected+="stand-in-$((i % 3))"$'\n'"stand-in-$((i % 3))"$'\n'; done
[[ $(cat "$work/merged.boards")$'\n' == "$expected" ]] ||
  fail "devices: the rows do not name their boards: $(tr '\n' ' ' <"$work/merged.boards")"
# Each device's part is a shard of one sweep, said so; the merge is a whole sweep on 3 boards.
grep -qF '"origin": "device 1 of the 3 of --devices"' "$work"/dev/gpumeter-*.devices/device-1/*.json ||
  fail "devices: device 1's record does not say its shard's origin"
g report report "$merged"
grep -qF "boards: the rows ran on 3 (rows of two boards are never compared)" "$work/report.out" ||
  fail "devices: the report does not list the 3 boards"
grep -qF "the 3 shards of one sweep of 9 cases, every shard merged" "$work/report.out" ||
  fail "devices: the record does not say its shards merged"
grep -qF "device 1 is a stand-in" "$work/report.out" || fail "devices: the stand-in is not said"
grep -qF "the rows ran on two boards (" "$work/report.out" &&
  fail "devices: a case's rows were split over two boards"
grep -qF '"shard":' "$merged" && fail "devices: the merged record still has a shard section"

# --- compare: rows of one board compared, rows of another refused with the reason ---------------
g cross compare "$work"/whole/gpumeter-*.json "$merged"
[[ $rc -eq 2 ]] || fail "cross: exit code $rc, expected 2: $(cat "$work/cross.err")"
grep -qF "the rows ran on two boards (host CPU stand-in-0 and host CPU stand-in-1)" "$work/cross.out" ||
  fail "cross: the refusal does not name the two boards: $(cat "$work/cross.out")"
grep -qE '^\| sum +\| loop +\| kind=plain, n=1 .*\| not compared' "$work/cross.out" &&
  fail "cross: a row of one board (device 0) was not compared"
grep -qE '^\| sum +\| loop +\| kind=plain, n=2 .*\| not compared' "$work/cross.out" ||
  fail "cross: a row of device 1 was compared with device 0's"

# --- refusals: one line, exit 2, nothing started -------------------------------------------------
run twice "${sweep[@]}" --devices 0,1,0 --out "$work/bad"
expect_usage twice "--devices: device 0 is given twice"
run missing "${sweep[@]}" --devices 0,7 --out "$work/bad"
expect_usage missing "--devices: device 7 is not here: this host has 3 (0, 1, 2)"
run empty "${sweep[@]}" --devices '' --out "$work/bad"
expect_usage empty "--devices: is empty"
# '--devices=' with nothing after it: refused by name, not read as --devices --quiet.
run empty_equals "${sweep[@]}" --devices= --quiet --out "$work/bad"
expect_usage empty_equals "--devices: is empty (given as '--devices='"
grep -qF -- "--quiet" "$work/empty_equals.err" && fail "empty_equals: took the next argument"
run both "${sweep[@]}" --devices all --device 1 --out "$work/bad"
[[ $rc -eq 2 ]] || fail "both: --device with --devices: exit code $rc, expected 2"
GPU_LOCK="$work/one.lock" run one_lock "${sweep[@]}" --devices all --out "$work/bad"
expect_usage one_lock "names one lock file for every device"
run not_host --filter '^sum' --axis n=1:9 --budget 1,2 --devices all --out "$work/bad"
[[ $rc -eq 2 || $rc -eq 5 ]] || fail "not_host: stand-ins outside the host clock: exit code $rc"
grep -qF "GPUMETER_STAND_IN_DEVICES" "$work/not_host.err" || [[ $rc -eq 5 ]] ||
  fail "not_host: does not name the stand-ins: $(cat "$work/not_host.err")"
[[ -e "$work/bad" ]] && fail "a refused --devices wrote files: $(ls -R "$work/bad")"

# --- --list: each case with the device that would measure it ------------------------------------
run list "${sweep[@]}" --devices 2,0 --list
[[ $(head -n 2 "$work/list.out" | tr '\t\n' '|;') == "0|sum (kind=plain, n=1)|device 2;1|sum (kind=plain, n=2)|device 0;" ]] ||
  fail "list: not each case with its device: $(cat "$work/list.out")"

# --- more devices than cases: the empty one is not started ---------------------------------------
run few --filter '^sum' --axis n=1:2 "${quick[@]}" --devices all --out "$work/few"
[[ $rc -eq 0 ]] || fail "few: exit code $rc: $(cat "$work/few.err")"
grep -qF "device 2 (stand-in-2): shard 2 of 3 holds none of the 2 cases (more devices than cases): not started" \
  "$work/few.err" || fail "few: does not say device 2 holds no case: $(cat "$work/few.err")"
# In an array task the dealing is over every task's devices: an empty one is of more shards (2
# tasks of 3 devices) than cases, and says so, not more devices.
run few_task --filter '^sum' --axis n=1:2 "${quick[@]}" --shard 1/2 --devices all --out "$work/few_task"
[[ $rc -eq 0 ]] || fail "few_task: exit code $rc: $(cat "$work/few_task.err")"
grep -qF "device 0 (stand-in-0): shard 3 of 6 holds none of the 2 cases (more shards than cases: 2 tasks of 3 devices each make 6 shards): not started" \
  "$work/few_task.err" || fail "few_task: does not say shard 3 of 6 holds no case: $(cat "$work/few_task.err")"
grep -qF "more devices than cases" "$work/few_task.err" && fail "few_task: says more devices than cases"

# --- in a Slurm array task: each task's devices measure their own shards of the whole sweep -----
for task in 0 1; do
  SLURM_ARRAY_TASK_ID=$task SLURM_ARRAY_TASK_COUNT=2 run "task$task" "${sweep[@]}" --devices 0,1 \
    --out "$work/array"
  [[ $rc -eq 0 ]] || fail "task $task: exit code $rc: $(cat "$work/task$task.err")"
done
grep -qF "device 1 (stand-in-1): shard 3 of 4" "$work/task1.err" ||
  fail "task 1: device 1 does not measure shard 3 of 4: $(cat "$work/task1.err")"
[[ $(ls "$work"/array/gpumeter-*.json | wc -l) -eq 4 ]] ||
  fail "array: not the 4 shards of 2 tasks of 2 devices: $(ls "$work/array")"
grep -qF 'in shard 1 of 2 (SLURM_ARRAY_TASK_ID=1' "$work"/array/*.json ||
  fail "array: no shard says the task it was dealt in"
g array_merge merge "$work"/array/gpumeter-*.json -o "$work/array.json"
[[ $rc -eq 0 ]] || fail "array_merge: exit code $rc: $(cat "$work/array_merge.err")"
diff "$work/whole.rows" <(rows "$work/array.json") >/dev/null ||
  fail "array: the merge of every task's shards is not the whole sweep"

# --- a device whose lock is held: it measures nothing, and only its cases are lost --------------
# The holder is the sleep itself (flock's lock is on its descriptor 9): killed, it lets go.
(
  exec 9>>/tmp/gpumeter-gpu-stand-in-1.lock
  flock 9
  exec sleep 60
) &
holder=$!
pids+=($holder)
sleep 0.3
run held --filter '^sum' --axis n=1:9 --budget 1,2 --timing host --lock-timeout 1 --devices all \
  --out "$work/held"
kill -KILL "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
[[ $rc -eq 4 ]] || fail "held: exit code $rc, expected 4 (device 1's): $(cat "$work/held.err")"
grep -qF "device 1 (stand-in-1): its process exited with code 4" "$work/held.err" ||
  fail "held: does not name device 1's process: $(cat "$work/held.err")"
held=$(ls "$work"/held/gpumeter-*.json 2>/dev/null | head -n1)
[[ -n $held ]] || fail "held: no merged record of the other devices"
if [[ -n $held ]]; then
  [[ $(rows "$held" | grep -vc "every implementation") -eq 12 ]] ||
    fail "held: not the 12 rows of devices 0 and 2"
  g held_report report --wide "$held"
  [[ $(grep -c "ShardMissing" "$work/held_report.out") -ge 3 ]] ||
    fail "held: device 1's 3 cases are not failures named ShardMissing"
fi

# --- a device whose process dies: its finished cases stay, the rest are named ---------------------
# 4 cases on 2 devices: device 1 measures sum (n=4000), then crashes on trouble (what=crash).
run crash --filter 'n=1000|n=4000|what=fine|what=crash' "${quick[@]}" --devices 0,1 --out "$work/crash"
[[ $rc -eq 1 ]] || fail "crash: exit code $rc, expected 1: $(cat "$work/crash.err")"
grep -qF "device 1 (stand-in-1): its process was killed by signal" "$work/crash.err" ||
  fail "crash: does not say device 1's process was killed: $(cat "$work/crash.err")"
crashed=$(ls "$work"/crash/gpumeter-*.json 2>/dev/null | head -n1)
if [[ -n $crashed ]]; then
  g crash_report report --wide "$crashed"
  grep -qF "ShardIncomplete" "$work/crash_report.out" || fail "crash: the lost case is not named"
  grep -qE '^\| sum +\| loop +\| kind=plain, n=4000' "$work/crash_report.out" ||
    fail "crash: device 1's finished case is lost"
else
  fail "crash: no merged record"
fi

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "devices: every check passed"
