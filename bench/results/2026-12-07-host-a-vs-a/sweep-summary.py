"""Counts a host sweep record's comparisons: claimed differences, and those with no interval.

    python3 sweep-summary.py RECORD.json
"""
import json
import sys

r = json.load(open(sys.argv[1]))
cs = r["comparisons"]
claims = [c for c in cs if c.get("ratio") and c["ratio"]["resolution"] == "directional difference"]
across = [c for c in claims if c["difference"] and c["difference"]["low"] < 0 < c["difference"]["high"]]
print(f"schema {r['schema_version']}: {len(cs)} comparisons, {len(claims)} claimed, "
      f"{len(across)} of them with an interval across no difference, "
      f"{sum(1 for c in cs if c['difference'] is None)} with no interval")
