"""Finds the CUDA libraries the extension links, then imports it. The package imports this module
before any other of its own, so each of them finds ``_gpumeter`` loaded."""

from __future__ import annotations

import ctypes
import glob
import os
import sys
from typing import List


def _preload_cuda_libraries() -> None:
    """Finds the CUDA libraries the extension links (cudart, cuBLAS) and CUPTI.

    Where PyTorch is installed its NVIDIA wheels hold them; loading those copies (the ones
    PyTorch and its profiler use) keeps one CUDA runtime and one CUPTI in the process. The
    toolkit's are the fallback. Nothing fails here: a missing library is named when used.
    """
    roots: List[str] = []
    for path in sys.path:
        roots += glob.glob(os.path.join(path, "nvidia", "cu1*", "lib"))
        roots += glob.glob(os.path.join(path, "nvidia", "*", "lib"))
    cuda_home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    roots += [os.path.join(cuda_home, "lib64"), os.path.join(cuda_home, "extras", "CUPTI", "lib64")]
    for soname in ("libcudart.so.13", "libcublasLt.so.13", "libcublas.so.13"):
        try:
            ctypes.CDLL(soname, mode=ctypes.RTLD_GLOBAL)
            continue
        except OSError:
            pass
        for root in roots:
            candidate = os.path.join(root, soname)
            if os.path.exists(candidate):
                try:
                    ctypes.CDLL(candidate, mode=ctypes.RTLD_GLOBAL)
                    break
                except OSError:
                    continue
    if "GPUMETER_CUPTI_LIBRARY" not in os.environ:
        for root in roots:
            candidate = os.path.join(root, "libcupti.so.13")
            if os.path.exists(candidate):
                os.environ["GPUMETER_CUPTI_LIBRARY"] = candidate
                break



_preload_cuda_libraries()

from . import _gpumeter  # noqa: E402,F401  (after the libraries it needs are found)
