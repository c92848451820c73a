#!/bin/bash
# Issue 51's host sweeps at load 5 to 10, two `yes` beside (started here, ended by their pids):
# the 1001-size sweep and the 10,001-size one, 3 runs each. Each run's record is read back by
# gpumeter.read_record (the core's reader) and summarized by read_back.py.
#   run.sh BUILD_DIR OUT_DIR       (from the worktree root; PYTHONPATH has python/)
set -u
B=$1/tests/benchmark/gpumeter-host-benchmarks
out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
yes > /dev/null &
Y1=$!
yes > /dev/null &
Y2=$!
echo "yes pids: $Y1 $Y2" > "$out/pids.txt"
sleep 3
for axis in 1:1001 1:10001; do
  for i in 1 2 3; do
    d="$out/n$axis-run$i"
    d=${d//:/-}
    mkdir -p "$d"
    load0=$(cut -d' ' -f1 /proc/loadavg)
    start=$(date +%s.%N)
    (cd "$d" && timeout 1500 "$B" --timing host --filter '^sum' --axis "n=$axis" \
      --budget 0.01,0.01 > out.txt 2>&1; echo "rc=$?" >> out.txt)
    end=$(date +%s.%N)
    echo "axis n=$axis run $i: $(tail -n1 "$d/out.txt"), load $load0 to $(cut -d' ' -f1 /proc/loadavg), $(echo "$end - $start" | bc) s" | tee -a "$out/runs.txt"
    python3 "$here/read_back.py" "$d"/gpumeter-results/*.json >> "$out/runs.txt" 2>&1
  done
done
kill $Y1 $Y2
wait $Y1 $Y2 2>/dev/null
echo done >> "$out/runs.txt"
