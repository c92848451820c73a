#!/usr/bin/env bash
# The README and the helps agree with the code (issue 36): every program in the README's table
# "Where things are after the build" is where it says after the full build and answers --help,
# and every subcommand `gpumeter --help` lists answers --help: exit 0, every line at most 100
# columns, no "(default" cut from its value at a line's end. `evaluate --help` is run without a
# Python that has the module (the command's own copy) and, where $GPUMETER_PYTHON has it, with.
#   readme_and_help.sh SOURCE_DIR BUILD_DIR
set -u
src=$1
build=$2
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
check_help() {  # check_help WHAT FILE RC
  local what=$1 file=$2 rc=$3
  [[ $rc -eq 0 ]] || fail "$what: exit code $rc: $(head -n3 "$file")"
  [[ -s $file ]] || fail "$what printed nothing"
  local long
  # A word longer than a line (a path as long as the checkout's) stays whole on a line of its
  # own: every line of more than one word fits.
  long=$(LC_ALL=C.UTF-8 awk 'NF > 1 && length($0) > 100 { print length($0) ": " $0 }' "$file")
  [[ -z $long ]] || fail "$what: lines over 100 columns: $long"
  grep -nE '\(default$' "$file" && fail "$what: '(default' cut from its value"
  echo "ok: $what ($(wc -l <"$file") lines)"
}

# The README's table: each path under build/ (the README's build folder) in this build.
table=$(sed -n '/^## Where things are after the build/,/^## /p' "$src/README.md")
paths=$(printf '%s\n' "$table" | grep -oE '`build/[^`]+`' | tr -d '`' | sort -u)
[[ -n $paths ]] || fail "the README's table names no path under build/"
for p in $paths; do
  program="$build/${p#build/}"
  if [[ ! -x $program ]]; then
    # time-my-kernel needs the CUDA backend (src/cuda is built with it): absent without it, as
    # the table says.
    if [[ $p == *time-my-kernel && ! -d "$build/src/cuda" ]]; then
      echo "note: $p is not built without the CUDA backend"
      continue
    fi
    fail "the README's $p is not in the build ($program)"
    continue
  fi
  "$program" --help >"$work/help.out" 2>&1
  check_help "$p --help" "$work/help.out" $?
done

# Every subcommand the command lists.
gpumeter="$build/src/cli/gpumeter"
"$gpumeter" --help >"$work/top.out" 2>&1
check_help "gpumeter --help" "$work/top.out" $?
subs=$(sed -n '/^\(SUBCOMMANDS\|Subcommands\):/,/^$/p' "$work/top.out" | awk 'NR > 1 && /^  [a-z]/ { print $1 }')
[[ -n $subs ]] || fail "gpumeter --help lists no subcommand: $(cat "$work/top.out")"
for want in report compare merge env lock run plot evaluate; do
  grep -qx "$want" <<<"$subs" || fail "gpumeter --help does not list '$want'"
done
printf '#!/bin/sh\nexec python3 -I -S "$@"\n' >"$work/bare-python"
chmod +x "$work/bare-python"
for sub in $subs; do
  GPUMETER_PYTHON="$work/bare-python" "$gpumeter" "$sub" --help >"$work/$sub.out" 2>&1
  check_help "gpumeter $sub --help" "$work/$sub.out" $?
done
grep -qF -- "--reference MODULE:FUNCTION" "$work/evaluate.out" ||
  fail "gpumeter evaluate --help without the module lists no options"
python=${GPUMETER_PYTHON:-python3}
if "$python" -c 'import gpumeter._evaluate' 2>/dev/null; then
  GPUMETER_PYTHON="$python" "$gpumeter" evaluate --help >"$work/evaluate-module.out" 2>&1
  check_help "gpumeter evaluate --help (the module's)" "$work/evaluate-module.out" $?
  # The command's copy is the module's own help.
  # The copy, less the lines after it that say what to install.
  diff <(head -n "$(wc -l <"$work/evaluate-module.out")" "$work/evaluate.out") \
    "$work/evaluate-module.out" >"$work/diff" ||
    fail "evaluate --help: the command's copy differs from the module's: $(head -n 10 "$work/diff")"
fi

if [[ $failures -gt 0 ]]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "ok: the README's paths and every help"
