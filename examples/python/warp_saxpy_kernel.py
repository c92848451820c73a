"""Warp's saxpy kernel, at module scope as every Warp release defines kernels (a kernel defined
inside a function needs Warp 1.4 or later). Importing this module imports Warp: the Warp
candidate of warp_saxpy.py does it in its ``init`` step, never at that module's import."""

import warp as wp


@wp.kernel
def saxpy(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32), a: wp.float32):  # type: ignore[valid-type]
    i = wp.tid()
    y[i] = a * x[i] + y[i]
