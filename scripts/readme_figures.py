#!/usr/bin/env python3
"""The README's figures of the main job, measured and then written from bench/results.

    python3 scripts/readme_figures.py measure bench/results/DATE-first-contact-N
    python3 scripts/readme_figures.py apply bench/results/DATE-first-contact-N
    python3 scripts/readme_figures.py steps
    python3 scripts/readme_figures.py check

``measure`` counts the build steps (``ninja -n`` of a fresh default configuration of this tree:
the main job's target and the whole build), then runs the README's main job from a fresh clone of
this tree's HEAD under ``/usr/bin/time -v`` (no compiler cache), and writes what it saw into the
folder: ``build-steps.txt``, ``main-job.time`` (GNU time's report), ``main-job.json`` (commit,
load averages before and after, wall seconds, exit code) and the command's output. ``apply``
rewrites the README's paragraph between ``<!-- main-job-figures -->`` and
``<!-- /main-job-figures -->``: its times from those files, its two step counts from a fresh
configuration of the tree as it is (the steps change with the tree; the times are of the commit
the paragraph names). No figure in it is typed by hand.

``steps`` rewrites the paragraph with the step counts of the tree as it is and the times of the
folder it already names. ``check`` (the test ``structure.readme_build_steps``) exits 1 where the
README's two counts are not those of a fresh configuration of this tree, and 77 (skipped, saying
why) where that configuration finds no CUDA toolkit: the README's counts are of a configuration
with it, and one without has fewer steps.
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


def count_steps(root: str = ROOT) -> dict:
    """The steps of a fresh default configuration of ``root`` (a temporary build folder): the
    main job's target and every target, and whether the configuration found the CUDA toolkit."""
    with tempfile.TemporaryDirectory(prefix="gpumeter-steps-") as build:
        configured = subprocess.run(["cmake", "-S", root, "-B", build, "-G", "Ninja"],
                                    capture_output=True, text=True)
        if configured.returncode != 0:
            raise SystemExit(f"readme_figures: cmake -S {root} failed:\n{configured.stdout}"
                             f"{configured.stderr}")
        # CMakeLists.txt says which backend it configured in one line.
        cuda = re.search(r"gpumeter: CUDA backend (ON|OFF)", configured.stdout)
        if cuda is None:
            raise SystemExit("readme_figures: the configuration did not say 'gpumeter: CUDA "
                             "backend ON|OFF' (CMakeLists.txt's status line)")
        return {"main_job": _steps(build, "gpumeter-example"), "full": _steps(build),
                "cuda": cuda.group(1) == "ON"}


# The README's sentence holding the two counts (what ``paragraph`` writes).
STEPS_WORDS = re.compile(r"(\d+) build steps where a full build has\s+(\d+)")
# The results folder the paragraph links to.
FOLDER_LINK = re.compile(r"\[(bench/results/[^\]/]+)/\]")


def _paragraph_of(readme: str) -> str:
    with open(readme) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"readme_figures: {readme} has no {BEGIN} ... {END}")
    return text.split(BEGIN, 1)[1].split(END, 1)[0]


def readme_steps(readme: str) -> tuple:
    """The main job's and the full build's step counts the README's paragraph states."""
    m = STEPS_WORDS.search(_paragraph_of(readme))
    if m is None:
        raise SystemExit(f"readme_figures: {readme}'s main-job paragraph states no "
                         "'N build steps where a full build has M'")
    return int(m.group(1)), int(m.group(2))


def check(readme: str = os.path.join(ROOT, "README.md")) -> int:
    stated = readme_steps(readme)
    counted = count_steps()
    if not counted["cuda"]:
        # Like with like: the README's counts are of a configuration with the CUDA toolkit.
        print("SKIP: this machine's configuration finds no CUDA toolkit (no nvcc), and the "
              "README's build steps are of one that finds it")
        return 77
    now = (counted["main_job"], counted["full"])
    if stated != now:
        print(f"readme_figures: {os.path.relpath(readme, ROOT)} says {stated[0]} build steps for "
              f"the main job and {stated[1]} for a full build; a fresh configuration of this tree "
              f"gives {now[0]} and {now[1]} (ninja -n). Fix: python3 scripts/readme_figures.py "
              "steps")
        return 1
    print(f"README.md's build steps are this tree's: {now[0]} of {now[1]}")
    return 0


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
        steps = count_steps(clone)
        steps.pop("cuda")
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


def paragraph(folder: str, steps: dict) -> str:
    """The README's paragraph: the times of the run in ``folder``, the step counts ``steps`` (of
    the tree as it is: count_steps)."""
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
    # The times are of the run's commit, whose steps may be others: both are said.
    then = ""
    if (run["steps_main_job"], run["steps_full"]) != (steps["main_job"], steps["full"]):
        then = f" ({run['steps_main_job']} steps of {run['steps_full']} then)"
    return (f"It builds only the example and the libraries under it (not the tests, benchmarks or "
            f"other programs): {steps['main_job']} build steps where a full build has "
            f"{steps['full']} (`ninja -n` of this tree, default configuration with the CUDA "
            f"toolkit found; the test `structure.readme_build_steps` checks both). From a fresh "
            f"clone of `{run['commit']}`{then} on this project's "
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
    _paragraph_of(readme)  # refused before anything is counted where it has none
    steps = count_steps()
    if not steps["cuda"]:
        raise SystemExit("readme_figures: this machine's configuration finds no CUDA toolkit; the "
                         "README's build steps are of one that finds it")
    with open(readme) as f:
        text = f.read()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(readme, "w") as f:
        f.write(head + BEGIN + "\n" + _wrap(paragraph(folder, steps)) + "\n" + END + tail)


def rewrite_steps(readme: str = os.path.join(ROOT, "README.md")) -> None:
    m = FOLDER_LINK.search(_paragraph_of(readme))
    if m is None:
        raise SystemExit(f"readme_figures: {readme}'s main-job paragraph links no bench/results "
                         "folder; run apply FOLDER")
    apply(os.path.join(ROOT, m.group(1)), readme)


def main(argv: list) -> int:
    if len(argv) == 2 and argv[0] in ("measure", "apply"):
        (measure if argv[0] == "measure" else apply)(argv[1])
        return 0
    if argv == ["steps"]:
        rewrite_steps()
        return 0
    if argv == ["check"]:
        return check()
    sys.stderr.write("usage: readme_figures.py measure|apply bench/results/FOLDER | steps | "
                     "check\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
