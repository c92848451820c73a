#!/usr/bin/env bash
# The attack set in full (tests/attack/attack.py --full: every hostile text through every writer,
# every fuzz value for every option of every subcommand and of a benchmark program, 120 mutations
# of each committed record, special files for history), then the worst cases of history and plot
# timed: a record of 50,000 rows (a page per row before the bound), --commits /dev/zero, and the
# plot of a record with hostile names.
#   bench/hostile/run.sh GPUMETER BENCHMARK_PROGRAM OUT_DIR
# Prints one line per class and the totals: "0 signals, 0 hangs, ... 0 refusals of more than one
# line" is the result to expect. /usr/bin/time's figures go to OUT_DIR/*.time.
set -u
gpumeter=$(realpath "$1")
bench=$(realpath "$2")
out=$(realpath -m "$3")
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 "$here/../../tests/attack/attack.py" --full --gpumeter "$gpumeter" --bench "$bench" |
  tee "$out/attack-full.txt"
status=${PIPESTATUS[0]}

# history's worst: one record of 50,000 rows (244 MB, under the reader's 256 MiB).
mkdir -p "$work/wide"
python3 "$here/wide_record.py" 50000 "$work/wide/wide.json"
/usr/bin/time -f '%e s wall, %U s user, %S s sys, %M KB peak' -o "$out/history-wide.time" \
  "$gpumeter" history "$work/wide" --out "$work/wide-site" >"$out/history-wide.out" 2>&1
echo "pages: $(find "$work/wide-site" -type f 2>/dev/null | wc -l), $(du -sh "$work/wide-site" 2>/dev/null | cut -f1)" \
  >>"$out/history-wide.out"
rm -rf "$work/wide-site"
# --commits /dev/zero: read without end before (stopped here after 30 s).
/usr/bin/time -f '%e s wall, %U s user, %S s sys, %M KB peak' -o "$out/history-dev-zero.time" \
  timeout 30 "$gpumeter" history "$work/wide" --commits /dev/zero --out "$work/zero-site" \
  >"$out/history-dev-zero.out" 2>&1
echo "exit $?" >>"$out/history-dev-zero.out"
cat "$out"/history-*.time
exit "$status"
