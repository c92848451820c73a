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



def _shadowed_message() -> str:
    """Why the extension is missing where this package was found, when the folder is a source
    tree's (no compiled ``_gpumeter`` beside this file): the folder Python looked in first
    shadows the installed package, which is named where one is on sys.path."""
    here = os.path.dirname(os.path.abspath(__file__))
    installed = []
    for path in sys.path:
        folder = os.path.join(os.path.abspath(path or os.curdir), "gpumeter")
        if os.path.abspath(folder) != here and glob.glob(os.path.join(folder, "_gpumeter*.so")):
            installed.append(folder)
    said = (f"gpumeter was imported from {here}, a source folder without the compiled extension "
            "(_gpumeter): it shadows ")
    if installed:
        said += f"the installed package at {installed[0]}"
    else:
        said += "any installed package (and none with the extension is on sys.path)"
    return said + (f"; run Python from a folder other than {os.path.dirname(here)} (`pip install "
                   ".` in the clone installs the package with its extension)")


_preload_cuda_libraries()

if not glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "_gpumeter*.so")):
    # A source folder, not the package: said as such, not as the circular import Python would
    # report. Where the extension is here and fails to load, its own error says why.
    raise ImportError(_shadowed_message())

from . import _gpumeter  # noqa: E402,F401  (after the libraries it needs are found)
