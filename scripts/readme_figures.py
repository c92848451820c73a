#!/usr/bin/env python3
"""The README's figures of the main job, measured and then written from bench/results.

    python3 scripts/readme_figures.py measure bench/results/DATE-first-contact-N
    python3 scripts/readme_figures.py apply bench/results/DATE-first-contact-N

``measure`` counts the build steps (``ninja -n`` of a fresh default configuration of this tree:
the main job's target and the whole build), then runs the README's main job from a fresh clone of
this tree's HEAD under ``/usr/bin/time -v`` (no compiler cache), and writes what it saw into the
folder: ``build-steps.txt``, ``main-job.time`` (GNU time's report), ``main-job.json`` (commit,
load averages before and after, wall seconds, exit code) and the command's output. ``apply``
rewrites the README's paragraph between ``<!-- main-job-figures -->`` and
``<!-- /main-job-figures -->`` from those files only: no figure in it is typed by hand.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAIN_JOB = ("bash scripts/setup.sh && cmake -S . -B build -G Ninja && cmake --build build "
            "--target gpumeter-example && ./build/examples/gpumeter-example")
BEGIN, END = "<!-- main-job-figures -->", "<!-- /main-job-figures -->"


def _steps(build: str, *targets: str) -> int:
    """The steps ninja would run for ``targets`` (all where none) in a fresh build folder."""
    out = subprocess.run(["ninja", "-n", "-C", build, *targets], check=True,
                         capture_output=True, text=True).stdout
    counts = re.findall(r"^\[\d+/(\d+)\]", out, re.M)
    return int(counts[-1]) if counts else 0


def _load() -> float:
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def measure(folder: str) -> None:
    folder = os.path.abspath(folder)  # the command runs in the clone
    os.makedirs(folder, exist_ok=True)
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], check=True,
                            capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="gpumeter-figures-") as tmp:
        clone = os.path.join(tmp, "clone")
        subprocess.run(["git", "clone", "-q", ROOT, clone], check=True)
        # The step counts: a configuration of its own, so the timed build below starts fresh.
        counted = os.path.join(tmp, "counted")
        subprocess.run(["cmake", "-S", clone, "-B", counted, "-G", "Ninja"], check=True,
                       capture_output=True)
        steps = {"main_job": _steps(counted, "gpumeter-example"), "full": _steps(counted)}
        with open(os.path.join(folder, "build-steps.txt"), "w") as f:
            f.write(f"commit {commit}\nninja -n gpumeter-example: {steps['main_job']}\n"
                    f"ninja -n (every target): {steps['full']}\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("CCACHE")}
        env.pop("CMAKE_CXX_COMPILER_LAUNCHER", None)
        load_start, start = _load(), time.monotonic()
        with open(os.path.join(folder, "main-job-output.log"), "w") as log:
            rc = subprocess.run(["/usr/bin/time", "-v", "-o",
                                 os.path.join(folder, "main-job.time"), "bash", "-c", MAIN_JOB],
                                cwd=clone, env=env, stdout=log, stderr=subprocess.STDOUT
                                ).returncode
        wall = time.monotonic() - start
        load_end = _load()
    with open(os.path.join(folder, "main-job.json"), "w") as f:
        json.dump({"commit": commit, "command": MAIN_JOB, "rc": rc, "wall_s": round(wall, 1),
                   "niceness": os.getpriority(os.PRIO_PROCESS, 0),
                   "load_start": load_start, "load_end": load_end, "cores": os.cpu_count(),
                   **{f"steps_{k}": v for k, v in steps.items()}}, f, indent=1)
        f.write("\n")
    print(f"{folder}: rc {rc}, {wall:.0f} s, steps {steps}")


def _time_field(text: str, name: str) -> str:
    m = re.search(rf"^\s*{re.escape(name)}: (.+)$", text, re.M)
    if not m:
        raise SystemExit(f"readme_figures: no '{name}' in main-job.time")
    return m.group(1).strip()


def paragraph(folder: str) -> str:
    with open(os.path.join(folder, "main-job.json")) as f:
        run = json.load(f)
    with open(os.path.join(folder, "main-job.time")) as f:
        timed = f.read()
    if run["rc"] != 0:
        raise SystemExit(f"readme_figures: the run in {folder} failed (rc {run['rc']})")
    cpu = float(_time_field(timed, "User time (seconds)")) + \
        float(_time_field(timed, "System time (seconds)"))
    rss_mib = int(_time_field(timed, "Maximum resident set size (kbytes)")) / 1024
    minutes, seconds = divmod(int(round(run["wall_s"])), 60)
    rel = os.path.relpath(folder, ROOT)
    nice = f", at niceness {run['niceness']}" if run.get("niceness") else ""
    # The conditions in words, where the folder has them.
    notes = "NOTES.md" if os.path.exists(os.path.join(folder, "NOTES.md")) else "main-job.json"
    return (f"It builds only the example and the libraries under it (not the tests, benchmarks or "
            f"other programs): {run['steps_main_job']} build steps where a full build has "
            f"{run['steps_full']} (`ninja -n`, default configuration with the CUDA toolkit "
            f"found). From a fresh clone of `{run['commit']}` on this project's "
            f"{run['cores']}-core build machine, without a compiler cache, shared with other "
            f"builds{nice} (load average {run['load_start']:.1f} at the start, "
            f"{run['load_end']:.1f} at the end: the wall time is an upper bound for an idle "
            f"machine), the whole command took {minutes} min {seconds} s of wall time "
            f"({cpu:.0f} s of CPU time, its largest process {rss_mib:.0f} MiB) "
            f"([{rel}/]({rel}/{notes}), written by `scripts/readme_figures.py`).")


def _wrap(text: str, width: int = 100) -> str:
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return "\n".join(lines + [line])


def apply(folder: str, readme: str = os.path.join(ROOT, "README.md")) -> None:
    with open(readme) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"readme_figures: {readme} has no {BEGIN} ... {END}")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(readme, "w") as f:
        f.write(head + BEGIN + "\n" + _wrap(paragraph(folder)) + "\n" + END + tail)


def main(argv: list) -> int:
    if len(argv) != 2 or argv[0] not in ("measure", "apply"):
        sys.stderr.write("usage: readme_figures.py measure|apply bench/results/FOLDER\n")
        return 2
    (measure if argv[0] == "measure" else apply)(argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
