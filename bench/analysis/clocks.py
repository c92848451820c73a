#!/usr/bin/env python3
"""What the SM clock did to the times of the committed H200 runs, from the per-sample clock
readings of every record under bench/results/ (schema version 3 and on). Standard library only.

It prints:
  - for each row whose samples ran at more than one clock: each clock (with the reasons set
    around it), its samples, their median device_busy, and that median over the median of the
    same row's samples at its highest clock, beside the clock as a fraction of that highest
    clock;
  - the throttle-reason masks seen, and how many samples each;
  - how many samples each rule flags, row by row: schema version 3's (any slowing reason, the
    power cap included, or below the row's first sample's clock) and the current one (below
    95% of the row's highest clock, or a thermal or hardware slowdown).
These are the figures include/gpumeter/detail/clock_state.hpp cites for kClockFlagFraction.

    python3 bench/analysis/clocks.py [bench/results]
"""
import collections
import glob
import json
import os
import statistics
import sys

POWER_CAP = 0x4
FLAGGING = 0x8 | 0x20 | 0x40 | 0x80  # HW slowdown, SW and HW thermal, HW power brake
FRACTION = 0.95


def rows(root):
    for path in sorted(glob.glob(os.path.join(root, "**", "*.json"), recursive=True)):
        try:
            with open(path) as f:
                record = json.load(f)
        except (OSError, ValueError):
            continue
        if not isinstance(record, dict) or record.get("schema") != "gpumeter.record":
            continue
        for r in record["results"]:
            s = r["samples"]
            if not s.get("sm_clock_mhz"):
                continue
            label = f"{r['case']}/{r['implementation']}"
            if r["params"]:
                label += " (" + ", ".join(f"{k}={v}" for k, v in r["params"].items()) + ")"
            yield os.path.relpath(path, root), label, s


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "bench/results"
    masks = collections.Counter()
    harmless, harmful = [], []
    flags = []
    print("Rows that ran at more than one clock (time: median device_busy at that clock over the")
    print("median at the row's highest clock):")
    for path, label, s in rows(root):
        mhz, reasons, busy = s["sm_clock_mhz"], s["throttle_reasons"], s["device_busy_ns"]
        masks.update(reasons)
        top = max(mhz)
        old = sum(1 for m, x in zip(mhz, reasons) if x & (POWER_CAP | FLAGGING) or m < mhz[0])
        new = sum(1 for m, x in zip(mhz, reasons) if x & FLAGGING or m < FRACTION * top)
        flags.append((path, label, len(mhz), old, new, min(mhz), top))
        by_clock = collections.defaultdict(list)
        for m, b in zip(mhz, busy):
            by_clock[m].append(b)
        if len(by_clock) < 2:
            continue
        at_top = statistics.median(by_clock[top])
        print(f"  {path}: {label}")
        for m in sorted(by_clock):
            seen = sorted({x for mm, x in zip(mhz, reasons) if mm == m})
            ratio = statistics.median(by_clock[m]) / at_top
            print(f"    {m:5d} MHz ({m / top:.3f} of {top}), reasons {[hex(x) for x in seen]}: "
                  f"{len(by_clock[m]):3d} samples, time x{ratio:.4f}")
            if m != top:
                (harmful if m < FRACTION * top else harmless).append((m / top, ratio, label))
    print()
    for name, group in (("at or above", harmless), ("below", harmful)):
        if group:
            print(f"Clocks {name} {FRACTION} of the row's highest: fractions "
                  f"{min(g[0] for g in group):.3f} to {max(g[0] for g in group):.3f}, time x"
                  f"{min(g[1] for g in group):.4f} to x{max(g[1] for g in group):.4f}")
    gemm = [g for g in harmful if "gemm" in g[2]]
    if gemm:
        print(f"  of which GEMM rows: fractions {min(g[0] for g in gemm):.3f} to "
              f"{max(g[0] for g in gemm):.3f}, time x{min(g[1] for g in gemm):.4f} to "
              f"x{max(g[1] for g in gemm):.4f}")
    print()
    print("Throttle-reason masks around samples: " +
          ", ".join(f"{hex(m)}: {n}" for m, n in sorted(masks.items())))
    print()
    print(f"Flagged samples per row: schema version 3's rule -> the current rule ({FRACTION} of "
          "the row's highest clock, or a thermal or hardware slowdown):")
    for path, label, n, old, new, low, top in flags:
        if old or new:
            print(f"  {path}: {label}: {old} -> {new} of {n} (clock {low} to {top} MHz)")
    print(f"Rows with a flag: {sum(1 for f in flags if f[3])} -> {sum(1 for f in flags if f[4])} "
          f"of {len(flags)}; flagged samples: {sum(f[3] for f in flags)} -> "
          f"{sum(f[4] for f in flags)} of {sum(f[2] for f in flags)}")


if __name__ == "__main__":
    main()
