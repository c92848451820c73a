"""Seconds per candidate of `gpumeter evaluate`, cold start against warm start, in one run
(issue 54): the same batch of N candidates (honest copies, slower and faster ones, wrong ones and
every exploit of tests/python/exploits that runs in this mode) evaluated with `--start cold` (a
fresh interpreter per candidate) and with `--start warm` (each forked from a process that imported
gpumeter, the framework and the evaluator's modules), one after the other, on the same machine.

Prints, for each start: the batch's wall time, the median and mean of the candidates' own
seconds (their processes, from start to end, in their JSON lines) and of the wall time per
candidate; then whether every candidate's verdict is the same both ways (timed verdicts, faster,
slower or no difference, compared as timed: two runs of an honest candidate may read either).

    PYTHONPATH=tests/python python bench/python/evaluate_warm.py --n 100 --out DIR
    PYTHONPATH=tests/python python bench/python/evaluate_warm.py --n 20 --timing host --out DIR

With a usable GPU and the default --timing auto: the GPU variants (bf16 gelu(a @ b) of
GPUMETER_EXPLOIT_N, default 1024); else, or with --timing host, the host variants (NumPy).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "..", "tests", "python")
TIMED = {"faster", "slower", "no difference"}

# Exploits that need another mode than a plain batch (outputs, another problem, a second
# process of their own on purpose, a hang to its timeout): left out, by name.
_SPECIAL = {"problem", "honest", "broken", "lazy", "constant_answer", "__init__"}


def _gpu_usable():
    try:
        import gpumeter
        return gpumeter._gpumeter.has_cuda() and gpumeter.env().get("device") is not None
    except Exception:  # noqa: BLE001
        return False


def batch(n, variant):
    """N candidate specs: the exploits once each, then honest, slower, faster and wrong ones in
    turn until there are N."""
    folder = os.path.join(TESTS, "exploits")
    names = sorted(f[:-3] for f in os.listdir(folder) if f.endswith(".py"))
    specs = []
    for module in names:
        if module in _SPECIAL:
            continue
        with open(os.path.join(folder, module + ".py")) as f:
            if f"\ndef {variant}(" in f.read():
                specs.append(f"{module}=exploits.{module}:{variant}")
    specs += ["raises=exploits.broken:raises", "exits=exploits.broken:exits",
              "generator=exploits.lazy:host_generator"]
    fill = [("honest", f"exploits.honest:{variant}"),
            ("wrong", f"exploits.memo_first_call:{variant}"),
            # slower (host) or faster (GPU: cuBLASLt's fused epilogue) and honest
            ("slow", "exploits.honest:host_slow") if variant == "host" else
            ("fast", "exploits.honest:gpu_fused")]
    i = 0
    while len(specs) < n:
        name, spec = fill[i % len(fill)]
        specs.append(f"{name}{i}={spec}")
        i += 1
    return specs[:n]


def run(start, specs, args, variant, out):
    listing = os.path.join(out, "candidates.txt")
    with open(listing, "w") as f:
        f.write("\n".join(specs) + "\n")
    jsonl = os.path.join(out, f"{start}.jsonl")
    if os.path.exists(jsonl):
        os.remove(jsonl)
    problem = "exploits.problem:" + ("gpu" if variant == "gpu" else "host")
    cmd = [sys.executable, "-m", "gpumeter", "evaluate", "--reference", problem + "_reference",
           "--inputs", problem + "_inputs", "--timing", args.timing, "--start", start,
           "--candidates", listing, "--out", os.path.join(out, f"runs-{start}"), "--jsonl",
           jsonl, "--timeout", str(args.timeout)]
    if variant == "host":
        cmd += ["--budget", "1,4"]
    else:
        cmd += ["--rtol", "2e-2", "--atol", "1e-1"]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.abspath(TESTS)] +
                                        [p for p in sys.path if p])
    began = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env,
                          cwd=os.path.abspath(TESTS))
    wall = time.monotonic() - began
    with open(os.path.join(out, f"{start}.stderr"), "w") as f:
        f.write(proc.stderr)
    lines = [json.loads(x) for x in open(jsonl).read().splitlines()] if os.path.exists(jsonl) \
        else []
    return {"start": start, "exit": proc.returncode, "wall_s": wall, "lines": lines,
            "first_lines": proc.stderr.splitlines()[:3]}


def summary(r, n):
    seconds = [x["seconds"] for x in r["lines"] if isinstance(x.get("seconds"), (int, float))]
    return {"start": r["start"], "exit": r["exit"], "candidates": len(r["lines"]),
            "batch_wall_s": round(r["wall_s"], 2),
            "wall_s_per_candidate": round(r["wall_s"] / max(1, n), 3),
            "candidate_seconds_median": round(statistics.median(seconds), 3) if seconds else None,
            "candidate_seconds_mean": round(statistics.mean(seconds), 3) if seconds else None,
            "first_lines": r["first_lines"]}


def same(a, b):
    if a["verdict"] in TIMED or b["verdict"] in TIMED:
        return a["verdict"] in TIMED and b["verdict"] in TIMED and a["correct"] == b["correct"]
    return a["verdict"] == b["verdict"] and a["correct"] == b["correct"]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=100, help="candidates in the batch (default 100)")
    p.add_argument("--timing", default="auto", choices=("auto", "cupti", "events", "host"))
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--out", default="evaluate-warm-bench")
    p.add_argument("--order", default="cold,warm",
                   help="which start runs first (default cold,warm)")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    variant = "gpu" if args.timing != "host" and _gpu_usable() else "host"
    specs = batch(args.n, variant)
    results = {}
    for start in args.order.split(","):
        results[start] = run(start, specs, args, variant, args.out)
    rows = [summary(results[s], len(specs)) for s in results]
    cold, warm = results.get("cold"), results.get("warm")
    differ = []
    if cold and warm:
        w = {x["candidate"]: x for x in warm["lines"]}
        for x in cold["lines"]:
            y = w.get(x["candidate"])
            if y is None or not same(x, y):
                differ.append({"candidate": x["candidate"], "cold": x["verdict"],
                               "warm": None if y is None else y["verdict"]})
    out = {"n": len(specs), "variant": variant, "timing": args.timing, "python": sys.version,
           "cpus": os.cpu_count(), "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "starts": rows, "verdicts_differ": differ}
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(out, f, indent=1)
    print(f"gpumeter evaluate, {len(specs)} candidates ({variant} variants, --timing "
          f"{args.timing}), {os.cpu_count()} CPUs")
    print(f"{'start':<6} {'exit':>4} {'batch s':>9} {'wall s/cand':>12} {'cand s median':>14} "
          f"{'cand s mean':>12}")
    for r in rows:
        print(f"{r['start']:<6} {r['exit']:>4} {r['batch_wall_s']:>9.2f} "
              f"{r['wall_s_per_candidate']:>12.3f} {r['candidate_seconds_median']!s:>14} "
              f"{r['candidate_seconds_mean']!s:>12}")
    for r in rows:
        print(f"{r['start']}: {r['first_lines'][0] if r['first_lines'] else ''}")
    if not (cold and warm):
        print("verdicts cold against warm: not compared (one start only: --order cold,warm "
              "runs both)")
    else:
        print(f"verdicts the same cold and warm: {'yes' if not differ else 'NO'}"
              f" ({len(differ)} differ{': ' + json.dumps(differ[:10]) if differ else ''})")


if __name__ == "__main__":
    main()
