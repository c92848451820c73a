"""A GPU candidate of known durations for tests/python/test_gpu_phases.py: its kernel spins for
a set time on the device's global timer, its init sleeps, its compile goes through NVRTC (CuPy)
with the caches gpumeter empties, so every phase has a least duration the device gives."""

import time
from typing import Any, Callable, Dict

SPIN_NS = 200_000
INIT_S = 0.05

_SOURCE = r'''
extern "C" __global__ void spin_for(unsigned long long ns) {
  unsigned long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  unsigned long long now = start;
  while (now - start < ns) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
}'''


def spinner(ns: int = SPIN_NS) -> Dict[str, Callable[[], Any]]:
    s: Dict[str, Any] = {}

    def init() -> None:
        import cupy

        time.sleep(INIT_S)
        s["cp"] = cupy
        cupy.cuda.Device(0).use()

    def compile_() -> None:
        cp = s["cp"]
        s["k"] = cp.RawKernel(_SOURCE, "spin_for")
        s["k"].compile()

    def kernel() -> None:
        s["k"]((1,), (1,), (s["cp"].uint64(ns),))

    return {"init": init, "compile": compile_, "kernel": kernel, "call": kernel,
            "sync": lambda: s["cp"].cuda.Device(0).synchronize()}
