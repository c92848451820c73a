"""Reads each record named with gpumeter.read_record (the core's reader: a record that does not
read back raises) and says what it holds: rows, comparisons, claims, rows flagged as measuring
the call's overhead.

    python3 read_back.py RECORD.json...
"""
import sys

import gpumeter

for path in sys.argv[1:]:
    try:
        r = gpumeter.read_record(path)
    except gpumeter.Error as e:
        print(f"  {path}: does not read back: {e}")
        continue
    claims = sum(1 for c in r.comparisons if c.ratio is not None and c.ratio.claimed)
    unresolved = sum(1 for c in r.comparisons if c.difference is None)
    overhead = sum(1 for x in r.results if x.measures_call_overhead)
    print(f"  {path.rsplit('/', 1)[-1]}: reads back, schema {r.schema_version}, "
          f"{len(r.results)} rows ({overhead} measure the call's overhead), "
          f"{len(r.comparisons)} comparisons, {claims} claimed, {unresolved} without an interval, "
          f"{len(r.failures)} failures")
