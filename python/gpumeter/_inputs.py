"""The inputs of the measured calls: shared inputs checked unchanged (InputsModified), and fresh
inputs made before every call from a seed never used before, their output buffers poisoned (B11).
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Optional, Sequence, Tuple

from ._answers import _copy, _host
from ._checks import _shown
from ._errors import ConfigError



def _fingerprint(inputs: Sequence[Any]) -> Callable[[], int]:
    """0 while every shared input equals its copy taken at the start, 1 once one does not."""
    copies = [x.clone() if hasattr(x, "clone") else _copy(x) for x in inputs]

    def changed() -> int:
        for x, c in zip(inputs, copies):
            torch: Any = sys.modules.get("torch")
            if torch is not None and isinstance(x, torch.Tensor):
                if not torch.equal(x, c):
                    return 1
                continue
            import numpy as np
            if not np.array_equal(np.asarray(_host(x)), np.asarray(_host(c))):
                return 1
        return 0
    return changed


def _poison(x: Any) -> None:
    """Fills an output buffer with a value no right answer holds (B11): NaN for floating point,
    every bit set otherwise, so an answer left from an earlier call never passes its check."""
    torch: Any = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        if x.is_floating_point() or x.is_complex():
            x.fill_(float("nan"))
        elif x.dtype == torch.bool:
            x.fill_(True)
        else:
            x.fill_(-1 if x.dtype.is_signed else torch.iinfo(x.dtype).max)
        return
    dtype = getattr(x, "dtype", None)
    if dtype is None or not hasattr(x, "fill"):
        raise ConfigError(f"outputs: {_shown(x)} is not a tensor or an array gpumeter can fill",
                          argument="outputs")
    import numpy as np
    if np.issubdtype(dtype, np.inexact):
        x.fill(np.nan)
    elif np.issubdtype(dtype, np.bool_):
        x.fill(True)
    else:
        x.fill(np.iinfo(dtype).max if np.issubdtype(dtype, np.unsignedinteger) else -1)


def _same_inputs(a: Sequence[Any], b: Sequence[Any]) -> bool:
    """Whether two argument tuples hold equal values (tensors and arrays compared on their
    device; anything else by ==)."""
    if len(a) != len(b):
        return False
    torch: Any = sys.modules.get("torch")
    for x, y in zip(a, b):
        if torch is not None and isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            if x.shape != y.shape or x.dtype != y.dtype or not torch.equal(x, y):
                return False
            continue
        if hasattr(x, "shape") or hasattr(y, "shape"):
            import numpy as np
            xa, ya = np.asarray(_host(x)), np.asarray(_host(y))
            if xa.shape != ya.shape or not np.array_equal(xa, ya):
                return False
            continue
        if x != y:
            return False
    return True


class _FreshInputs:
    """``fresh_inputs(seed)`` as the core's prepare and check hooks need it (B11): checked once
    to be a pure function of its seed that renews the inputs, then called before every call."""

    def __init__(self, generate: Callable[[int], Any], outputs: Optional[Sequence[int]]) -> None:
        self.generate = generate
        self.outputs: Tuple[int, ...] = tuple(outputs) if outputs is not None else ()

    def make(self, seed: int) -> Tuple[Any, ...]:
        args = self.generate(seed)
        if not isinstance(args, (tuple, list)):
            raise ConfigError("fresh_inputs: must return a tuple or list of the arguments, not "
                              f"{_shown(args)}", argument="fresh_inputs")
        args = tuple(args)
        for k in self.outputs:
            if not -len(args) <= k < len(args):
                raise ConfigError(f"outputs: index {k} is not one of fresh_inputs' "
                                  f"{len(args)} arguments", argument="outputs")
            _poison(args[k])
        return args

    def output_of(self, args: Tuple[Any, ...], returned: Any) -> Any:
        if not self.outputs:
            return returned
        written = tuple(args[k] for k in self.outputs)
        return written[0] if len(written) == 1 else written

    def check_pure(self) -> None:
        """Same seed, equal inputs; another seed, other inputs: else ConfigError."""
        first, again, other = self.make(1), self.make(1), self.make(2)
        written = set(k % len(first) for k in self.outputs) if first else set()
        keep = [i for i in range(len(first)) if i not in written]

        def pick(t: Tuple[Any, ...]) -> Tuple[Any, ...]:  # the outputs hold the poison
            return tuple(t[i] for i in keep)
        if not _same_inputs(pick(first), pick(again)):
            raise ConfigError("fresh_inputs: two calls with the same seed gave different "
                              "inputs; it must be a pure function of its seed (seed a generator "
                              "with it, e.g. torch.Generator().manual_seed(seed)), so a check "
                              "can rebuild a call's inputs", argument="fresh_inputs")
        if _same_inputs(pick(first), pick(other)):
            raise ConfigError("fresh_inputs: two different seeds gave the same inputs, so an "
                              "answer remembered from an earlier call would still be right; "
                              "make the inputs from the seed", argument="fresh_inputs")
