#!/usr/bin/env bash
# The record reader's time against its input (B7), by hand: not part of scripts/test.sh, whose
# unit test tests/unit/test_record_scaling.cpp checks the same property on inputs of at most
# 16 MB. Builds gpumeter and the record helper in BUILD_DIR (default build/), writes records of
# 1M extra keys, of an array of 1M elements, and a real-shaped sweep of SWEEP_MB MB (default
# 200: cases of two implementations of 200 samples each), and times `gpumeter report` on each.
# Prints seconds, MB/s and peak memory per input; exits 1 if the 1M keys or the 1M elements take
# a second or more (wall clock of the whole command: run it on an idle machine).
#   scripts/reader-scaling.sh [BUILD_DIR] [SWEEP_MB]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
sweep_mb=${2:-200}
[[ $sweep_mb =~ ^[0-9]+$ && $sweep_mb -gt 0 ]] || { echo "reader-scaling: SWEEP_MB must be a positive integer" >&2; exit 2; }
cmake --build "$build" --target gpumeter gpumeter_make_record >/dev/null
gpumeter=$build/src/cli/gpumeter
make_record=$build/tests/unit/gpumeter_make_record

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$make_record" --scaling keys 1000000 >"$work/keys.json"
"$make_record" --scaling elements 1000000 >"$work/elements.json"
"$make_record" --scaling sweep "$sweep_mb" >"$work/sweep.json"

slow=0
for input in sweep keys elements; do
  file=$work/$input.json
  bytes=$(stat -c %s "$file")
  /usr/bin/time -f '%e %M' -o "$work/time" "$gpumeter" report "$file" >/dev/null
  read -r seconds kib <"$work/time"
  awk -v i="$input" -v s="$seconds" -v b="$bytes" -v k="$kib" 'BEGIN {
    printf "reader-scaling: %-8s %7.1f MB in %6.2f s (%6.1f MB/s), peak memory %6.0f MB\n",
           i, b / 1e6, s, (s > 0 ? b / 1e6 / s : 0), k / 1024 }'
  if [[ $input != sweep ]] && awk -v s="$seconds" 'BEGIN { exit !(s >= 1) }'; then slow=1; fi
done
if [[ $slow -ne 0 ]]; then
  echo "reader-scaling: FAILED: 1M keys or 1M elements took a second or more" >&2
  exit 1
fi
echo "reader-scaling: 1M keys and 1M elements each under a second"
