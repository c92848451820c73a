"""Saxpy, y = a * x + y on n float32 elements, as candidates for the phases a user waits for: in
Warp, in CuPy and in PyTorch, and, for NVRTC against a precompiled kernel, in CuPy twice (the
same CUDA source, examples/python/saxpy.cu, compiled by NVRTC at run time or loaded as a cubin).

Each candidate is a function of the size that returns its steps as zero-argument callables, so a
harness can time each step on its own, in a fresh process or a warm one:

    init     import and initialise the framework, and create its CUDA context on the device
    compile  compile or load the kernel (None where the framework ships it compiled: PyTorch)
    convert  copy the host inputs into the framework's device arrays (resets y)
    call     the public call: take the host arrays, convert them, launch
    kernel   the bare launch on the arrays ``convert`` made
    sync     wait for the device through the candidate's own runtime
    capture  (Warp, PyTorch) capture the bare launch into a CUDA graph; returns its replay
    result   y copied back to the host, for checking against ``expected(n)``

The steps run in that order; ``kernel`` needs ``compile`` and ``convert`` before it. Nothing
heavy is imported when this module is: each candidate imports its framework in ``init``, so a
child process that imports this file measures the framework's import in ``init``, not before.

Kernel caches decide what ``compile`` measures: empty for a cold compile, warm for a cached
load. Warp's is WARP_CACHE_PATH (or warp.config.kernel_cache_dir), CuPy's CUPY_CACHE_DIR
(CUPY_CACHE_IN_MEMORY=1 keeps it off the disk).

    python examples/python/warp_saxpy.py [n]    # runs every candidate it can and checks y
"""

import os
import sys
from typing import Any, Callable, Dict, Optional

Steps = Dict[str, Optional[Callable[[], Any]]]

A = 2.0  # a in y = a * x + y
BLOCK = 256  # threads per block of the CUDA launches
SOURCE_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "saxpy.cu")
CUBIN_VARIABLE = "GPUMETER_SAXPY_CUBIN"


def host_inputs(n: int) -> Any:
    """x and y on the host: deterministic, never zero (timing zeros can flatter a kernel)."""
    import numpy as np

    i = np.arange(n, dtype=np.int64)
    x = (1.0 + (i % 7)).astype(np.float32)
    y = (0.5 * (i % 5)).astype(np.float32)
    return x, y


def expected(n: int, a: float = A) -> Any:
    """y after one saxpy from ``host_inputs(n)``, computed in float32 as the kernels do."""
    import numpy as np

    x, y = host_inputs(n)
    return np.float32(a) * x + y


def _blocks(n: int) -> int:
    return (n + BLOCK - 1) // BLOCK


# --- Warp -----------------------------------------------------------------------------------------

def _warp_saxpy_kernel(wp: Any) -> Any:
    """The Warp kernel: imported from its own module, where it is defined once at module scope."""
    del wp
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        import warp_saxpy_kernel
    finally:
        sys.path.pop(0)
    return warp_saxpy_kernel.saxpy


def warp_candidate(n: int, device: str = "cuda:0", a: float = A) -> Steps:
    """Saxpy as a Warp kernel on ``device``, which must resolve to a CUDA device."""
    x_host, y_host = host_inputs(n)
    s: Dict[str, Any] = {}

    def init() -> None:
        import warp as wp

        wp.init()
        s["wp"] = wp
        s["device"] = dev = wp.get_device(device)
        if not dev.is_cuda:
            raise RuntimeError(f"Warp resolves {device!r} to {dev.alias!r}, not a CUDA device")
        wp.synchronize_device(dev)  # creates the device's context now, not in the first launch
        s["kernel"] = _warp_saxpy_kernel(wp)

    def compile_() -> None:
        # Only the module holding this kernel, on this device: not every Warp module imported.
        s["wp"].force_load(device=s["device"], modules=[s["kernel"].module])

    def convert() -> None:
        wp = s["wp"]
        s["x"] = wp.array(x_host, dtype=wp.float32, device=s["device"])
        s["y"] = wp.array(y_host, dtype=wp.float32, device=s["device"])

    def kernel() -> None:
        s["wp"].launch(s["kernel"], dim=n, inputs=[s["x"], s["y"], a], device=s["device"])

    def call() -> None:
        convert()
        kernel()

    def sync() -> None:
        s["wp"].synchronize_device(s["device"])

    def result() -> Any:
        return s["y"].numpy()

    def capture() -> Callable[[], None]:
        """The bare launch captured into a CUDA graph; returns its replay."""
        wp = s["wp"]
        with wp.ScopedCapture(device=s["device"]) as captured:
            kernel()
        graph = captured.graph
        return lambda: wp.capture_launch(graph)

    return {"init": init, "compile": compile_, "convert": convert, "call": call,
            "kernel": kernel, "sync": sync, "result": result, "capture": capture}


# --- CuPy ----------------------------------------------------------------------------------------


def _cupy_candidate(n: int, device_index: int, a: float,
                    load: Callable[[Any], Any]) -> Steps:
    """Saxpy through CuPy with the kernel ``load(cupy)`` returns (a RawKernel)."""
    x_host, y_host = host_inputs(n)
    s: Dict[str, Any] = {}

    def init() -> None:
        import cupy

        s["cupy"] = cupy
        s["device"] = cupy.cuda.Device(device_index)
        s["device"].use()
        cupy.empty(1, dtype=cupy.float32)  # creates the device's context now
        s["device"].synchronize()

    def compile_() -> None:
        import numpy as np

        k = load(s["cupy"])
        # A RawKernel compiles (or loads) at its first launch unless made to now.
        if hasattr(k, "compile"):
            k.compile()
        else:
            k.attributes  # noqa: B018  (reading the attributes loads the kernel)
        s["kernel"] = k
        s["a"], s["n"] = np.float32(a), np.int32(n)

    def convert() -> None:
        cupy = s["cupy"]
        s["x"] = cupy.asarray(x_host)
        s["y"] = cupy.asarray(y_host)

    def kernel() -> None:
        s["kernel"]((_blocks(n),), (BLOCK,), (s["x"], s["y"], s["a"], s["n"]))

    def call() -> None:
        convert()
        kernel()

    def sync() -> None:
        s["device"].synchronize()

    def result() -> Any:
        return s["cupy"].asnumpy(s["y"])

    return {"init": init, "compile": compile_, "convert": convert, "call": call,
            "kernel": kernel, "sync": sync, "result": result}


def cupy_nvrtc_candidate(n: int, device_index: int = 0, a: float = A) -> Steps:
    """Saxpy through CuPy, the kernel compiled from saxpy.cu's text by NVRTC at run time."""
    with open(SOURCE_PATH) as f:
        source = f.read()
    return _cupy_candidate(n, device_index, a, lambda cupy: cupy.RawKernel(source, "saxpy"))


def cupy_cubin_candidate(n: int, device_index: int = 0, a: float = A,
                         cubin: Optional[str] = None) -> Steps:
    """Saxpy through CuPy, the kernel loaded from the cubin nvcc built from saxpy.cu (the path in
    ``cubin``, else in GPUMETER_SAXPY_CUBIN). Refused here, before any step runs, when there is
    no such file: a missing cubin must not be timed as a failed load."""
    path = cubin or os.environ.get(CUBIN_VARIABLE)
    if not path or not os.path.isfile(path):
        raise FileNotFoundError(
            f"no cubin for the precompiled candidate ({CUBIN_VARIABLE}={path!r}): build it with "
            f"nvcc -cubin -arch=sm_XX -o saxpy.cubin {SOURCE_PATH} for the measured GPU's "
            f"architecture, and set {CUBIN_VARIABLE} to its path")
    return _cupy_candidate(n, device_index, a,
                           lambda cupy: cupy.RawModule(path=path).get_function("saxpy"))


#: CuPy's saxpy in the three-framework comparison: the NVRTC-compiled RawKernel.
cupy_candidate = cupy_nvrtc_candidate


# --- PyTorch ---------------------------------------------------------------------------------


def torch_candidate(n: int, device_index: int = 0, a: float = A) -> Steps:
    """Saxpy in PyTorch: ``y.add_(x, alpha=a)``, one kernel PyTorch ships compiled."""
    x_host, y_host = host_inputs(n)
    s: Dict[str, Any] = {}

    def init() -> None:
        import torch

        s["torch"] = torch
        s["device"] = torch.device("cuda", device_index)
        torch.empty(1, device=s["device"])  # creates the device's context now
        torch.cuda.synchronize(device_index)

    def convert() -> None:
        torch = s["torch"]
        s["x"] = torch.from_numpy(x_host).to(s["device"])
        s["y"] = torch.from_numpy(y_host).to(s["device"])  # a copy: y_host stays as it was

    def kernel() -> None:
        s["y"].add_(s["x"], alpha=a)

    def call() -> None:
        convert()
        kernel()

    def sync() -> None:
        s["torch"].cuda.synchronize(device_index)

    def result() -> Any:
        return s["y"].cpu().numpy()

    def capture() -> Callable[[], None]:
        """The bare launch captured into a CUDA graph (on a side stream, as PyTorch requires);
        returns its replay."""
        torch = s["torch"]
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            kernel()
        return graph.replay

    return {"init": init, "compile": None, "convert": convert, "call": call, "kernel": kernel,
            "sync": sync, "result": result, "capture": capture}


CANDIDATES: Dict[str, Callable[[int], Steps]] = {
    "warp": warp_candidate,
    "cupy": cupy_candidate,
    "torch": torch_candidate,
    "cupy_nvrtc": cupy_nvrtc_candidate,
    "cupy_cubin": cupy_cubin_candidate,
}


def main(argv: Optional[list] = None) -> int:
    """Runs each candidate whose framework is installed once, step by step, and checks y."""
    import numpy as np

    args = sys.argv[1:] if argv is None else argv
    n = int(args[0]) if args else 1 << 20
    failed = 0
    for name, make in CANDIDATES.items():
        try:
            steps = make(n)
            for step in ("init", "compile", "convert", "kernel", "sync"):
                fn = steps[step]
                if fn is not None:
                    fn()
        except (ImportError, FileNotFoundError) as e:
            print(f"{name}: skipped ({e})")
            continue
        result = steps["result"]
        assert result is not None
        ok = np.allclose(result(), expected(n), rtol=1e-6, atol=0.0)
        failed += not ok
        print(f"{name}: {'y matches' if ok else 'y DIFFERS from'} a * x + y (n = {n})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
