#!/usr/bin/env bash
# One rule for "no usable GPU" (docs/cli.md, "No usable GPU"), every row of its table run on a
# machine without one: a tool asked for GPU timing (explicitly, or by default for GPU work) exits 5
# with one line naming the option that times host work; a tool whose own work is host work falls
# back and says so on its first line; `evaluate --help` needs no Python module.
#   no_gpu.sh EXAMPLE GPUMETER HOST_BENCHMARKS [GPU_PROGRAM]
# The Python rows (evaluate, measure) run with $GPUMETER_PYTHON (default python3) when it has
# gpumeter, and are skipped saying so otherwise ($GPUMETER_NO_GPU_PYTHON_REQUIRED=1: fail
# instead). Exit 77 (skipped, saying why) where a GPU is usable: the rows are of a machine without.
set -u
example=$1
gpumeter=$2
host_bench=$3
gpu_program=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
export GPU_LOCK="$work/gpu.lock"
run() {  # run NAME COMMAND...: stdout, stderr and the exit code of the command, in $work
  local name=$1
  shift
  (cd "$work" && "$@") >"$work/$name.out" 2>"$work/$name.err"
  rc=$?
}
one_line() {  # one_line NAME RC PATTERN: exit code RC, nothing on stdout, one stderr line
  local name=$1 want=$2 pattern=$3
  [[ $rc -eq $want ]] || fail "$name: exit code $rc, expected $want: $(cat "$work/$name.err")"
  [[ -s "$work/$name.out" ]] && fail "$name: printed $(head -n3 "$work/$name.out")"
  [[ $(wc -l <"$work/$name.err") -eq 1 ]] || fail "$name: not one line: $(cat "$work/$name.err")"
  grep -qE -- "$pattern" "$work/$name.err" || fail "$name: says $(cat "$work/$name.err")"
  echo "row $name: exit $rc: $(cut -c1-160 "$work/$name.err")"
}

hint_of() {  # hint_of NAME: the option a no-GPU line of NAME names ("--timing host"), as printed
  sed -nE 's/.*; (--[a-z-]+ [a-z]+) times host work on the host clock$/\1/p' "$work/$1.err" | head -n1
}
follow_hint() {  # follow_hint NAME COMMAND...: COMMAND with the hint NAME printed, as written:
  # the option's value replaced where COMMAND gives the option, else the option added
  local name=$1
  shift
  local hint option value
  hint=$(hint_of "$name")
  [[ -n $hint ]] || fail "$name: no hint to follow in $(cat "$work/$name.err")"
  option=${hint% *}
  value=${hint#* }
  local args=() replaced=0
  while [[ $# -gt 0 ]]; do
    if [[ $1 == "$option" && $# -gt 1 ]]; then
      args+=("$option" "$value")
      replaced=1
      shift 2
    else
      args+=("$1")
      shift
    fi
  done
  [[ $replaced -eq 1 ]] || args+=("$option" "$value")
  run "$name-hint" "${args[@]}"
  echo "row $name, its hint '$hint' as written: exit $rc: $(tail -n1 "$work/$name-hint.err" | cut -c1-160)"
}

if ! "$gpumeter" env --json | grep -q '"device": null'; then
  echo "SKIP: a CUDA GPU is usable here; the rows are of a machine without one"
  exit 77
fi

# The main job: its own work falls back to the host, and its first line says so.
run example "$example" --out "$work/records"
[[ $rc -eq 0 ]] || fail "example: exit code $rc: $(cat "$work/example.err")"
grep -qE "^No usable GPU: the same pipeline runs on the host backend" <(head -n1 "$work/example.out") ||
  fail "example: first line $(head -n1 "$work/example.out")"
echo "row example: exit $rc: $(head -n1 "$work/example.out")"

# Asked for the GPU: exit 5, one line naming the option that times host work.
run example-cuda "$example" --timing cupti --out "$work/records"
one_line example-cuda 5 "; nothing was measured; --timing host times host work on the host clock$"
# Issue 51: every hint a no-GPU line prints is run as written, and leads somewhere: a measurement,
# or one line and the exit code docs/cli.md states.
follow_hint example-cuda "$example" --timing cupti --out "$work/records"
[[ $rc -eq 0 ]] || fail "example --timing cupti, its hint: exit code $rc: $(cat "$work/example-cuda-hint.err")"

if [[ -n $gpu_program ]]; then
  run gpu-program "$gpu_program" --out "$work/records"
  one_line gpu-program 5 "^$(basename "$gpu_program"): .+; nothing was measured; --timing host times host work on the host clock$"
  # Its work is GPU work: the hint's host clock cannot run it, and the run says so (exit 5), not
  # "a case produced no number" alone (exit 1, a record of nothing).
  follow_hint gpu-program "$gpu_program" --out "$work/records"
  [[ $rc -eq 5 ]] || fail "gpu program, its hint: exit code $rc, expected 5: $(cat "$work/gpu-program-hint.err")"
  tail -n1 "$work/gpu-program-hint.err" | grep -qE "^$(basename "$gpu_program"): every case failed with a DeviceError \(.+\) and no GPU is usable here \(.+\): this program's work is GPU work, which the host clock cannot run; nothing was measured; run it where a CUDA GPU is usable$" ||
    fail "gpu program, its hint: last line $(tail -n1 "$work/gpu-program-hint.err")"
fi

# A program of host work built with the CUDA backend times with CUPTI by default: the same line;
# with --timing host it measures.
run host-bench "$host_bench" --filter sum --out "$work/records"
one_line host-bench 5 "; nothing was measured; --timing host times host work on the host clock$"
follow_hint host-bench "$host_bench" --filter sum --out "$work/records"
[[ $rc -eq 0 ]] || fail "host-bench, its hint: exit code $rc: $(cat "$work/host-bench-hint.err")"
# The whole program, as the hint reads without a filter: its demonstration case that aborts the
# process says so in one line naming the case and the journal, and dies of SIGABRT (134).
run host-bench-all "$host_bench" --out "$work/records-all"
follow_hint host-bench-all "$host_bench" --out "$work/records-all"
[[ $rc -eq 134 ]] || fail "host-bench --timing host, every case: exit code $rc, expected 134: $(cat "$work/host-bench-all-hint.err")"
grep -qE "the process crashed \(signal 6\) measuring case .+: the [0-9]+ case\(s\) finished before it are in the journal .+[.]partial[.]jsonl, which gpumeter report reads" \
  "$work/host-bench-all-hint.err" || fail "host-bench --timing host, every case: $(cat "$work/host-bench-all-hint.err")"
run host-bench-host "$host_bench" --filter 'sum' --axis n=1024 --timing host --budget 1,2 --quiet \
  --out "$work/records"
[[ $rc -eq 0 ]] || fail "host-bench --timing host: exit code $rc: $(cat "$work/host-bench-host.err")"
echo "row host-bench --timing host: exit $rc"

# gpumeter run times a program's CUDA work only: a command that recorded nothing, exit 5.
run run-true "$gpumeter" run --out "$work/runs" -- true
one_line run-true 5 "^gpumeter run: .+; the command recorded nothing to time, so no record is written \(gpumeter run times a program's CUDA work and has no host clock"

# gpumeter env describes the machine, GPU or not.
run env "$gpumeter" env
[[ $rc -eq 0 ]] || fail "env: exit code $rc"
grep -q "not available" "$work/env.out" || fail "env: $(cat "$work/env.out")"
echo "row env: exit $rc"

# gpumeter lock holds the lock for its command; without a device it says it could not check.
run lock "$gpumeter" lock --idle-timeout 0 -- true
[[ $rc -eq 0 ]] || fail "lock: exit code $rc: $(cat "$work/lock.err")"
echo "row lock: exit $rc: $(head -n1 "$work/lock.err" | cut -c1-160)"

# evaluate --help, without the Python module: the module's options, exit 0.
if command -v python3 >/dev/null; then
  printf '#!/bin/sh\nexec %s -I -S "$@"\n' "$(command -v python3)" >"$work/bare-python"
  chmod +x "$work/bare-python"
  GPUMETER_PYTHON="$work/bare-python" run evaluate-help "$gpumeter" evaluate --help
  [[ $rc -eq 0 ]] || fail "evaluate --help without the module: exit code $rc: $(cat "$work/evaluate-help.err")"
  for s in "--reference MODULE:FUNCTION" "--timing {auto,cupti,events,host,kernel-records,device-events,host-clock}" "Exit codes:" \
    "cannot import gpumeter: pip install '"; do
    # As one line, each run of spaces one: the note is wrapped at 100 columns, and a long
    # checkout path moves its breaks.
    tr -s '[:space:]' ' ' <"$work/evaluate-help.out" | grep -qF -- "$s" ||
      fail "evaluate --help without the module: no '$s'"
  done
  # A word longer than a line stays whole on a line of its own (the install hint's path, as long
  # as the checkout's): every line of more than one word fits.
  width=$(awk 'NF > 1 { if (length($0) > w) w = length($0) } END { print w + 0 }' \
    "$work/evaluate-help.out")
  [[ $width -le 100 ]] || fail "evaluate --help without the module: a line of $width columns"
  echo "row evaluate --help (no module): exit $rc, widest line $width"
fi
GPUMETER_PYTHON="$work/no-such-python" run evaluate-help-nopython "$gpumeter" evaluate --help
[[ $rc -eq 0 ]] && grep -qF -- "--reference" "$work/evaluate-help-nopython.out" ||
  fail "evaluate --help without Python: exit code $rc: $(cat "$work/evaluate-help-nopython.err")"
echo "row evaluate --help (no Python): exit $rc"

# The Python rows, with a Python that has gpumeter.
python=${GPUMETER_PYTHON:-python3}
if "$python" -c 'import gpumeter' 2>/dev/null; then
  tests_python=$(cd "$here/../python" && pwd)
  # evaluate, by default: the host clock, said on the first line; every candidate judged.
  PYTHONPATH="$tests_python" GPUMETER_PYTHON="$python" run evaluate "$gpumeter" evaluate \
    --reference exploits.problem:host_reference --inputs exploits.problem:host_inputs \
    --budget 1,4 --out "$work/eval" --jsonl "$work/eval.jsonl" honest=exploits.honest:host
  [[ $rc -eq 0 ]] || fail "evaluate: exit code $rc: $(cat "$work/evaluate.err")"
  grep -qE "^gpumeter evaluate: measured with the host clock, not the GPU's device time \(host backend instead of a GPU: .+\); --timing cupti requires a GPU, --timing host asks for the host clock$" \
    <(head -n1 "$work/evaluate.err") || fail "evaluate: first line $(head -n1 "$work/evaluate.err")"
  grep -q '"verdict": "\(faster\|slower\|no difference\)"' "$work/eval.jsonl" ||
    fail "evaluate: no verdict: $(cat "$work/eval.jsonl" 2>/dev/null)"
  echo "row evaluate: exit $rc: $(head -n1 "$work/evaluate.err" | cut -c1-160)"
  for timing in cupti events; do
    PYTHONPATH="$tests_python" GPUMETER_PYTHON="$python" run "evaluate-$timing" "$gpumeter" \
      evaluate --timing "$timing" --reference exploits.problem:host_reference \
      --inputs exploits.problem:host_inputs --out "$work/eval-$timing" honest=exploits.honest:host
    one_line "evaluate-$timing" 5 "^gpumeter evaluate: .+; nothing was measured; --timing host times host work on the host clock$"
    [[ -e "$work/eval-$timing" ]] && fail "evaluate --timing $timing: made its output folder"
    PYTHONPATH="$tests_python" GPUMETER_PYTHON="$python" follow_hint "evaluate-$timing" \
      "$gpumeter" evaluate --timing "$timing" --reference exploits.problem:host_reference \
      --inputs exploits.problem:host_inputs --budget 1,4 --out "$work/eval-$timing" \
      honest=exploits.honest:host
    [[ $rc -eq 0 ]] || fail "evaluate --timing $timing, its hint: exit code $rc: $(cat "$work/evaluate-$timing-hint.err")"
  done
  # The Python API: timing='cupti' is DeviceError naming timing='host'; 'auto' warns.
  run python-api "$python" -c "
import warnings, gpumeter
try:
    gpumeter.measure(lambda: None, timing='cupti', budget=(1, 2))
except gpumeter.DeviceError as e:
    assert str(e).endswith(\"; nothing was measured; timing='host' times host work on the host clock\"), e
    print('DeviceError:', e)
else:
    raise SystemExit('no DeviceError')
# Its hint, followed as written: host work with timing='host' gets a number.
r = gpumeter.measure(lambda: sum(range(1000)), timing='host', budget=(1, 2))
assert r.summary.device_busy.median_ns > 0 and not r.measures_call_overhead, r
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter('always')
    gpumeter.measure(lambda: sum(range(100)), budget=(1, 2))
assert any(issubclass(x.category, gpumeter.FallbackWarning) for x in w), w
print('FallbackWarning:', [str(x.message) for x in w if issubclass(x.category, gpumeter.FallbackWarning)][0])
"
  [[ $rc -eq 0 ]] || fail "python api: $(cat "$work/python-api.err")"
  echo "row python: $(head -n2 "$work/python-api.out" | cut -c1-160 | tr '\n' '|')"
elif [[ ${GPUMETER_NO_GPU_PYTHON_REQUIRED:-0} == 1 ]]; then
  fail "$python cannot import gpumeter, and the Python rows are required"
else
  echo "note: $python cannot import gpumeter: the rows of evaluate and the Python API are not run"
fi

if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "ok: every row of the no-GPU table"
