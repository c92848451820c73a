"""The training step of issue 36, for `gpumeter run` beside a PyTorch profiler trace
(scripts/device-first-contact2.sh): a bf16 MLP of four Linear(4096, 4096) + GELU layers, a batch
of 8192, torch.optim.AdamW with its defaults and zero_grad(set_to_none=True). Each step is three
NVTX ranges, forward, backward and optimizer, each closed after a torch.cuda.synchronize(), so a
range's kernels have finished when it closes. The first optimizer step creates AdamW's state
(exp_avg and exp_avg_sq zero-filled for each of the 8 parameters): fills, not kernels.

    gpumeter run --keep-parts --out runs -- python bench/program/train_bf16_mlp.py --steps 5
    python bench/program/train_bf16_mlp.py --steps 5 --profile trace.json   # the profiler's view

With --profile the same steps run under torch.profiler (CPU and CUDA activities), each range
also a record_function of the same name, and the chrome trace is written to the file given.
"""
import argparse
import contextlib
import sys

import torch

LAYERS = 4
WIDTH = 4096
BATCH = 8192


def build(seed: int = 0):
    torch.manual_seed(seed)
    layers = []
    for _ in range(LAYERS):
        layers += [torch.nn.Linear(WIDTH, WIDTH), torch.nn.GELU()]
    model = torch.nn.Sequential(*layers).to(device="cuda", dtype=torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters())  # the defaults (foreach on CUDA)
    x = torch.randn(BATCH, WIDTH, device="cuda", dtype=torch.bfloat16)
    y = torch.randn(BATCH, WIDTH, device="cuda", dtype=torch.bfloat16)
    return model, opt, x, y


@contextlib.contextmanager
def part(name: str, record_function: bool):
    """An NVTX range (and, profiled, a record_function) closed after the device has finished."""
    torch.cuda.nvtx.range_push(name)
    marker = torch.profiler.record_function(name) if record_function else contextlib.nullcontext()
    with marker:
        yield
        torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()


def train(steps: int, warmup: int, record_function: bool) -> None:
    model, opt, x, y = build()
    for i in range(warmup + steps):
        ranged = i >= warmup
        with part("forward", record_function) if ranged else contextlib.nullcontext():
            loss = torch.nn.functional.mse_loss(model(x), y)
        with part("backward", record_function) if ranged else contextlib.nullcontext():
            loss.backward()
        with part("optimizer", record_function) if ranged else contextlib.nullcontext():
            opt.step()
            opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--warmup", type=int, default=0,
                   help="steps outside every range first (default 0: the first optimizer range "
                        "holds AdamW's state creation)")
    p.add_argument("--profile", metavar="TRACE_JSON",
                   help="run under torch.profiler and write its chrome trace here")
    a = p.parse_args()
    if a.profile:
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=acts) as prof:
            train(a.steps, a.warmup, True)
        prof.export_chrome_trace(a.profile)
    else:
        train(a.steps, a.warmup, False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
