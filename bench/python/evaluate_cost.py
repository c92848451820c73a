"""What fresh inputs and checks while timed cost, and whether they change readings or claims
(issue 29), on bf16 gelu(a @ b) of N^3 (GPUMETER_EXPLOIT_N, default 4096):

- the time to an answer (the wall time of one gpumeter.compare) of the same candidates with fixed
  inputs checked once before timing, and with fresh inputs checked while timed; and the readings
  (device_busy medians) and speedups each way;
- A against A (the reference against the same operation under another name), K comparisons with
  the checks on and K without: how many claim a difference.

    PYTHONPATH=tests/python python3 bench/python/evaluate_cost.py --out DIR [--repeats K]
"""
import argparse
import json
import os
import time

import torch

import gpumeter
from exploits import honest, problem

TOL = dict(rtol=2e-2, atol=1e-1)


def timed(fn):
    t = time.monotonic()
    c = fn()
    return c, time.monotonic() - t


def fixed(name, candidate):
    a, b = problem.gpu_inputs(12345)
    return timed(lambda: gpumeter.compare(
        {"reference": lambda: problem.gpu_reference(a, b), name: lambda: candidate(a, b)},
        timing="cupti", **TOL))


def fresh(name, candidate):
    return timed(lambda: gpumeter.compare({"reference": problem.gpu_reference, name: candidate},
                                          fresh_inputs=problem.gpu_inputs, timing="cupti",
                                          **TOL))


def reading(c, name):
    r = c.results[name]
    return {"device_busy_median_ns": r.device_busy.median_ns, "n_samples": r.n_samples,
            "checked_iterations": getattr(r, "checked_iterations", None)}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--repeats", type=int, default=8)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    out = {"n": problem.gpu_n(), "cost": [], "a_vs_a": {}}
    problem.gpu_reference(*problem.gpu_inputs(1))  # cuBLAS and the allocator warm
    torch.cuda.synchronize()
    for name, fn in (("honest", honest.gpu), ("fused", honest.gpu_fused)):
        for mode, run in (("fixed inputs, checked once", fixed),
                          ("fresh inputs, checked while timed", fresh)):
            c, seconds = run(name, fn)
            cmp = c.comparisons[0]
            out["cost"].append({"candidate": name, "mode": mode, "seconds": seconds,
                                "reference": reading(c, "reference"),
                                "candidate_reading": reading(c, name),
                                "sentence": str(cmp), "estimate": cmp.estimate})
            gpumeter.write_record(c, os.path.join(args.out, "records"))
    same = lambda a, b: problem.gpu_reference(a, b)  # noqa: E731  (A under another name)
    for mode in ("off", "on"):
        claims = []
        for _ in range(args.repeats):
            if mode == "on":
                c = gpumeter.compare({"A": problem.gpu_reference, "A2": same},
                                     fresh_inputs=problem.gpu_inputs, timing="cupti", **TOL)
            else:
                a, b = problem.gpu_inputs(777)
                c = gpumeter.compare({"A": lambda: problem.gpu_reference(a, b),
                                      "A2": lambda: same(a, b)}, timing="cupti", verify=False)
            cmp = c.comparisons[0]
            claims.append({"claims": bool(cmp.faster or cmp.slower), "sentence": str(cmp)})
        out["a_vs_a"][mode] = claims
    with open(os.path.join(args.out, "evaluate-cost.json"), "w") as f:
        json.dump(out, f, indent=1)
    print(f"N={out['n']}")
    print("| candidate | mode | time to an answer (s) | reference median (us) | candidate "
          "median (us) | checked | comparison |")
    print("|---|---|---|---|---|---|---|")
    for x in out["cost"]:
        print(f"| {x['candidate']} | {x['mode']} | {x['seconds']:.2f} | "
              f"{x['reference']['device_busy_median_ns'] / 1e3:.1f} | "
              f"{x['candidate_reading']['device_busy_median_ns'] / 1e3:.1f} | "
              f"{x['candidate_reading']['checked_iterations']} | {x['sentence'][:90]} |")
    for mode, claims in out["a_vs_a"].items():
        print(f"A against A, checks {mode}: {sum(c['claims'] for c in claims)} of {len(claims)} "
              "comparisons claim a difference")


if __name__ == "__main__":
    main()
