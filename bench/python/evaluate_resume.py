"""A batch of `gpumeter evaluate` killed and resumed, and the same batch dealt to shards and
merged (issue 54), against the same batch run whole in one task, on one machine.

1. whole: the batch of N candidates (bench/python/evaluate_warm.py's mix) in one task;
2. killed: the same batch started again with a fresh journal, its `gpumeter evaluate` process
   sent SIGKILL once the journal holds K lines, then run again with `--resume` on that journal;
3. shards: the batch dealt with `--shard k/S` for k in 0..S-1 (one after the other here; on a
   cluster, S tasks), then `--merge` of the S journals.

Prints, for each: lines, duplicate names, candidates missing, wall seconds, and how many verdicts
differ from the whole run's (timed verdicts compared as timed, as in evaluate_warm.py); and for
the kill, the lines the killed run had written, whether they all stood after --resume and how many
of the killed run's processes (tagged by an environment variable) were still alive 5 s later.

    PYTHONPATH=tests/python python bench/python/evaluate_resume.py --n 100 --kill-at 50 --out DIR
    PYTHONPATH=tests/python python bench/python/evaluate_resume.py --n 12 --kill-at 6 \\
        --timing host --out DIR
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evaluate_warm  # noqa: E402  (the batch's mix and the verdict comparison)


def command(args, variant, listing, jsonl, out, extra):
    problem = "exploits.problem:" + ("gpu" if variant == "gpu" else "host")
    cmd = [sys.executable, "-m", "gpumeter", "evaluate", "--reference", problem + "_reference",
           "--inputs", problem + "_inputs", "--timing", args.timing, "--start", args.start,
           "--candidates", listing, "--out", out, "--jsonl", jsonl,
           "--timeout", str(args.timeout)]
    cmd += ["--budget", "1,4"] if variant == "host" else ["--rtol", "2e-2", "--atol", "1e-1"]
    return cmd + extra


def environment(tag=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.abspath(evaluate_warm.TESTS)] +
                                        [p for p in sys.path if p])
    if tag:
        env["GPUMETER_BENCH_TAG"] = tag
    return env


def lines_of(path):
    if not os.path.exists(path):
        return []
    out = []
    for text in open(path).read().splitlines():
        try:
            out.append(json.loads(text))
        except ValueError:
            out.append({"candidate": None, "verdict": "<unreadable line>"})
    return out


def tagged_alive(tag):
    """Processes still running with GPUMETER_BENCH_TAG=tag in their environment."""
    alive = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"GPUMETER_BENCH_TAG={tag}".encode() in f.read().split(b"\0"):
                    alive.append(int(pid))
        except OSError:
            continue
    return alive


def run(cmd, env, log):
    began = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env,
                          cwd=os.path.abspath(evaluate_warm.TESTS))
    with open(log, "w") as f:
        f.write(proc.stderr)
    return proc.returncode, time.monotonic() - began


def compare(whole, lines, names):
    seen = [x.get("candidate") for x in lines]
    by_name = {x["candidate"]: x for x in whole}
    differ = [x["candidate"] for x in lines
              if x.get("candidate") in by_name and not evaluate_warm.same(by_name[x["candidate"]], x)]
    return {"lines": len(lines), "duplicates": len(seen) - len(set(seen)),
            "missing": sorted(set(names) - set(seen)), "differ_from_whole": differ}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--kill-at", type=int, default=50)
    p.add_argument("--shards", type=int, default=4)
    p.add_argument("--timing", default="auto", choices=("auto", "cupti", "events", "host"))
    p.add_argument("--start", default="warm", choices=("warm", "cold"))
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--whole", help="a journal of this batch run whole already (skips step 1)")
    p.add_argument("--out", default="evaluate-resume-bench")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    out = os.path.abspath(args.out)
    variant = "gpu" if args.timing != "host" and evaluate_warm._gpu_usable() else "host"
    specs = evaluate_warm.batch(args.n, variant)
    names = [s.split("=", 1)[0] for s in specs]
    listing = os.path.join(out, "candidates.txt")
    with open(listing, "w") as f:
        f.write("\n".join(specs) + "\n")
    report = {"n": len(specs), "variant": variant, "timing": args.timing, "start": args.start,
              "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}

    whole_jsonl = args.whole or os.path.join(out, "whole.jsonl")
    if not args.whole:
        if os.path.exists(whole_jsonl):
            os.remove(whole_jsonl)
        rc, wall = run(command(args, variant, listing, whole_jsonl, os.path.join(out, "runs-whole"),
                               []), environment(), os.path.join(out, "whole.stderr"))
        report["whole"] = {"exit": rc, "wall_s": round(wall, 1)}
    whole = lines_of(whole_jsonl)
    report.setdefault("whole", {}).update(compare(whole, whole, names))

    # 2. Killed at K lines, then resumed.
    killed_jsonl = os.path.join(out, "killed.jsonl")
    if os.path.exists(killed_jsonl):
        os.remove(killed_jsonl)
    tag = f"resume-{os.getpid()}-{time.time_ns()}"
    cmd = command(args, variant, listing, killed_jsonl, os.path.join(out, "runs-killed"), [])
    began = time.monotonic()
    with open(os.path.join(out, "killed.stderr"), "w") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=environment(tag),
                                cwd=os.path.abspath(evaluate_warm.TESTS))
        while proc.poll() is None and len(lines_of(killed_jsonl)) < args.kill_at:
            time.sleep(0.05)
        killed_after = len(lines_of(killed_jsonl))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    time.sleep(5)
    left_alive = tagged_alive(tag)
    survivors = []
    for pid in left_alive:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                survivors.append(f.read().replace(b"\0", b" ").decode(errors="replace")[:200])
        except OSError:
            pass
    before = lines_of(killed_jsonl)
    rc, wall = run(cmd + ["--resume"], environment(), os.path.join(out, "resumed.stderr"))
    after = lines_of(killed_jsonl)
    report["killed"] = {"lines_when_killed": killed_after, "lines_before_resume": len(before),
                        "killed_wall_s": round(time.monotonic() - began - wall, 1),
                        "processes_alive_5s_after_kill": len(left_alive),
                        "survivors": survivors,
                        "resume_exit": rc, "resume_wall_s": round(wall, 1),
                        "earlier_lines_stood": before == after[:len(before)],
                        **compare(whole, after, names)}
    for pid in left_alive:  # leave the machine as found
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass

    # 3. Shards, one after the other, then merged.
    journals, walls = [], []
    for k in range(args.shards):
        j = os.path.join(out, f"shard{k}.jsonl")
        if os.path.exists(j):
            os.remove(j)
        rc, wall = run(command(args, variant, listing, j, os.path.join(out, f"runs-shard{k}"),
                               ["--shard", f"{k}/{args.shards}"]), environment(),
                       os.path.join(out, f"shard{k}.stderr"))
        journals.append(j)
        walls.append(round(wall, 1))
    merged = os.path.join(out, "merged.jsonl")
    if os.path.exists(merged):
        os.remove(merged)
    rc, _ = run([sys.executable, "-m", "gpumeter", "evaluate", "--candidates", listing,
                 "--jsonl", merged, "--merge", *journals], environment(),
                os.path.join(out, "merge.stderr"))
    report["shards"] = {"shards": args.shards, "wall_s": walls, "merge_exit": rc,
                        "shard_lines": [len(lines_of(j)) for j in journals],
                        **compare(whole, lines_of(merged), names)}

    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(f"gpumeter evaluate, {len(specs)} candidates ({variant} variants, --timing "
          f"{args.timing}, --start {args.start})")
    for key in ("whole", "killed", "shards"):
        r = dict(report[key])
        r["missing"] = len(r["missing"])
        r["differ_from_whole"] = r["differ_from_whole"][:8]
        print(f"{key}: {json.dumps(r)}")


if __name__ == "__main__":
    main()
