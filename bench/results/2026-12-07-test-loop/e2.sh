#!/usr/bin/env bash
# E2: unit_core and what it links in the main build's configuration (g++), then the edit loop:
# one core file touched, unit_core rebuilt, its tests run.
set -u
cd /work/wt-loop
T='/usr/bin/time -f %e_wall_%U_user_%S_sys'
$T cmake --build build -j2 --target unit_core > /tmp/loop/e2-build.log 2>&1; tail -1 /tmp/loop/e2-build.log
for i in 1 2; do
  touch src/core/summary.cpp
  $T bash -c 'cmake --build build -j2 --target unit_core >/tmp/loop/e2-loop-build.log 2>&1 && build/tests/unit/unit_core >/tmp/loop/e2-loop-run.log 2>&1' 2>&1 | tail -1 | sed "s/^/loop $i (touch src\/core\/summary.cpp; build unit_core; run it): /"
  tail -2 /tmp/loop/e2-loop-run.log
done
# The same through ctest (every test its own process), -j2.
touch src/core/summary.cpp
$T bash -c 'cmake --build build -j2 --target unit_core >/dev/null 2>&1 && ctest --test-dir build -j2 -L unit -R "^(Summary|Spread|Quantile)" >/tmp/loop/e2-loop-ctest.log 2>&1' 2>&1 | tail -1 | sed 's/^/loop via ctest -R: /'
tail -3 /tmp/loop/e2-loop-ctest.log
