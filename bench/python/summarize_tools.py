"""The table of compare_tools.py's runs (one JSON per fresh process): per operation and tool,
the median reading over the processes, its run-to-run spread ((max - min) / median) and the
median wall time the tool took.    python3 bench/python/summarize_tools.py DIR"""
import glob
import json
import os
import statistics
import sys


def main(directory):
    runs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(directory, "tools-*.json")))]
    print(f"{len(runs)} fresh processes\n")
    print("| operation | gpumeter device_busy, us | do_bench, us | CUDA events per call, us |")
    print("|---|---|---|---|")
    for op in runs[0]["rows"]:
        cells = []
        for tool in ("gpumeter", "do_bench", "events"):
            vals = [r["rows"][op][f"{tool}_us"] for r in runs]
            walls = [r["rows"][op][f"{tool}_wall_s"] for r in runs]
            med = statistics.median(vals)
            spread = (max(vals) - min(vals)) / med * 100 if med else float("nan")
            cells.append(f"{med:.4g} (spread {spread:.2g}%; {statistics.median(walls):.2f} s)")
        print(f"| {op} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tools-out")
