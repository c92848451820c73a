"""Precision reached against time spent, from gpumeter-precision's summary.json files.

    python bench/analysis/plot_precision.py OUT_PREFIX SUMMARY.json [SUMMARY2.json LABEL2]

Every point is one comparison read from the records (its width reached and the wall time of its
passes); nothing is re-measured. Writes OUT_PREFIX.svg and OUT_PREFIX.png.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"one_block": "tab:red", "spin_5us": "tab:blue", "spin_20us": "tab:green"}
LABELS = {"one_block": "1-block kernel (~0.6 us)", "spin_5us": "5 us kernel",
          "spin_20us": "20 us kernel"}


def points(summary):
    for kernel, groups in summary.items():
        for group, g in groups.items():
            for each in g["each"]:
                yield kernel, group, g["target"], each["seconds"], each["reached"]


def main(prefix, first, second=None, second_label=None):
    fig, ax = plt.subplots(figsize=(8, 5))
    for path, hollow, note in ((first, False, ""), (second, True, second_label)):
        if path is None:
            continue
        with open(path) as f:
            summary = json.load(f)
        seen = set()
        for kernel, _group, _target, seconds, reached in points(summary):
            label = None
            if kernel not in seen:
                label = LABELS[kernel] + (f" ({note})" if note else "")
                seen.add(kernel)
            ax.scatter(seconds, 100 * reached, s=14, label=label,
                       facecolors="none" if hollow else COLORS[kernel],
                       edgecolors=COLORS[kernel], alpha=0.7)
    for target in (0.5, 1, 2, 4, 8):
        ax.axhline(target, color="grey", lw=0.5, ls=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("time spent on the passes, s (log)")
    ax.set_ylabel("precision reached: smallest detectable difference, % (log)")
    ax.set_title("Comparisons run to a target precision on an H200 (dotted: targets)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(prefix + ".svg")
    fig.savefig(prefix + ".png", dpi=120)


if __name__ == "__main__":
    main(*sys.argv[1:])
