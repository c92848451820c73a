#!/usr/bin/env python3
"""plot's worst case: 10,000 comparisons (500 refused) drawn as the summary and largest pages,
by test_plot.py's many_comparisons.   plot_many.py OUT_DIR TESTS_PYTHON_DIR"""
import resource
import sys
import time

sys.path.insert(0, sys.argv[2])
import test_plot as t
from gpumeter import plot as gplot
record = t.many_comparisons(10000, refused=500)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
start = time.monotonic()
paths = gplot.plot([record], sys.argv[1], ('svg', 'png'), kinds=['comparisons'])
seconds = time.monotonic() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(f"10,000 comparisons: {seconds:.1f} s, peak {peak / 2**20:.0f} MiB ({before / 2**20:.0f} MiB before drawing)")
