#!/usr/bin/env python3
"""What the samples of one pass look like on the GPU, from gpumeter-a-vs-a's probe output
(bench/results/2026-11-30-h200-probe/passes.jsonl.gz: one line per A B B A comparison, each
pass's device_busy samples kept apart). Standard library only.

For each kind of A-against-A comparison it prints:
  - the spread of pass means between passes of one implementation, beside the standard error a
    pass mean would have if its samples were independent;
  - the autocorrelation of samples within a pass at lags 1, 10 and 40;
  - how far apart the two halves of one pass read, beside what independent samples would give.
  - how many of the comparisons the rule gpumeter used before (a percentile bootstrap of the
    ratio of medians, resampling samples as if independent, 2000 resamples, 95%) would have
    claimed a difference in, A against A.
These are the figures docs/comparisons.md cites for treating passes, not samples, as units.

    python3 bench/analysis/passes.py bench/results/2026-11-30-h200-probe/passes.jsonl.gz
"""
import gzip
import json
import math
import random
import statistics
import sys
from collections import defaultdict


def acf(x, lag):
    m = statistics.fmean(x)
    v = statistics.fmean([(a - m) ** 2 for a in x])
    if v == 0:
        return 0.0
    return statistics.fmean([(x[i] - m) * (x[i + lag] - m) for i in range(len(x) - lag)]) / v


def bootstrap_claims(rows, resamples=2000, seed=1):
    """The earlier rule: an interval of median(A) / median(B) from resampled samples."""
    rng = random.Random(seed)
    claims = 0
    for r in rows:
        p = [x["busy_ns"] for x in r["passes"]]
        a, b = p[0] + p[3], p[1] + p[2]
        ratios = sorted(
            statistics.median(rng.choices(a, k=len(a))) / statistics.median(rng.choices(b, k=len(b)))
            for _ in range(resamples))
        low, high = ratios[int(0.025 * resamples)], ratios[int(0.975 * resamples) - 1]
        claims += low > 1 or high < 1
    return claims


def main(path):
    groups = defaultdict(list)
    with gzip.open(path, "rt") as f:
        for line in f:
            row = json.loads(line)
            if row["variant"] == "A-vs-A":
                groups[row["kind"]].append(row)
    print(f"{'kind':16} {'n':>3} {'mean ns':>9} {'pass-mean sd':>12} {'iid se':>7} "
          f"{'acf1':>5} {'acf10':>6} {'acf40':>6} {'half-diff sd':>12} {'iid':>6} "
          f"{'bootstrap claims':>16}")
    for kind, rows in groups.items():
        diffs, ses, acfs, halves, half_iid, means = [], [], [], [], [], []
        for r in rows:
            passes = [p["busy_ns"] for p in r["passes"]]  # order: A, B, B, A
            m = [statistics.fmean(p) for p in passes]
            means += m
            diffs += [m[3] - m[0], m[2] - m[1]]
            for p in passes:
                sd = statistics.pstdev(p)
                ses.append(sd / math.sqrt(len(p)))
                acfs.append((acf(p, 1), acf(p, 10), acf(p, 40)))
                h = len(p) // 2
                halves.append(statistics.fmean(p[:h]) - statistics.fmean(p[h:]))
                half_iid.append(sd * math.sqrt(2 / h))
        print(f"{kind:16} {len(rows):3d} {statistics.fmean(means):9.0f} "
              f"{statistics.pstdev(diffs) / math.sqrt(2):12.1f} {statistics.fmean(ses):7.1f} "
              f"{statistics.fmean(a[0] for a in acfs):5.2f} "
              f"{statistics.fmean(a[1] for a in acfs):6.2f} "
              f"{statistics.fmean(a[2] for a in acfs):6.2f} "
              f"{statistics.pstdev(halves):12.1f} {statistics.fmean(half_iid):6.1f} "
              f"{bootstrap_claims(rows):9d} of {len(rows)}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench/results/2026-11-30-h200-probe/passes.jsonl.gz")
