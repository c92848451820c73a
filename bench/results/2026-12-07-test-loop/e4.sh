#!/usr/bin/env bash
# E4: the consumer check, after (this branch) and before (main's script, same sources).
set -u
cd /work/wt-loop
T='/usr/bin/time -f %e_wall_%U_user_%S_sys'
which=${1:-after}
if [[ $which == before ]]; then
  cp /tmp/loop/consumer-run-before.sh tests/consumer/run-before.sh
  $T bash tests/consumer/run-before.sh > /tmp/loop/e4-before.log 2>&1; tail -2 /tmp/loop/e4-before.log
  rm -f tests/consumer/run-before.sh
else
  $T bash tests/consumer/run.sh > /tmp/loop/e4-after.log 2>&1; tail -2 /tmp/loop/e4-after.log
fi
