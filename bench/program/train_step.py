"""A small PyTorch training step with NVTX ranges, for `gpumeter run` (docs/program-runs.md).

Each step is one `step` range holding `forward`, `backward` and `optimizer` ranges
(torch.cuda.nvtx.range), as a training script marks its parts. Backward runs on PyTorch's
autograd engine thread: `gpumeter run` counts its kernels toward `backward` (the range open on
the thread that called backward()). The first steps are a warm-up outside every range, so their
kernels are listed outside the ranges. `--slow-optimizer` makes the optimizer step deliberately
slower, for `gpumeter compare`: a device-side wait of about 40 us (torch.cuda._sleep) that touches
no memory, so the other ranges meet the same cache state as without it. (Extra passes over the
parameters would slow it too, but would also leave the parameters in the L2 for the next forward,
which then runs faster: a real effect of the program, not the one this example is about.)

    gpumeter run --repeat 3 --out runs -- python bench/program/train_step.py [--slow-optimizer]
    python bench/program/train_step.py --measure OUT.json   # gpumeter.measure of each part
"""
import argparse
import json
import sys

import torch


# About 40 us at the H200's 1980 MHz: a fifth of the optimizer step's device time.
SLOW_CYCLES = 80_000


def build(seed: int = 0):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(
        torch.nn.Linear(1024, 2048), torch.nn.GELU(),
        torch.nn.Linear(2048, 2048), torch.nn.GELU(),
        torch.nn.Linear(2048, 1024)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    x = torch.randn(256, 1024, device="cuda")
    y = torch.randn(256, 1024, device="cuda")
    return model, opt, x, y


def optimizer_step(model, opt, slow: bool) -> None:
    opt.step()
    if slow:
        torch.cuda._sleep(SLOW_CYCLES)
    opt.zero_grad(set_to_none=True)


def train(steps: int, warmup: int, slow: bool) -> None:
    model, opt, x, y = build()
    nvtx = torch.cuda.nvtx
    for i in range(warmup + steps):
        ranged = i >= warmup
        if ranged:
            nvtx.range_push("step")
            nvtx.range_push("forward")
        loss = torch.nn.functional.mse_loss(model(x), y)
        if ranged:
            nvtx.range_pop()
            nvtx.range_push("backward")
        loss.backward()
        if ranged:
            nvtx.range_pop()
            nvtx.range_push("optimizer")
        optimizer_step(model, opt, slow)
        if ranged:
            nvtx.range_pop()
            nvtx.range_pop()
    torch.cuda.synchronize()


def measure(out: str) -> None:
    """gpumeter.measure of the same three parts, each as an isolated call (L2 flushed)."""
    import gpumeter

    model, opt, x, y = build()
    state = {}

    def forward():
        state["loss"] = torch.nn.functional.mse_loss(model(x), y)

    def backward():
        state["loss"].backward()

    def prepare_backward():
        opt.zero_grad(set_to_none=True)
        forward()

    def prepare_optimizer():
        prepare_backward()
        backward()

    def timed(fn, reset, name):
        # Backward runs on the calling thread (no autograd engine thread), so CUPTI attributes
        # its kernels to the measured call: measure refuses work another thread launched.
        with torch.autograd.set_multithreading_enabled(False):
            return gpumeter.measure(fn, reset=reset, name=name), "cupti"

    results = {
        "forward": timed(forward, None, "forward"),
        "backward": timed(backward, prepare_backward, "backward"),
        "optimizer": timed(lambda: optimizer_step(model, opt, False), prepare_optimizer,
                           "optimizer"),
    }
    summary = {k: {"timing": how, "device_busy_median_ns": r.device_busy.median_ns,
                   "device_busy_p10_ns": r.device_busy.p10_ns,
                   "device_busy_p90_ns": r.device_busy.p90_ns,
                   "max_n_kernels": r.max_n_kernels} for k, (r, how) in results.items()}
    with open(out, "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
    for k, v in summary.items():
        print(f"measure {k:10s} device_busy median {v['device_busy_median_ns'] / 1e3:8.1f} us "
              f"[{v['device_busy_p10_ns'] / 1e3:.1f}, {v['device_busy_p90_ns'] / 1e3:.1f}], "
              f"{v['max_n_kernels']} kernels ({v['timing']})")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--slow-optimizer", action="store_true")
    p.add_argument("--measure", metavar="OUT_JSON")
    a = p.parse_args()
    if a.measure:
        measure(a.measure)
    else:
        train(a.steps, a.warmup, a.slow_optimizer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
