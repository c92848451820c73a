cd /tmp/fc2
unset CCACHE_DIR CCACHE_BASEDIR
echo "load before: $(cat /proc/loadavg)"
/usr/bin/time -f 'MAIN JOB: %e s wall, %U s user, %S s sys, %M KB peak' bash -c 'cmake -S . -B build -G Ninja >/dev/null && cmake --build build --target gpumeter-example >/tmp/fc2-build.log && ./build/examples/gpumeter-example >/tmp/fc2-example.log 2>&1'
echo "load between: $(cat /proc/loadavg)"
python3 -m venv /tmp/fc2-venv && /tmp/fc2-venv/bin/pip install -q --upgrade pip
/usr/bin/time -f 'PIP INSTALL: %e s wall, %U s user, %S s sys, %M KB peak' /tmp/fc2-venv/bin/pip install -q .
echo "load after: $(cat /proc/loadavg)"
