#!/usr/bin/env bash
# `gpumeter evaluate`: the C++ command runs the Python module's evaluate with its arguments.
#   test_evaluate.sh GPUMETER missing   an interpreter that cannot be started, and one that cannot
#                                       import gpumeter: one line saying what to install, exit 2
#   test_evaluate.sh GPUMETER passes    with $GPUMETER_PYTHON (default python3) holding gpumeter:
#                                       --help and a usage error are the module's, passed
#                                       through; exit 77 (skipped, saying why) without it
set -u

gpumeter=$1
mode=$2
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

expect() {  # expect NAME RC STREAM SUBSTRING...
  local name=$1 want=$2 stream=$3
  shift 3
  [[ $rc -eq $want ]] || fail "$name: exit code $rc, expected $want: $(cat "$work/$name.err")"
  # Read as one line, each run of spaces one: a message wrapped at the help's width may break a
  # phrase where a long path (a checkout's) pushes it to the next line.
  for s in "$@"; do
    tr -s '[:space:]' ' ' <"$work/$name.$stream" | grep -qF -- "$s" ||
      fail "$name: $stream does not say '$s': $(cat "$work/$name.$stream")"
  done
}

if [[ $mode == missing ]]; then
  GPUMETER_PYTHON="$work/no-such-python" run absent evaluate --reference m:f x:y
  expect absent 2 err "gpumeter evaluate: cannot start the Python interpreter" "GPUMETER_PYTHON"
  GPUMETER_PYTHON="$work/no-such-python" run absenthelp evaluate -h
  expect absenthelp 0 out "--reference MODULE:FUNCTION" "cannot be started"
  [[ $(wc -l <"$work/absent.err") -eq 1 ]] || fail "absent: more than one line: $(cat "$work/absent.err")"
  # An interpreter that exits without evaluate's report (no Python; a Python that exits at once)
  # judged nothing: a named failure, never exit 0 and silence (issue 38).
  GPUMETER_PYTHON=true run silent evaluate --reference m:f --inputs m:g x=m:h
  expect silent 2 err "the Python interpreter 'true' exited with code 0 without evaluate's report" \
    "GPUMETER_PYTHON"
  printf '#!/bin/sh\nkill -9 $$\n' >"$work/killed-python"
  chmod +x "$work/killed-python"
  GPUMETER_PYTHON="$work/killed-python" run killed evaluate --reference m:f --inputs m:g x=m:h
  expect killed 2 err "was killed by signal 9 without evaluate's report"
  if command -v python3 >/dev/null; then
    printf '#!/bin/sh\nexec %s -I -S "$@"\n' "$(command -v python3)" >"$work/bare-python"
    chmod +x "$work/bare-python"
    GPUMETER_PYTHON="$work/bare-python" run bare evaluate x:y
    expect bare 2 err "cannot import gpumeter" "pip install '" "(the gpumeter checkout" \
      "GPUMETER_PYTHON"
    [[ $(wc -l <"$work/bare.err") -eq 1 ]] || fail "bare: more than one line: $(cat "$work/bare.err")"
    # --help needs no module (issue 36): the options, exit 0.
    GPUMETER_PYTHON="$work/bare-python" run barehelp evaluate --help
    expect barehelp 0 out "--reference MODULE:FUNCTION" "--timing" "Exit codes:" "refused" \
      "cannot import gpumeter: pip install '"
  fi
else
  python=${GPUMETER_PYTHON:-python3}
  if ! "$python" -c 'import gpumeter._evaluate' 2>/dev/null; then
    echo "SKIP: $python cannot import gpumeter (set GPUMETER_PYTHON to a Python that has it)"
    exit 77
  fi
  run help evaluate --help
  expect help 0 out "--reference" "--inputs" "--program" "no --jobs"
  run empty evaluate
  expect empty 2 err "gpumeter evaluate: no candidates"
  run nofile evaluate --reference m:f --inputs m:g no/such/file.py:run
  expect nofile 2 err "no file 'no/such/file.py'"
fi

if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "ok"
