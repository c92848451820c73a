"""A against A on the host clock with both cores busy, through each front end a user meets
(issue 51, "What it must show"): how often a difference is claimed between a function and a copy
of itself, and whether a function doing 3x the work is still caught.

    PYTHONPATH=python:bench/python python bench/python/host_a_vs_a.py --out DIR
        [--n 100] [--slow 20] [--parts compare,pytest,evaluate] [--busy 2]

Starts --busy `yes > /dev/null` processes itself (ended by their pids at the end) and reads the
1-minute load average before and after each part. The work is bench/python/host_work.py (an
interpreter loop of about 60 us). Each part counts the claims of a difference among --n
comparisons of the function with its copy, and the 3x slower function called slower among
--slow:

- compare: gpumeter.compare({"a": reference, "b": copy}, timing="host") in this process, judged
  by the comparison's verdict (claimed = a directional difference);
- pytest: the gate, as a user runs it: a session of --n tests, each measuring the work through
  the plugin's fixture, saves a baseline; a second session gates the same tests against it
  (--gpumeter-fail-on-regression 10%): each failed test is a claim; a third session with the 3x
  slower work (--slow tests) must fail every test;
- evaluate: `gpumeter evaluate --timing host` with --n copies of the reference as candidates in
  one batch (--candidates FILE), then --slow 3x slower ones: a verdict "faster" or "slower" is a
  claim. Each batch's wall time is reported.

Writes DIR/summary.json and DIR/output.txt (what it printed), and each part's files.
--before: the gpumeter on PYTHONPATH predates `evaluate --candidates` (candidates passed as
arguments) and `--start` (1e2b62c).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def child_env(extra=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([HERE] + [p for p in sys.path if p])
    # Host work on a lock file of its own and no device, as the plugin's tests run it.
    env["CUDA_VISIBLE_DEVICES"] = ""
    env.setdefault("GPU_LOCK", os.path.join(env.get("TMPDIR", "/tmp"), "host-a-vs-a.lock"))
    env["COLUMNS"] = "400"
    env.update(extra or {})
    return env


def part_compare(args, out):
    import gpumeter
    import host_work
    xs = host_work.fixed()

    def one(b):
        c = gpumeter.compare({"a": lambda: host_work.reference(*xs), "b": b}, timing="host",
                             lock=False, budget=args.budget)
        comp = c.comparisons[0]
        # `resolution` in every version (1e2b62c's binding has no `claimed`).
        claimed = comp.ratio is not None and \
            str(comp.ratio.resolution).replace(" ", "_") == "directional_difference"
        return claimed, comp.median_ratio, str(comp)

    lines = []
    same = slower = 0
    for i in range(args.n):
        claimed, ratio, text = one(lambda: host_work.copy(*xs))
        same += claimed
        lines.append(f"a_vs_a,{i + 1},{ratio:.4f},{int(claimed)},{text}")
    for i in range(args.slow):
        claimed, ratio, text = one(lambda: host_work.slow3(*xs))
        slower += claimed and ratio > 1
        lines.append(f"a_vs_3a,{i + 1},{ratio:.4f},{int(claimed)},{text}")
    with open(os.path.join(out, "compare.csv"), "w") as f:
        f.write("kind,index,median_ratio,claimed,sentence\n" + "\n".join(lines) + "\n")
    return {"claims": same, "of": args.n, "slower_caught": slower, "slower_of": args.slow}


PYTEST_FILE = '''"""bench/python/host_a_vs_a.py's tests: the work measured through the plugin's fixture."""
import os

import pytest

import host_work

XS = host_work.fixed()
SLOW = os.environ.get("HOST_WORK_SLOW") == "1"
COUNT = int(os.environ["HOST_WORK_TESTS"])
BUDGET = {budget!r}


@pytest.mark.parametrize("i", range(COUNT))
def test_work(gpumeter, i):
    fn = host_work.slow3 if SLOW else host_work.reference
    kwargs = {{"budget": BUDGET}} if BUDGET else {{}}
    gpumeter.measure(lambda: fn(*XS), timing="host", name="work", **kwargs)
'''


def _plugin_installed():
    """Whether an installed gpumeter registers its pytest plugin (the pytest11 entry point)."""
    import importlib.metadata
    return any(e.value.split(":")[0] == "gpumeter_pytest"
               for e in importlib.metadata.entry_points(group="pytest11"))


def pytest_session(args, project, tests, extra_args, slow):
    env = child_env({"HOST_WORK_TESTS": str(tests), "HOST_WORK_SLOW": "1" if slow else "0"})
    began = time.monotonic()
    # The plugin by name only where no installed package registers it (its entry point): pytest
    # refuses a plugin loaded twice.
    plugin = [] if _plugin_installed() else ["-p", "gpumeter_pytest"]
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *plugin,
                        "-rA", "-q", "test_work.py", *extra_args],
                       cwd=project, env=env, capture_output=True, text=True)
    wall = time.monotonic() - began
    failed = len(re.findall(r"^FAILED ", p.stdout, re.M))
    passed = len(re.findall(r"^PASSED ", p.stdout, re.M))
    return p, failed, passed, wall


def part_pytest(args, out):
    project = os.path.join(out, "pytest")
    os.makedirs(project, exist_ok=True)
    with open(os.path.join(project, "test_work.py"), "w") as f:
        f.write(PYTEST_FILE.format(budget=args.budget))
    gate = ["--gpumeter-compare", "base", "--gpumeter-fail-on-regression", f"{args.gate:g}%"]
    result = {}
    for what, tests, extra, slow in (("save", args.n, ["--gpumeter-save", "base"], False),
                                     ("a_vs_a", args.n, gate, False),
                                     ("a_vs_3a", args.slow, gate, True)):
        p, failed, passed, wall = pytest_session(args, project, tests, extra, slow)
        with open(os.path.join(out, f"pytest-{what}.txt"), "w") as f:
            f.write(f"rc {p.returncode}\n{p.stdout}{p.stderr}")
        result[what] = {"rc": p.returncode, "failed": failed, "passed": passed,
                        "wall_s": round(wall, 1)}
    return {"claims": result["a_vs_a"]["failed"], "of": args.n,
            "slower_caught": result["a_vs_3a"]["failed"], "slower_of": args.slow,
            "gate_pct": args.gate, "sessions": result}


def evaluate_batch(args, out, name, spec, count):
    specs = [f"{name}{i}={spec}" for i in range(count)]
    listing = os.path.join(out, f"{name}-candidates.txt")
    with open(listing, "w") as f:
        f.write("\n".join(specs) + "\n")
    jsonl = os.path.join(out, f"evaluate-{name}.jsonl")
    if os.path.exists(jsonl):
        os.remove(jsonl)
    cmd = [sys.executable, "-m", "gpumeter", "evaluate", "--reference", "host_work:reference",
           "--inputs", "host_work:inputs", "--timing", "host", "--out",
           os.path.join(out, f"evaluate-{name}"), "--jsonl", jsonl]
    if args.budget:
        cmd += ["--budget", ",".join(str(x) for x in args.budget)]
    cmd += specs if args.before else ["--candidates", listing]
    began = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), cwd=out)
    wall = time.monotonic() - began
    with open(os.path.join(out, f"evaluate-{name}.stderr"), "w") as f:
        f.write(f"$ {' '.join(cmd[1:3])} ... (rc {p.returncode}, {wall:.1f} s)\n{p.stderr}")
    lines = []
    if os.path.exists(jsonl):
        lines = [json.loads(x) for x in open(jsonl).read().splitlines() if x.strip()]
    verdicts = {}
    for x in lines:
        verdicts[x.get("verdict")] = verdicts.get(x.get("verdict"), 0) + 1
    return {"rc": p.returncode, "wall_s": round(wall, 1), "candidates": len(lines),
            "verdicts": verdicts}


def part_evaluate(args, out):
    same = evaluate_batch(args, out, "copy", "host_work:copy", args.n)
    slow = evaluate_batch(args, out, "slow", "host_work:slow3", args.slow)
    return {"claims": same["verdicts"].get("faster", 0) + same["verdicts"].get("slower", 0),
            "of": args.n, "slower_caught": slow["verdicts"].get("slower", 0),
            "slower_of": args.slow, "copy_batch": same, "slow_batch": slow}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--n", type=int, default=100, help="A-against-A comparisons (default 100)")
    p.add_argument("--slow", type=int, default=20, help="3x slower comparisons (default 20)")
    p.add_argument("--parts", default="compare,pytest,evaluate")
    p.add_argument("--busy", type=int, default=2, help="`yes` processes beside (default 2)")
    p.add_argument("--gate", type=float, default=10.0,
                   help="the pytest gate's --gpumeter-fail-on-regression, in percent (default 10)")
    p.add_argument("--budget", default="",
                   help="WARMUP_MS,MEASURE_MS for every part (default: gpumeter's)")
    p.add_argument("--before", action="store_true",
                   help="the gpumeter of 1e2b62c: evaluate's candidates as arguments")
    args = p.parse_args()
    args.budget = tuple(float(x) for x in args.budget.split(",")) if args.budget else None
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    import gpumeter
    busy = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(args.busy)]
    summary = {"argv": sys.argv, "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "cpus": os.cpu_count(), "gpumeter": getattr(gpumeter, "__file__", ""),
               "busy": args.busy, "budget": args.budget, "parts": {}}
    report = []
    try:
        time.sleep(2)
        for part in args.parts.split(","):
            began = time.monotonic()
            load_before = load_average()
            r = {"compare": part_compare, "pytest": part_pytest,
                 "evaluate": part_evaluate}[part](args, out)
            r["load_average"] = [load_before, load_average()]
            r["wall_s"] = round(time.monotonic() - began, 1)
            summary["parts"][part] = r
            line = (f"{part}: A against A: {r['claims']} claimed of {r['of']}; 3x slower: "
                    f"{r['slower_caught']} caught of {r['slower_of']}; load average "
                    f"{r['load_average'][0]} to {r['load_average'][1]}; {r['wall_s']} s")
            print(line, flush=True)
            report.append(line)
    finally:
        for y in busy:
            y.kill()
            y.wait()
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    with open(os.path.join(out, "output.txt"), "w") as f:
        f.write("\n".join(report) + "\n")


if __name__ == "__main__":
    main()
