"""The phases and sweeps of examples/python on a GPU, each written as a record under OUT.

    python bench/python/phases_sweeps.py OUT [--processes P] [--only phases|nvrtc|sweeps]

- phases of saxpy (1M float32) in Warp, CuPy (NVRTC) and PyTorch: process start to N calls;
- phases of the same kernel compiled by NVRTC against loaded from nvcc's cubin
  ($GPUMETER_SAXPY_CUBIN);
- the sweeps of examples/python/sweeps.py: a copy from 1e4 to 1e9 bytes, and two saxpys that cross.
Each record's report is printed; plots are drawn from the records afterwards (gpumeter plot).
"""

import argparse
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples", "python"))


def have(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--processes", type=int, default=3)
    p.add_argument("--only", default="phases,nvrtc,sweeps")
    a = p.parse_args()
    import gpumeter

    os.makedirs(a.out, exist_ok=True)
    only = a.only.split(",")
    n = 1 << 20
    status = 0
    if "phases" in only:
        candidates = {k: f"warp_saxpy:{k}_candidate" for k in ("warp", "cupy", "torch")
                      if have(k if k != "torch" else "torch")}
        try:
            r = gpumeter.phases(candidates, name="saxpy", params={"n": n},
                                processes=a.processes, calls=(1, 10, 100, 1000, 3000))
            print(r)
            print("record:", gpumeter.write_record(r.record, a.out))
        except gpumeter.Error as e:
            print(f"PHASES FAILED: {type(e).__name__}: {e}")
            status = 1
    if "nvrtc" in only:
        try:
            r = gpumeter.phases({"nvrtc": "warp_saxpy:cupy_nvrtc_candidate",
                                 "cubin": "warp_saxpy:cupy_cubin_candidate"},
                                name="saxpy-build", params={"n": n}, processes=a.processes,
                                calls=(1, 10, 100))
            print(r)
            print("record:", gpumeter.write_record(r.record, a.out))
        except gpumeter.Error as e:
            print(f"NVRTC FAILED: {type(e).__name__}: {e}")
            status = 1
    if "sweeps" in only:
        import sweeps

        try:
            sweeps.main(a.out)
        except gpumeter.Error as e:
            print(f"SWEEPS FAILED: {type(e).__name__}: {e}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
