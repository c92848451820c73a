"""What a measured call returned, as gpumeter reads it: only plain answers (B11), copied where a
later call could overwrite them, and checked against the first implementation's by the default
check (allclose)."""

from __future__ import annotations

import builtins
import sys
from typing import Any, Callable, Optional, Tuple

from . import _gpumeter
from ._checks import _real
from ._errors import AnswerNotPlain, ConfigError, VerificationFailed

# The core's tolerances for a check the user gives none for (default_tolerance.hpp): every
# rtol=/atol= default in Python is one of these, so no front end keeps a value of its own.
DEFAULT_RTOL: float = _gpumeter.DEFAULT_RTOL
DEFAULT_ATOL: float = _gpumeter.DEFAULT_ATOL


def _largest_magnitude(ref: Any) -> float:
    """The largest magnitude of a numeric answer (a tensor or an array), else 0 (no size to
    hold atol to)."""
    torch: Any = sys.modules.get("torch")
    if torch is not None and isinstance(ref, torch.Tensor):
        if ref.numel() == 0 or ref.dtype == torch.bool:
            return 0.0
        return float(ref.detach().abs().max().item())
    import numpy as np
    try:
        r = np.asarray(_host(ref))
    except Exception:  # noqa: BLE001  (an answer of no one shape: the comparison says why)
        return 0.0
    if r.size == 0 or not np.issubdtype(r.dtype, np.number):
        return 0.0
    return float(np.nanmax(np.abs(r))) if not np.all(np.isnan(r)) else 0.0


def _constant_answer_problem(ref: Any, rtol: float, atol: float) -> str:
    """Why ``rtol`` and ``atol`` pass an answer of one constant in every element of the reference
    answer ``ref`` (a tensor or an array), or "" when they pass none. The constants and the rule
    are the core's (issue 50: under atol 1.5, 1.0 everywhere passed answers in [0, 2)); only the
    largest excess over rtol of each constant's distance to the elements is computed here."""
    torch: Any = sys.modules.get("torch")
    excess: Callable[[float], float]
    if torch is not None and isinstance(ref, torch.Tensor):
        if ref.numel() == 0 or ref.dtype == torch.bool or ref.is_complex():
            return ""
        t = ref.detach().double()  # on its own device: no copy of the answer to the host
        mean, least, largest = float(t.mean()), float(t.min()), float(t.max())
        magnitude = t.abs()

        def excess(c: float) -> float:
            return float(((t - c).abs() - rtol * magnitude).max())
    else:
        import numpy as np
        try:
            r = np.asarray(_host(ref))
        except Exception:  # noqa: BLE001  (an answer of no one shape: the comparison says why)
            return ""
        if r.size == 0 or not np.issubdtype(r.dtype, np.number) or \
                np.issubdtype(r.dtype, np.complexfloating):
            return ""
        a = r.astype(np.float64)
        mean, least, largest = float(a.mean()), float(a.min()), float(a.max())
        a_magnitude = np.abs(a)

        def excess(c: float) -> float:
            return float(np.max(np.abs(a - c) - rtol * a_magnitude))
    for which in _gpumeter.constant_answers():
        c = _gpumeter.constant_answer_value(which, mean, least, largest)
        problem = _gpumeter.constant_answer_problem(rtol, atol, which, mean, least, largest,
                                                    excess(c))
        if problem:
            return problem
    return ""


def _checked_tolerances(rtol: object, atol: object) -> Tuple[float, float]:
    """The default check's ``rtol`` and ``atol`` as numbers, refused (ConfigError naming the one)
    where the core's rule says they cannot make a verdict: compare()'s and phases()'s one check
    of them before anything runs."""
    rtol_v = _real("rtol", rtol, "a number >= 0")
    atol_v = _real("atol", atol, "a number >= 0")
    problem = _gpumeter.tolerance_problem(rtol_v, atol_v)
    if problem:
        raise ConfigError(problem, argument="rtol" if problem.startswith("rtol") else "atol")
    return rtol_v, atol_v


def _default_verify(rtol: float, atol: float) -> Callable[[str, Any, Any], None]:
    first = [True]

    def verify(name: str, out: Any, ref: Any) -> None:
        if out is None and ref is None:
            return
        if first[0]:
            # The first check is the untimed one, before any timing: atol held to the size of the
            # reference's answer (the core's rule).
            first[0] = False
            problem = _gpumeter.absolute_tolerance_problem(rtol, atol, _largest_magnitude(ref))
            if not problem:
                problem = _constant_answer_problem(ref, rtol, atol)
            if problem:
                raise ConfigError(problem, argument="atol")
        problem = _answer_mismatch(out, ref, rtol, atol)
        if problem:
            raise VerificationFailed(f"{name}: {problem}")
    return verify


def _described(x: Any) -> str:
    """An answer's kind as a message names it: ``None``, ``a str``, ``a numpy.ndarray of float32,
    shape (3, 4)``; its type looked up with ``type()``, nothing of it called but a framework's
    dtype and shape."""
    if x is None:
        return "None"
    t = type(x)
    kind = t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"
    shape, dtype = getattr(x, "shape", None), getattr(x, "dtype", None)
    if isinstance(shape, tuple) and dtype is not None:
        return f"a {kind} of {dtype}, shape {shape}"
    return f"a {kind}"


def _number(v: Any) -> str:
    """An element's value, shortest: 2.5, nan, (1+2j)."""
    return repr(v.item() if hasattr(v, "item") else v)


def _answer_mismatch(out: Any, ref: Any, rtol: float, atol: float) -> str:
    """Why the answer ``out`` fails the default check against ``ref`` (allclose by rtol and atol,
    NaN never passing), in words with the values: the kinds of a non-numeric answer, the shapes
    where they differ, else the element furthest beyond its tolerance with both values; "" when
    it passes. Never raises for the answer's kind: a check that cannot compare says why."""
    # PyTorch, CuPy, NumPy: compared on their own device where they can be. A tensor means torch
    # is imported already: it is looked up, never imported here.
    torch: Any = sys.modules.get("torch")
    if torch is not None and isinstance(out, torch.Tensor) and isinstance(ref, torch.Tensor):
        if tuple(out.shape) != tuple(ref.shape):
            return (f"output differs from the first implementation's: shape "
                    f"{tuple(out.shape)} against {tuple(ref.shape)}")
        o, r = out.detach(), ref.detach()
        if o.dtype != r.dtype:
            common = torch.promote_types(o.dtype, r.dtype)
            o, r = o.to(common), r.to(common)
        if o.numel() == 0 or torch.allclose(o, r, rtol=rtol, atol=atol, equal_nan=False):
            return ""
        wide = torch.complex128 if o.is_complex() else torch.float64
        od, rd = o.to(wide), r.to(wide)
        excess = (od - rd).abs() - (atol + rtol * rd.abs())
        excess = torch.nan_to_num(excess, nan=float("inf"))
        flat = int(excess.reshape(-1).argmax().item())
        at = _unravel(flat, tuple(int(n) for n in o.shape))
        bad = int((~torch.isclose(o, r, rtol=rtol, atol=atol, equal_nan=False)).sum().item())
        return _element_words(at, o[at].item() if at else o.item(),
                              r[at].item() if at else r.item(), bad, o.numel(), rtol, atol)
    import numpy as np
    o_a: Any
    r_a: Any
    try:
        o_a = np.asarray(_host(out))
        r_a = np.asarray(_host(ref))
    except Exception:  # noqa: BLE001  (an answer of no one shape or kind: said, not raised)
        o_a = r_a = None
    if o_a is None and type(out) in (tuple, list) and type(ref) in (tuple, list):
        # Items of different shapes: each compared with its own.
        if len(out) != len(ref):
            return (f"output differs from the first implementation's: {len(out)} items against "
                    f"{len(ref)}")
        for i, (o_item, r_item) in enumerate(zip(out, ref)):
            problem = _answer_mismatch(o_item, r_item, rtol, atol)
            if problem:
                return f"item {i}: {problem}"
        return ""
    numeric = [a is not None and (np.issubdtype(a.dtype, np.number) or a.dtype == np.bool_)
               for a in (o_a, r_a)]
    if not all(numeric):
        if type(out) is type(ref) and isinstance(out, (str, builtins.bytes)) and out == ref:
            return ""  # the same text: nothing to hold to a tolerance
        return (f"the answer is {_described(out)}, the first implementation's "
                f"{_described(ref)}: the default check compares numbers (arrays, tensors, "
                "numbers, tuples of them); give check= to compare anything else")
    assert o_a is not None and r_a is not None
    if o_a.shape != r_a.shape:
        return (f"output differs from the first implementation's: shape {o_a.shape} against "
                f"{r_a.shape}")
    if o_a.size == 0 or np.allclose(o_a, r_a, rtol=rtol, atol=atol):
        return ""
    wide = np.complex128 if np.iscomplexobj(o_a) or np.iscomplexobj(r_a) else np.float64
    od, rd = o_a.astype(wide), r_a.astype(wide)
    with np.errstate(invalid="ignore", over="ignore"):
        excess = np.abs(od - rd) - (atol + rtol * np.abs(rd))
    excess = np.where(np.isnan(excess), np.inf, excess)
    index: Tuple[int, ...] = tuple(
        int(i) for i in np.unravel_index(int(np.argmax(excess)), od.shape)) if od.shape else ()
    bad = int(np.count_nonzero(~np.isclose(o_a, r_a, rtol=rtol, atol=atol)))
    return _element_words(index, o_a[index], r_a[index], bad, od.size, rtol, atol)


def _unravel(flat: int, shape: Tuple[int, ...]) -> Tuple[int, ...]:
    out = []
    for n in reversed(shape):
        out.append(flat % n)
        flat //= n
    return tuple(reversed(out))


def _element_words(index: Tuple[int, ...], got: Any, want: Any, bad: int, size: int, rtol: float,
                   atol: float) -> str:
    """"output differs from the first implementation's: element [2, 7] is 1.5 against 1.25
    (absolute difference 0.25; 3 of 64 elements differ; rtol 1e-05, atol 1e-08)": the element
    furthest beyond its tolerance, or the one number of a scalar answer."""
    where = "" if not index else f"element [{', '.join(str(i) for i in index)}] is "
    try:
        difference = f"absolute difference {abs(complex(got) - complex(want)):.3g}; "
    except (TypeError, ValueError, OverflowError):
        difference = ""
    count = f"{bad} of {size} elements differ; " if index else ""
    return (f"output differs from the first implementation's: {where}{_number(got)} against "
            f"{_number(want)} ({difference}{count}rtol {rtol}, atol {atol})")


#: Nested tuples and lists an answer may hold before it is refused as unreadable.
_MAX_ANSWER_DEPTH = 8


def _not_plain(x: Any, depth: int = 0) -> Optional[str]:
    """What of an answer runs code of its own when read, or None when nothing does (B11).

    The answer of a call is read by the check after the call, outside the timed window: an object
    that computes when read (a subclass of the framework's type with ``__torch_function__``, a
    proxy, a lazy value) would do its work there. Only the frameworks' plain types, Python's
    numbers and tuples or lists of them are read; their types are looked up with ``type()``, which
    no object can change, and nothing of the object is called."""
    t = type(x)
    if x is None or t in (bool, int, float, complex, str, builtins.bytes):
        return None
    if t in (tuple, list):
        if depth >= _MAX_ANSWER_DEPTH:
            return f"tuples or lists nested more than {_MAX_ANSWER_DEPTH} deep"
        for v in x:
            problem = _not_plain(v, depth + 1)
            if problem is not None:
                return problem
        return None
    plain = []
    for module, names in (("torch", ("Tensor",)), ("numpy", ("ndarray",)),
                          ("cupy", ("ndarray",)), ("warp.types", ("array",)),
                          ("jax", ("Array",))):
        m = sys.modules.get(module)
        if m is None:
            continue
        for name in names:
            cls = getattr(m, name, None)
            if isinstance(cls, type):
                plain.append(cls)
    if any(t is cls for cls in plain):
        return None
    numpy = sys.modules.get("numpy")
    if numpy is not None and issubclass(t, numpy.generic) and t.__module__ == "numpy":
        return None  # a NumPy scalar (numpy.float32...): NumPy's own types
    jax = sys.modules.get("jax")
    if jax is not None and t.__module__.startswith("jaxlib") and issubclass(
            t, getattr(jax, "Array", ())):
        return None  # JAX's concrete array class lives in jaxlib
    return f"{t.__module__}.{t.__qualname__}"


def _plain_answer(name: str, x: Any) -> Any:
    """The answer itself when it is plain (checked inside the timed call), else AnswerNotPlain."""
    problem = _not_plain(x)
    if problem is not None:
        raise AnswerNotPlain(
            f"{name}: the call returned its answer as {problem}, an object that can run code of "
            "its own when it is read; gpumeter reads answers after the call, outside the timed "
            "window, where such code would do work the timing never sees. Return the framework's "
            "plain type (torch.Tensor, numpy.ndarray, cupy.ndarray, a Warp array, or a tuple or "
            "list of them) computed inside the call, e.g. out.as_subclass(torch.Tensor) after "
            "materializing it")
    return x


def _is_warp_array(x: Any) -> bool:
    """A Warp array: it has neither ``copy()`` nor ``get()``; ``numpy()`` copies it to the host
    (a CPU array's is a view)."""
    return type(x).__module__.split(".")[0] == "warp" and hasattr(x, "numpy")


def _host(x: Any) -> Any:
    """What NumPy can read of an output: CuPy's ``get()``, Warp's ``numpy()``, else itself."""
    if _is_warp_array(x):
        return x.numpy()
    return x.get() if hasattr(x, "get") else x


def _copy(x: Any) -> Any:
    """A copy of an output (tensor, array, or a tuple/list of them) that later calls cannot
    overwrite."""
    if isinstance(x, (list, tuple)):
        return type(x)(_copy(v) for v in x)
    if _is_warp_array(x):
        import numpy as np
        return np.array(x.numpy(), copy=True)
    if hasattr(x, "clone"):
        return x.clone()
    if hasattr(x, "copy"):
        return x.copy()
    return x
