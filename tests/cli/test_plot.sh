#!/usr/bin/env bash
# `gpumeter plot` (B9): the C++ command runs the Python module's plot.
#   test_plot.sh GPUMETER DATA_DIR missing   an interpreter that cannot be started, and one that
#                                            cannot import gpumeter: one line saying what to
#                                            install, exit 2, nothing written
#   test_plot.sh GPUMETER DATA_DIR writes    with $GPUMETER_PYTHON (default python3) holding
#                                            gpumeter and matplotlib: the files of each kind are
#                                            written, never over themselves; exit 77 (skipped,
#                                            saying why) without them, unless
#                                            GPUMETER_PLOT_REQUIRED=1
set -u
umask 022

gpumeter=$1
data=$2
src=$(cd "$data/../.." && pwd)  # the checkout the command was built from: its install hint
mode=$3
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # run() is redefined below

# run NAME ARGS...: runs gpumeter in $work/NAME.d, leaving NAME.out, NAME.err and $rc.
run() {
  local name=$1
  shift
  mkdir -p "$work/$name.d"
  (cd "$work/$name.d" && "$gpumeter" "$@") >"$work/$name.out" 2>"$work/$name.err"
  rc=$?
}

# expect_one_line NAME RC SUBSTRING...: exit code RC, nothing on stdout, one line on stderr
# holding every SUBSTRING, and no file written.
expect_one_line() {
  local name=$1 want=$2
  shift 2
  [[ $rc -eq $want ]] || fail "$name: exit code $rc, expected $want: $(cat "$work/$name.err")"
  [[ -s "$work/$name.out" ]] && fail "$name: printed to stdout: $(head -c 200 "$work/$name.out")"
  local lines
  lines=$(wc -l <"$work/$name.err")
  [[ $lines -eq 1 ]] || fail "$name: $lines lines on stderr, expected 1: $(cat "$work/$name.err")"
  for s in "$@"; do
    grep -qF -- "$s" "$work/$name.err" || fail "$name: stderr does not say '$s': $(cat "$work/$name.err")"
  done
  local files
  files=$(find "$work/$name.d" -type f | wc -l)
  [[ $files -eq 0 ]] || fail "$name: wrote $files file(s)"
}

if [[ $mode == missing ]]; then
  GPUMETER_PYTHON="$work/no-such-python" run absent plot "$data/record_v6.json"
  expect_one_line absent 2 "gpumeter plot: cannot start the Python interpreter '$work/no-such-python'" \
    "No such file or directory" "pip install '$src[plot]' (the gpumeter checkout" "GPUMETER_PYTHON"

  # An interpreter that starts but has no gpumeter (no site-packages, no PYTHONPATH).
  if command -v python3 >/dev/null; then
    printf '#!/bin/sh\nexec %s -I -S "$@"\n' "$(command -v python3)" >"$work/bare-python"
    chmod +x "$work/bare-python"
    GPUMETER_PYTHON="$work/bare-python" run bare plot "$data/record_v6.json"
    expect_one_line bare 2 "gpumeter plot: $work/bare-python cannot import gpumeter.plot" \
      "No module named 'gpumeter'" "pip install '$src[plot]' (the gpumeter checkout"
  else
    echo "python3 not found: the check of an interpreter without gpumeter did not run"
  fi

  # A broken interpreter (it exits 1 saying nothing, or dies on a signal): one line naming it.
  printf '#!/bin/sh\nexit 1\n' >"$work/broken-python"
  chmod +x "$work/broken-python"
  GPUMETER_PYTHON="$work/broken-python" run broken plot "$data/record_v6.json"
  expect_one_line broken 2 "gpumeter plot: the Python interpreter '$work/broken-python' exited with code 1" \
    "GPUMETER_PYTHON"
  printf '#!/bin/sh\nkill -SEGV $$\n' >"$work/crashing-python"
  chmod +x "$work/crashing-python"
  GPUMETER_PYTHON="$work/crashing-python" run crashing plot "$data/record_v6.json"
  expect_one_line crashing 139 "gpumeter plot: the Python interpreter '$work/crashing-python' was ended by signal 11"

  # Every argument is the module's parser's (one parser): without Python, --help is the
  # command's copy of the module's help, then what to install.
  GPUMETER_PYTHON="$work/no-such-python" run help plot --help
  [[ $rc -eq 0 ]] || fail "help: exit code $rc, expected 0: $(cat "$work/help.err")"
  # Read with its lines joined: the help wraps the install hint wherever the checkout's path ends.
  flat=$(tr '\n' ' ' <"$work/help.out")
  for s in "usage: gpumeter plot" "--format LIST" "svg, png, pdf" "(default svg,png)" \
    "sweep, totals, comparisons" "pip install '$src[plot]'"; do
    [[ $flat == *"$s"* ]] || fail "help: does not say '$s': $(cat "$work/help.out")"
  done
elif [[ $mode == writes ]]; then
  python=${GPUMETER_PYTHON:-python3}
  if ! why=$("$python" -c 'import gpumeter.plot, matplotlib' 2>&1); then
    why=$(echo "$why" | tail -n 1)
    if [[ ${GPUMETER_PLOT_REQUIRED:-0} == 1 ]]; then
      fail "GPUMETER_PLOT_REQUIRED=1, but $python cannot import gpumeter.plot and matplotlib: $why"
      exit 1
    fi
    echo "SKIP: gpumeter plot's drawing needs Python with gpumeter and matplotlib ($python: $why); set GPUMETER_PYTHON to one"
    exit 77
  fi
  run both plot "$data/record_v6.json" "$data/sweep_crossing.json" --out figures
  [[ $rc -eq 0 ]] || fail "both: exit code $rc: $(cat "$work/both.err")"
  out="$work/both.d/figures"
  v6=gpumeter-20261129T112650Z-4242-0badcafe
  sweep=gpumeter-20261201T090000Z-4248-5eed5eed
  for f in "$v6-totals-saxpy-n_1048576" "$sweep-sweep-copy-bytes" "$sweep-comparisons"; do
    for ext in svg png; do
      [[ -s "$out/$f.$ext" ]] || fail "both: $f.$ext not written (stdout: $(cat "$work/both.out"))"
      grep -qxF "figures/$f.$ext" "$work/both.out" || fail "both: stdout does not list figures/$f.$ext"
    done
  done
  written=$(find "$out" -type f | wc -l)
  [[ $written -eq 6 ]] || fail "both: $written files written, expected 6: $(ls "$out")"
  # One line for each kind a record has nothing for.
  for line in "record_v6.json: no sweep to draw" "record_v6.json: no comparison to draw" \
              "sweep_crossing.json: no total(N) to draw"; do
    grep -qF "$line" "$work/both.err" || fail "both: stderr does not say '$line': $(cat "$work/both.err")"
  done
  [[ $(wc -l <"$work/both.err") -eq 3 ]] || fail "both: stderr, expected 3 lines: $(cat "$work/both.err")"
  head -c 5 "$out/$sweep-sweep-copy-bytes.png" | grep -q PNG || fail "both: the PNG is not a PNG"
  # As readable as a record: 0644 under the umask 022, never mkstemp's private 0600.
  for f in "$out"/*; do
    [[ $(stat -c %a "$f") == 644 ]] || fail "both: $(basename "$f") has mode $(stat -c %a "$f"), expected 644"
  done

  # A folder that cannot be written: one line with the system's words, no Python text.
  mkdir -p "$work/ro.d/locked"
  chmod 0555 "$work/ro.d/locked"
  if [[ ! -w "$work/ro.d/locked" ]]; then
    run ro plot "$data/sweep_crossing.json" --out locked
    expect_one_line ro 2 "Permission denied"
    grep -qF "[Errno" "$work/ro.err" && fail "ro: Python's errno text: $(cat "$work/ro.err")"
  else
    echo "note: running as a user who writes anywhere; the read-only folder check did not run"
  fi

  # Never over an existing file: the second run writes nothing and names the file.
  before=$(cd "$out" && sha256sum -- *)
  (cd "$work/both.d" && "$gpumeter" plot "$data/sweep_crossing.json" --out figures) \
    >"$work/again.out" 2>"$work/again.err"
  rc=$?
  [[ $rc -eq 2 ]] || fail "again: exit code $rc, expected 2"
  grep -qF "exists" "$work/again.err" || fail "again: $(cat "$work/again.err")"
  [[ $(cd "$out" && sha256sum -- *) == "$before" ]] || fail "again: the files changed"

  # A record that cannot be read: one line naming it, exit 2, nothing written.
  echo '{"schema_version": 6' >"$work/bad.json"
  run bad plot "$work/bad.json" "$data/sweep_crossing.json"
  expect_one_line bad 2 "$work/bad.json"

  # Nothing to draw in any record: exit 2.
  run nothing plot "$data/record_v2.json" --kind totals
  [[ $rc -eq 2 ]] || fail "nothing: exit code $rc, expected 2: $(cat "$work/nothing.err")"
  grep -qF "nothing to draw" "$work/nothing.err" || fail "nothing: $(cat "$work/nothing.err")"
else
  echo "usage: test_plot.sh GPUMETER DATA_DIR missing|writes" >&2
  exit 2
fi

if [[ $failures -ne 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all gpumeter plot checks passed ($mode)"
