#!/usr/bin/env bash
# Main job from a fresh clone, no ccache: configure + build the example target + run it.
set -u
rm -rf /tmp/fc && git clone -q "${1:?usage: main-job-measure.sh REPOSITORY}" /tmp/fc && cd /tmp/fc
echo "commit $(git rev-parse --short HEAD)"; date -u
uptime
start=$(date +%s.%N)
/usr/bin/time -v -o /tmp/fc28/after.time bash -c 'cmake -S . -B build -G Ninja >/tmp/fc28/after.configure.log 2>&1 && cmake --build build --target gpumeter-example >/tmp/fc28/after.build.log 2>&1 && ./build/examples/gpumeter-example >/tmp/fc28/after.example.log 2>&1'
echo "rc $?"
end=$(date +%s.%N)
echo "wall $(echo "$end - $start" | bc) s"
uptime
grep -c "warning:" /tmp/fc28/after.build.log
tail -1 /tmp/fc28/after.build.log
