#!/usr/bin/env bash
# `gpumeter run` without a GPU: a program with NVTX ranges and no CUDA (nvtx_program.cpp) runs
# with the collector injected through NVTX alone. Its ranges (nested, ended on another thread, in
# a domain, in a forked child) reach the record with their instance counts and no device work;
# --repeat puts several runs in one record; every refusal names its cause with its exit code: a
# part missing (a child that recorded and left through _exit), a range left open, a pop with no
# push, a program without ranges, another tool already injected; bad arguments exit 2 before the
# program runs.
#   test_run.sh GPUMETER NVTX_PROGRAM COLLECTOR
set -u
gpumeter=$1
program=$2
export GPUMETER_COLLECTOR=$3
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # run() is redefined below
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH GPUMETER_RUN_PARTS

# Runs `gpumeter run` into $work/$1 with the rest as its arguments; sets rc, out, err.
run() {
  local name=$1
  shift
  out=$("$gpumeter" run --out "$work/$name" --child-wait 2 "$@" 2>"$work/$name.err")
  rc=$?
  err=$(cat "$work/$name.err")
}
expect() {  # name, wanted rc, text the error must hold
  [[ $rc == "$2" ]] || fail "$1: exit $rc, wanted $2 (stderr: $err)"
  [[ $err == *"$3"* ]] || fail "$1: stderr lacks '$3': $err"
}
# The record of run $1, checked by the Python expression $2 (r: the record).
check_record() {
  local file
  file=$(ls "$work/$1"/*.json 2>/dev/null | head -n1)
  [[ -n $file ]] || { fail "$1: no record written"; return; }
  python3 - "$file" "$2" <<'PY' || fail "$1: record check failed: $2"
import json, sys
r = json.load(open(sys.argv[1], encoding="utf-8"))
ok = eval(sys.argv[2])
if not ok:
    print(json.dumps(r.get("program"), indent=1), file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}

run nest -- "$program" nest
[[ $rc == 0 ]] || fail "nest: exit $rc: $err"
ranges='{(g["domain"], g["name"]): (g["instances"], g["with_device_work"]) for g in r["program"]["ranges"]}'
check_record nest "$ranges == {('', 'outer'): (3, 0), ('', 'inner'): (3, 0), ('', 'across_threads'): (1, 0), ('gpumeter_test', 'in_domain'): (1, 0)}"
check_record nest 'r["results"] == [] and r["config"]["l2_flush"] is False and r["program"]["processes"][0]["origin"] == "command"'
check_record nest 'any("not of an isolated call" in d for d in r["deviations"])'
[[ $out == *"outer"* ]] || fail "nest: the report does not name the range 'outer': $out"
"$gpumeter" report "$work"/nest/*.json >/dev/null 2>&1 || fail "nest: gpumeter report cannot read the record"

# --csv and --wide, as the report's own line suggests: CSV rows alone on stdout (the record's path
# on stderr), every column in markdown; not both.
run csv --csv -- "$program" nest
[[ $rc == 0 ]] || fail "csv: exit $rc: $err"
[[ $(head -n1 <<<"$out") == case,implementation,params,* ]] || fail "csv: stdout is not the CSV table: $out"
[[ $out != *"record: "* && $err == *"record: $work/csv/"* ]] || fail "csv: the record's path belongs on stderr: $out / $err"
run wide --wide -- "$program" nest
[[ $rc == 0 && $out == *"record: $work/wide/"* ]] || fail "wide: exit $rc: $err"
[[ $out != *"With --wide"* && $out == *"n_kernels (max)"* ]] || fail "wide: the table is not the wide one: $out"
run both --csv --wide -- "$program" nest
[[ $rc == 2 ]] || fail "both: --csv with --wide exit $rc, wanted 2"

# --repeat: the command runs that many times into one record, each run's processes named by run.
run repeat --repeat 3 -- "$program" nest
[[ $rc == 0 ]] || fail "repeat: exit $rc: $err"
check_record repeat "r['program']['runs'] == 3 and $ranges == {('', 'outer'): (9, 0), ('', 'inner'): (9, 0), ('', 'across_threads'): (3, 0), ('gpumeter_test', 'in_domain'): (3, 0)}"
check_record repeat "sorted(p['run'] for p in r['program']['processes']) == [1, 2, 3] and r['argv'] == ['gpumeter', 'run', '--label', 'program', '--engine-threads', 'adopt', '--device', '0', '--repeat', '3', '--', '$program', 'nest']"
[[ $out == *"run 3 times"* ]] || fail "repeat: the report does not say the command ran 3 times: $out"
ls -d "$work"/repeat/parts-* >/dev/null 2>&1 && fail "repeat: parts left behind without --keep-parts"
run repeat_zero --repeat 0 -- "$program" nest
expect repeat-zero 2 "--repeat"
run repeat_fail --repeat 2 -- "$program" fork-_exit
expect repeat-fail 1 "(run 1 of 2)"

# Filters: a name regex and a domain.
run filtered --range '^in' -- "$program" nest
check_record filtered "sorted(g['name'] for g in r['program']['ranges']) == ['in_domain', 'inner']"
run domain --domain gpumeter_test -- "$program" nest
check_record domain "[g['name'] for g in r['program']['ranges']] == ['in_domain']"

# A forked child that exits normally writes its own part; the parent merges it.
run fork_exit -- "$program" fork-exit
[[ $rc == 0 ]] || fail "fork-exit: exit $rc: $err"
check_record fork_exit "sorted(g['name'] for g in r['program']['ranges']) == ['child', 'parent'] and sorted(p['origin'] for p in r['program']['processes']) == ['command', 'fork']"
# A child that recorded and left through _exit wrote no part: the run fails naming it.
run fork_quick -- "$program" fork-_exit
expect fork-_exit 1 "PartsMissing"
[[ $err == *"_exit"* ]] || fail "fork-_exit: the message does not say how a part goes missing: $err"
# A child that recorded nothing owes nothing.
run fork_quiet -- "$program" fork-quiet
[[ $rc == 0 ]] || fail "fork-quiet: exit $rc: $err"

run open -- "$program" open
expect open 1 "RangeLeftOpen"
[[ $err == *"never_closed"* ]] || fail "open: the range is not named: $err"
run unbalanced -- "$program" unbalanced
expect unbalanced 1 "RangeNotOpen"
# Without a usable GPU, a run that recorded nothing says there is no GPU first: exit 5, as every
# gpumeter program; with one, it is a program without ranges (exit 2).
if "$gpumeter" env --json | grep -q '"device": null'; then
  no_gpu=1
else
  no_gpu=0
fi
run none -- "$program" none
if ((no_gpu)); then
  expect none 5 "NoRangesFound"
  [[ $err == *"no usable CUDA device"* ]] || fail "none: does not say there is no GPU: $err"
  run true_command -- true
  expect true-command 5 "no usable CUDA device"
  [[ $(wc -l <"$work/true_command.err") -eq 1 ]] || fail "true-command: not one line: $err"
else
  expect none 2 "NoRangesFound"
fi
# Another CUPTI client in the program (a profiler) is named and the run refused.
run cupti_client -- "$program" cupti-client
expect cupti-client 1 "CuptiUnavailable"
[[ $err == *"another CUPTI client"*"gpumeter_nvtx_program (cuptiSubscribe)"* ]] ||
  fail "cupti-client: the client is not named: $err"

# Refused before the program runs: another injected tool, a bad regex, a bad engine mode.
CUDA_INJECTION64_PATH=/opt/other/libinject.so run injected -- "$program" nest
expect injected 2 "CUDA_INJECTION64_PATH=/opt/other/libinject.so"
run regex --range '(' -- "$program" nest
expect regex 2 "not a valid regular expression"
run engine --engine-threads maybe -- "$program" nest
expect engine 2 "--engine-threads"
run missing -- "$work/no-such-program"
expect missing 127 "cannot run"
run failing -- false
expect failing 1 "exited with code 1"
# A command's own code is said to be the command's (3 is also gpumeter's internal error), with
# what it means for the ranges; a failed run leaves no folder it made.
run exit3 -- sh -c 'exit 3'
expect exit3 3 "exited with code 3 (gpumeter run exits with the command's code)"
[[ $err == *"ranges would be cut short"* ]] || fail "exit3: does not say what it means for the ranges: $err"
[[ -e "$work/exit3" ]] && fail "exit3: left $(find "$work/exit3")"
[[ -e "$work/failing" ]] && fail "failing: left $(find "$work/failing")"
[[ -e "$work/missing" ]] && fail "missing: left $(find "$work/missing")"
"$gpumeter" run --out "$work/nonexistent/a/b" -- sh -c 'exit 3' 2>/dev/null
[[ -e "$work/nonexistent" ]] && fail "--out nonexistent/a/b: made $(find "$work/nonexistent")"
# An existing --out stays, without the parts folder of a failed run.
mkdir -p "$work/kept"
"$gpumeter" run --out "$work/kept" -- false 2>/dev/null
[[ -d "$work/kept" && -z $(ls -A "$work/kept") ]] || fail "--out kept: $(ls -A "$work/kept")"

if ((failures > 0)); then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "gpumeter run: all checks passed"
