#!/usr/bin/env bash
# Every numeric option of gpumeter's programs, given a wrong value: one line that names the
# option, its rule and the value ("--timeout must be > 0 s, got 0"), a pointer to --help, exit 2,
# nothing on stdout, and never the bounds of a double (a 309-digit number).
#   option_values.sh GPUMETER BENCHMARK_PROGRAM GPUMETER_EXAMPLE
set -u
gpumeter=$1
bench=$2
example=$3
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
# expect LINE -- COMMAND...: the command's first line on stderr is LINE.
expect() {
  local line=$1
  shift 2
  # Bounded: a program that accepted the value would go on to measure.
  (cd "$work" && timeout 20 "$@") >"$work/out" 2>"$work/err"
  local rc=$?
  local what="$*"
  [[ $rc -eq 2 ]] || fail "$what: exit code $rc, expected 2"
  [[ -s "$work/out" ]] && fail "$what: wrote to stdout: $(head -c 300 "$work/out")"
  [[ "$(head -n1 "$work/err")" == "$line" ]] ||
    fail "$what: said '$(head -n1 "$work/err")', expected '$line'"
  [[ $(wc -l <"$work/err") -le 2 ]] || fail "$what: more than two lines: $(cat "$work/err")"
  grep -qE '[0-9]{100}' "$work/err" && fail "$what: a number of 100 digits or more: $(cat "$work/err")"
  grep -qF -- "--help" "$work/err" || fail "$what: no pointer to --help"
  [[ -e "$work/gpumeter-results" ]] && fail "$what: made a record folder"
}
b=$(basename "$bench")

# A benchmark program (every one shares this command line).
expect "$b: --timeout must be > 0 s, got 0" -- "$bench" --isolate --timeout 0
expect "$b: --timeout must be > 0 s, got -1" -- "$bench" --isolate --timeout -1
expect "$b: --timeout must be a duration > 0 s (10s, 500ms or bare seconds), got 'soon'" -- \
  "$bench" --isolate --timeout soon
expect "$b: --timeout must be > 0 s, got 0ms" -- "$bench" --isolate --timeout 0ms
expect "$b: --timeout must be at most 10000000 s, got 1e99" -- "$bench" --isolate --timeout 1e99
expect "$b: --lock-timeout must be >= 0 s, got -3" -- "$bench" --lock-timeout -3
expect "$b: --lock-timeout must be a duration >= 0 s (10s, 500ms or bare seconds), got 'inf'" -- \
  "$bench" --lock-timeout inf
expect "$b: --device must be >= 0, got -1" -- "$bench" --device -1
expect "$b: --device must be an integer >= 0, got '1.5'" -- "$bench" --device 1.5
expect "$b: --device must be at most 2147483647, got 99999999999999999999" -- \
  "$bench" --device 99999999999999999999
expect "$b: --budget's warm-up must be > 0 ms, got 0" -- "$bench" --budget 0,100
expect "$b: --budget's measurement must be a number > 0 ms, got 'x'" -- "$bench" --budget 25,x
expect "$b: --budget must be WARMUP_MS,MEASURE_MS (e.g. 25,100), got '5'" -- "$bench" --budget 5
# A fraction is 2% or 0.02 and a duration 10s, 500ms or bare seconds, in every program (issue 53).
expect "$b: --precision must be a fraction, written 2% or 0.02, got 2" -- "$bench" --precision 2
expect "$b: --precision must be a fraction from 0.1% to 50% (0.001 to 0.5), got 0.0001" -- \
  "$bench" --precision 0.0001
expect "$b: --max-time must be >= 0.1 s, got 50ms" -- "$bench" --precision 1% --max-time 50ms
expect "$b: --max-time must be a duration >= 0.1 s (10s, 500ms or bare seconds), got '2h'" -- \
  "$bench" --precision 1% --max-time 2h

# The gpumeter command.
expect "gpumeter compare: --fail-on-regression must be a fraction from 0% to 10000% (0 to 100), got -5%" -- \
  "$gpumeter" compare base.json new.json --fail-on-regression -5%
expect "gpumeter compare: --fail-on-regression must be a fraction from 0% to 10000% (0 to 100), written 1% or 0.01, got 'nan'" -- \
  "$gpumeter" compare base.json new.json --fail-on-regression nan
# A bare percent is refused with both spellings, as --precision's is.
expect "gpumeter compare: --fail-on-regression must be a fraction, written 10% or 0.1, got 10" -- \
  "$gpumeter" compare base.json new.json --fail-on-regression 10
expect "gpumeter env: --device must be >= 0, got -1" -- "$gpumeter" env --device -1
expect "gpumeter lock: --device must be >= 0, got -1" -- "$gpumeter" lock --device -1 -- true
expect "gpumeter lock: --timeout must be >= 0 s, got -1" -- "$gpumeter" lock --timeout -1 -- true
expect "gpumeter lock: --idle-timeout must be a duration >= 0 s (10s, 500ms or bare seconds), got 'x'" -- \
  "$gpumeter" lock --idle-timeout x -- true

# The main job.
expect "gpumeter-example: --device must be >= 0, got -1" -- "$example" --device -1
expect "gpumeter-example: --timing: cuda not in {auto,cupti,events,host,kernel-records,device-events,host-clock}" -- "$example" --timing cuda

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "every numeric option refuses a wrong value in one line"
