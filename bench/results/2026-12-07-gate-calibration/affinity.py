"""The row of bench/python/host_work.py and the pytest plugin's yardstick, each measured alone on
core 0 and then core 1 (os.sched_setaffinity), 3 rounds: whether a slowdown is the core's (both
read slower) or the row's.

    PYTHONPATH=python:bench/python python affinity.py
"""
import os, statistics as st, time
import gpumeter, host_work
from gpumeter import _core
xs = host_work.fixed()
for rnd in range(3):
    for cpu in (0, 1):
        os.sched_setaffinity(0, {cpu})
        time.sleep(0.05)
        row = gpumeter.measure(lambda: host_work.reference(*xs), timing="host", lock=False)
        y = gpumeter.measure(_core._python_yardstick, timing="host", lock=False)
        print(f"cpu{cpu}: row {row.device_busy.median_ns/1000:.1f} us, int-loop yardstick {y.device_busy.median_ns/1000:.1f} us, load {open('/proc/loadavg').read().split()[0]}", flush=True)
