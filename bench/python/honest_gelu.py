"""The issue's honest baseline on the GPU: bf16 gelu(a @ b) of 4096^3, measured as the present
code measures it (no fresh inputs) and with fresh inputs and answers checked while timed, with
the wall time to an answer of each; and an A-against-A comparison both ways. One JSON line per
reading on stdout; a table on stderr.

    python bench/python/honest_gelu.py [--n 4096] [--repeat 3]
"""
import argparse
import json
import sys
import time

import torch

import gpumeter


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    n = args.n
    dev = "cuda"

    def make(seed):
        g = torch.Generator(device=dev).manual_seed(seed)
        a = torch.randn(n, n, device=dev, dtype=torch.bfloat16, generator=g)
        b = torch.randn(n, n, device=dev, dtype=torch.bfloat16, generator=g)
        return (a, b)

    def ref(a, b):
        return torch.nn.functional.gelu(a @ b)

    def again(a, b):
        return torch.nn.functional.gelu(torch.matmul(a, b))

    fixed = make(12345)
    rows = []
    for k in range(args.repeat):
        t0 = time.perf_counter()
        r = gpumeter.measure(lambda: ref(*fixed), flops=2 * n**3, name="gelu")
        t1 = time.perf_counter()
        rows.append({"mode": "measure, fixed inputs", "run": k,
                     "device_busy_us": r.device_busy.median_ns / 1e3, "wall_s": t1 - t0,
                     "checked": r.checked_iterations})
        t0 = time.perf_counter()
        r = gpumeter.measure(ref, fresh_inputs=make, flops=2 * n**3, name="gelu")
        t1 = time.perf_counter()
        rows.append({"mode": "measure, fresh inputs", "run": k,
                     "device_busy_us": r.device_busy.median_ns / 1e3, "wall_s": t1 - t0,
                     "checked": r.checked_iterations})
        for fresh in (False, True):
            t0 = time.perf_counter()
            if fresh:
                c = gpumeter.compare({"ref": ref, "again": again}, fresh_inputs=make,
                                     rtol=2e-2, atol=2e-2, name="gelu")
            else:
                c = gpumeter.compare({"ref": lambda: ref(*fixed), "again": lambda: again(*fixed)},
                                     rtol=2e-2, atol=2e-2, name="gelu")
            t1 = time.perf_counter()
            cmp = c.comparisons[0]
            rows.append({"mode": "A vs A, " + ("fresh inputs, checked" if fresh else "fixed"),
                         "run": k,
                         "device_busy_us": c.results["again"].device_busy.median_ns / 1e3,
                         "wall_s": t1 - t0, "checked": c.results["again"].checked_iterations,
                         "difference_found": bool(cmp.difference and (cmp.difference.slower or cmp.difference.faster)),
                         "sentence": str(cmp)})
    for r in rows:
        print(json.dumps(r), flush=True)
    for r in rows:
        sys.stderr.write(f"{r['mode']:<32} run {r['run']}  {r['device_busy_us']:9.2f} us  "
                         f"wall {r['wall_s']:6.2f} s  checked {r['checked']}"
                         f"{'  DIFFERENCE' if r.get('difference_found') else ''}\n")


if __name__ == "__main__":
    main()
