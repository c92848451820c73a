#!/bin/bash
# Two `yes` loads beside, both cores busy; each started here, ended by its own pid.
cd /tmp/hc-bench
yes > /dev/null &
Y1=$!
yes > /dev/null &
Y2=$!
echo "yes pids: $Y1 $Y2" > pids.txt
sleep 3
echo "after (this branch):" ; /tmp/hc-after/a_vs_a_after 100 5000 > after.csv 2> after.err; echo "rc=$?" >> after.csv
/tmp/hc-before/a_vs_a_before 100 5000 > before.csv 2> before.err; echo "rc=$?" >> before.csv
kill $Y1 $Y2
wait $Y1 $Y2 2>/dev/null
echo done > done.txt
