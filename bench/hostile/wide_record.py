#!/usr/bin/env python3
"""A record of many rows, for gpumeter history's worst case (issue: one record of 100,000 rows
wrote 100,004 pages): the first row of a committed host record copied ROWS times, each copy its
own case name (so no two are compared), with the record's comparisons dropped.

    wide_record.py ROWS OUT.json [COMMIT]
"""
import copy
import json
import os
import sys

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data")


def main():
    rows, out = int(sys.argv[1]), sys.argv[2]
    commit = sys.argv[3] if len(sys.argv) > 3 else "a" * 40
    with open(os.path.join(DATA, "host_example_a.json"), encoding="utf-8") as f:
        doc = json.load(f)
    first = doc["results"][0]
    doc["results"] = []
    for i in range(rows):
        r = copy.deepcopy(first)
        r["case"] = f"copy{i:06d}"
        doc["results"].append(r)
    doc["comparisons"] = []
    doc["project_commit"] = commit
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f)


if __name__ == "__main__":
    main()
