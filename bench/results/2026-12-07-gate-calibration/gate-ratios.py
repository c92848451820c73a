"""The pytest gate's rows across two sessions of bench/python/host_a_vs_a.py (its folder
OUT/pytest/.gpumeter/runs/, three runs: the baseline, A against A, 3x slower), judged twice by the
core: as recorded (each row read against the yardstick timed beside it, where both rows have one)
and with the yardsticks taken out (the rule for rows without one: the 2x floor of runs not
interleaved). Also each row's median over its baseline's, as measured and as read against the
yardsticks (each sample times the baseline's yardstick median over the level of the yardstick's
pass beside it, as host_clock.cpp reads it).

    PYTHONPATH=python python3 gate-ratios.py OUT [--gate 10]
"""
import argparse
import json
import os
import statistics
import tempfile

from gpumeter import _gpumeter


def runs_of(out):
    root = os.path.join(out, "pytest", ".gpumeter", "runs")
    return [os.path.join(root, d) for d in sorted(os.listdir(root))]


def records(folder):
    index = json.load(open(os.path.join(folder, "index.json")))
    return {nodeid: os.path.join(folder, call["record"])
            for nodeid, calls in index["tests"].items() for call in calls.values()}


def medians(path):
    """(median as measured, median read against the yardstick on `scale`, yardstick median)."""
    row = json.load(open(path))["results"][0]
    xs = row["samples"]["device_busy_ns"]
    y = row.get("yardstick")
    if not y:
        return statistics.median(xs), None, None
    read, at = [], 0
    for size, level in zip(row["pass_sizes"], y["pass_ns"]):
        read += [x / level for x in xs[at:at + size]]
        at += size
    return statistics.median(xs), statistics.median(read), statistics.median(y["pass_ns"])


def stripped(path, folder):
    r = json.load(open(path))
    for row in r["results"]:
        row["yardstick"] = None
    out = os.path.join(folder, os.path.basename(path))
    json.dump(r, open(out, "w"))
    return out


def claimed(base, new, gate):
    # --gate is a percent; the binding takes the gate as a fraction (0.1 for 10%).
    report, c = _gpumeter.compare_record_files(base, new, gate / 100, False)
    return len(c.regressions) > 0, report


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--gate", type=float, default=10.0)
    a = p.parse_args()
    save, same, slow = runs_of(a.out)[:3]
    base = records(save)
    tmp = tempfile.mkdtemp(prefix="gate-ratios-")
    for what, folder in (("A against A", same), ("3x slower", slow)):
        raw, read, with_y, without_y = [], [], 0, 0
        for nodeid, path in records(folder).items():
            b, n = medians(base[nodeid]), medians(path)
            raw.append(n[0] / b[0])
            if b[1] and n[1]:
                read.append(n[1] / b[1])
            with_y += claimed(base[nodeid], path, a.gate)[0]
            without_y += claimed(stripped(base[nodeid], tmp), stripped(path, tmp), a.gate)[0]
        n = len(raw)
        line = (f"{what}: {n} rows; median over the baseline's, as measured "
                f"{min(raw):.3f}x to {max(raw):.3f}x")
        if read:
            line += f", read against the yardsticks {min(read):.3f}x to {max(read):.3f}x"
        line += (f"; called slower beyond {a.gate:g}%: {with_y} of {n} as recorded (yardsticks), "
                 f"{without_y} of {n} with the yardsticks taken out (2x floor)")
        print(line)


if __name__ == "__main__":
    main()
