"""Size sweeps for gpumeter.sweep(): implementations as factories of the size, each setting the
size up and returning the call to time (which returns its output, checked against the first
implementation's before anything is timed).

- ``copy``: a device-to-device copy of n bytes in CuPy, the bandwidth-bound kernel whose growth
  exponent is near 0 where a launch dominates and near 1 where the bytes do.
- ``saxpy_few_blocks`` against ``saxpy_two_ops``: y = a * x + y on n float32, once as one kernel
  of 4 blocks striding over the array (one launch: cheap while the array is small, slow once the
  4 blocks' throughput is the limit) and once as two full-grid CuPy operations (a multiply into a
  temporary, then an add: two launches, three times the memory traffic, but the whole GPU). They
  cross: a sweep from 1e4 to 1e8 elements shows where, as a bracket of two measured sizes.

    python examples/python/sweeps.py OUT_DIR   # both sweeps, records written to OUT_DIR
"""

import sys
from typing import Any, Callable

A = 2.0
FEW_BLOCKS = 4  # blocks of the strided kernel: few enough that large arrays are throughput-bound
THREADS = 256

_STRIDED = r"""
extern "C" __global__ void saxpy_strided(const float* x, const float* y, float* out, float a,
                                          long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    out[i] = a * x[i] + y[i];
  }
}
"""


def copy(n_bytes: int) -> Callable[[], Any]:
    """A copy of n bytes, device to device, one kernel."""
    import cupy

    src = cupy.arange(n_bytes // 4, dtype=cupy.float32)
    dst = cupy.empty_like(src)

    def call() -> Any:
        cupy.copyto(dst, src)
        return dst

    return call


def _inputs(n: int) -> Any:
    import cupy

    x = cupy.arange(n, dtype=cupy.float32) % 7 + 1
    y0 = cupy.arange(n, dtype=cupy.float32) % 5 * 0.5
    return x, y0


def saxpy_few_blocks(n: int) -> Callable[[], Any]:
    """One launch of a 4-block strided kernel writing out = a * x + y (its inputs untouched, so
    every call does the same work)."""
    import cupy

    kernel = cupy.RawKernel(_STRIDED, "saxpy_strided")
    x, y0 = _inputs(n)
    out = cupy.empty_like(x)
    args = (x, y0, out, cupy.float32(A), cupy.int64(n))

    def call() -> Any:
        kernel((FEW_BLOCKS,), (THREADS,), args)
        return out

    return call


def saxpy_two_ops(n: int) -> Callable[[], Any]:
    """Two full-grid CuPy operations: out = a * x, then out += y."""
    import cupy

    x, y0 = _inputs(n)
    out = cupy.empty_like(x)
    a = cupy.float32(A)

    def call() -> Any:
        cupy.multiply(x, a, out=out)
        cupy.add(out, y0, out=out)
        return out

    return call


def main(out_dir: str) -> int:
    import gpumeter

    copy_sizes = [int(m * 10**k) for k in range(4, 9) for m in (1, 2, 5)] + [10**9]
    # cupy.copyto of contiguous arrays is a device-to-device memcpy: the copy is the work.
    r = gpumeter.sweep({"cupy_copy": copy}, copy_sizes, axis="bytes", name="copy",
                       bytes=lambda b: 2.0 * b, count_copies=True)
    print(r)
    print(gpumeter.write_record(r, out_dir))
    elements = [int(m * 10**k) for k in range(3, 8) for m in (1, 2, 5)] + [10**8]
    r = gpumeter.sweep({"two_ops": saxpy_two_ops, "few_blocks": saxpy_few_blocks}, elements,
                       axis="n", name="saxpy", bytes=lambda n: 12.0 * n)
    print(r)
    print(gpumeter.write_record(r, out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "gpumeter-results"))
