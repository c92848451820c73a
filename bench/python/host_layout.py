"""What moves a host-clock row between runs (issue 51, the gate): one process compares the work of
bench/python/host_work.py (`reference`, a float loop over a list) with the pytest plugin's
yardstick (`gpumeter._core._python_yardstick`, an integer loop) N times, interleaved (A B B A, 3
rounds) in each comparison, and prints each comparison's two medians. With `none` nothing else
happens between comparisons; with `junk` a list of up to 5000 floats is made (and a few kept)
before each, so each comparison starts from another heap.

    PYTHONPATH=python:bench/python python bench/python/host_layout.py N none|junk

Counts how often the row read slow (over 50 us) with and without the yardstick reading slow (over
40 us): a slowdown both share is one a yardstick could cancel; one of the row alone is not.
"""
import os, random, statistics as st, sys
import gpumeter, host_work
from gpumeter import _core
xs = host_work.fixed()
rng = random.Random(1)
keep = []
both = row_only = y_only = none = 0
lines = []
for i in range(int(sys.argv[1])):
    if sys.argv[2] == "junk":
        keep.append([float(j) for j in range(rng.randrange(1, 5000))])  # the heap moves
        if len(keep) > 8: keep.pop(rng.randrange(len(keep)))
    c = gpumeter.compare({"row": lambda: host_work.reference(*xs), "y": _core._python_yardstick},
                         timing="host", lock=False, verify=False)
    r, y = c.results["row"].device_busy.median_ns / 1000, c.results["y"].device_busy.median_ns / 1000
    lines.append(f"{r:.1f}/{y:.1f}")
    rs, ys = r > 50, y > 40
    both += rs and ys; row_only += rs and not ys; y_only += ys and not rs; none += not (rs or ys)
print(sys.argv[2], "row/yardstick us (interleaved A B B A, 3 rounds):", " ".join(lines))
print(f"row slow (>50 us) and yardstick slow (>40 us): {both}; row alone: {row_only}; yardstick alone: {y_only}; neither: {none}; load {open('/proc/loadavg').read().split()[0]}")
