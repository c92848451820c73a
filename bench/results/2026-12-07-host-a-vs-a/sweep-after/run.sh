#!/bin/bash
# The issue's host sweep on this branch, two `yes` beside (ended by their pids), 3 runs; each
# record read back with gpumeter-host-benchmarks' own reader (--report of the written file is
# not an option of the program; the record's read-back is checked by the writer itself and by
# test_record_io). The journal of none remains when a record is written.
cd /tmp/hc-sweep
B=/work/wt-hostclock/build/tests/benchmark/gpumeter-host-benchmarks
yes > /dev/null &
Y1=$!
yes > /dev/null &
Y2=$!
echo "yes pids: $Y1 $Y2" > pids.txt
sleep 3
for i in 1 2 3; do
  mkdir -p run$i
  (cd run$i && timeout 400 $B --timing host --filter '^sum' --axis n=1:1001 --budget 0.01,0.01 > out.txt 2>&1; echo "rc=$? load=$(cut -d' ' -f1 /proc/loadavg)" >> out.txt)
done
kill $Y1 $Y2
wait $Y1 $Y2 2>/dev/null
echo done > done.txt
