#!/usr/bin/env bash
# gpumeter history's time on 10,000 records (B14), by hand: not part of scripts/test.sh (a wall
# time means nothing on a machine shared with other work). Builds gpumeter in BUILD_DIR (default
# build/), writes N (default 10,000) copies of the 30 real records of
# bench/results/2026-12-03-history/ (bench/history/copies.py: each its own run id, commit and
# time, its bytes otherwise untouched), and times `gpumeter history` on them. Prints the load
# average before, then wall time, CPU time and peak memory; exits 1 if the wall time is 10 s or
# more (run it on an idle machine: the target is the 2-core CI machine).
#   scripts/history-scaling.sh [BUILD_DIR] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
n=${2:-10000}
cmake --build "$build" --target gpumeter >/dev/null
gpumeter=$build/src/cli/gpumeter
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 bench/history/copies.py bench/results/2026-12-03-history/records "$work/records" "$n"
echo "history-scaling: $(du -sh "$work/records" | cut -f1) of records; $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$work"/records/*/*.json >/dev/null  # in the page cache, as a second build finds them
/usr/bin/time -f '%e %U %S %M' -o "$work/time" "$gpumeter" history "$work/records" --out "$work/site"
read -r wall user sys kib <"$work/time"
echo "history-scaling: $n records in $wall s wall ($user s user, $sys s sys), peak memory $((kib / 1024)) MB"
if awk -v s="$wall" 'BEGIN { exit !(s >= 10) }'; then
  echo "history-scaling: FAILED: 10 s or more (on an idle 2-core machine the target is under 10 s)" >&2
  exit 1
fi
