"""The pytest gate's rows across two sessions: each test's median in the second run (a folder
of .gpumeter/runs/) over its median in the first, and how many lie 1.5x or more apart.

    python3 gate-ratios.py FIRST_RUN_DIR SECOND_RUN_DIR
"""
import json, os, sys, statistics
def medians(folder):
    idx = json.load(open(os.path.join(folder, "index.json")))
    out = {}
    for nodeid, calls in idx["tests"].items():
        for name, call in calls.items():
            r = json.load(open(os.path.join(folder, call["record"])))
            res = r["results"][0]
            xs = [res["summary"]["device_busy_ms"]["median"]]
            out[nodeid] = (statistics.median(xs), res["pass_sizes"], res.get("load_average"))
    return out
base = medians(sys.argv[1]); new = medians(sys.argv[2])
rs = sorted(new[k][0] / base[k][0] for k in new if k in base)
print(len(rs), "ratios: min %.3f p50 %.3f p90 %.3f p99 %.3f max %.3f" % (rs[0], rs[len(rs)//2], rs[int(.9*len(rs))], rs[int(.99*len(rs))], rs[-1]))
print("over 1.5:", sum(r >= 1.5 for r in rs), "under 1/1.5:", sum(r <= 1/1.5 for r in rs))
