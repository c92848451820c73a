"""gpumeter beside triton.testing.do_bench and a CUDA-event pair per call, on four operations:
the reading each tool gives, and the wall time it took to give it. One process measures once;
run it in several fresh processes for the run-to-run spread (bench/python/compare_tools.sh).

    python3 bench/python/compare_tools.py --out DIR     # writes DIR/tools-<pid>.json and a record
"""
import argparse
import json
import os
import statistics
import time

import torch
import triton

import gpumeter


def operations():
    tiny = torch.randn(1024, device="cuda")
    big = torch.randn(64 << 20, device="cuda")  # 256 MiB of float32
    n = 4096
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    x = torch.randn(1 << 22, device="cuda")

    def f(t):
        return torch.nn.functional.gelu(t * 1.5 + 0.25) * t

    compiled = torch.compile(f)
    compiled(x)  # compiled once, before any tool looks at it
    torch.cuda.synchronize()
    return {
        "tiny op (x + 1, 1024 floats)": lambda: tiny + 1,
        "256 MiB elementwise (x * 2 + 1)": lambda: big * 2 + 1,
        "4096^3 bf16 matmul": lambda: a @ b,
        "torch.compile'd gelu(1.5x + 0.25) * x": lambda: compiled(x),
    }


def with_events(fn, calls=200):
    """A CUDA event pair around each call: what many hand-written timers do."""
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(calls):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)  # us
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default="tools-out")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    ops = operations()
    rows = {}
    for name, fn in ops.items():
        row = {}
        t0 = time.perf_counter()
        r = gpumeter.measure(fn, name=name)
        row["gpumeter_us"] = r.device_busy.median_ns / 1e3
        row["gpumeter_latency_us"] = r.latency.median_ns / 1e3
        row["gpumeter_wall_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        row["do_bench_us"] = triton.testing.do_bench(fn, return_mode="median") * 1e3
        row["do_bench_wall_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        row["events_us"] = with_events(fn)
        row["events_wall_s"] = time.perf_counter() - t0
        rows[name] = row
        print(f"{name}: gpumeter {row['gpumeter_us']:.3f} us ({row['gpumeter_wall_s']:.2f} s), "
              f"do_bench {row['do_bench_us']:.3f} us ({row['do_bench_wall_s']:.2f} s), "
              f"events {row['events_us']:.3f} us ({row['events_wall_s']:.2f} s)", flush=True)
    path = os.path.join(args.out, f"tools-{os.getpid()}.json")
    with open(path, "w") as f:
        json.dump({"pid": os.getpid(), "rows": rows}, f, indent=2)


if __name__ == "__main__":
    main()
