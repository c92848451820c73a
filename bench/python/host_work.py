"""The work bench/python/host_a_vs_a.py times on the host clock: an interpreter loop over a
list of N floats (N = 2000: about 60 us a call on the 2-core build machine idle, well above the
host clock's 1 us floor, and short enough that a scheduler's slice seldom lands inside one call).

`reference` and `copy` are the same code (a copy of the reference, as a candidate would be);
`slow3` does the work three times and returns the same answer. `inputs(seed)` is what
`gpumeter evaluate --inputs` calls; `fixed()` the inputs of the in-process comparisons."""
import random
from typing import List, Tuple

N = 2000


def inputs(seed: int) -> Tuple[List[float]]:
    rng = random.Random(seed)
    return ([rng.random() for _ in range(N)],)


def fixed() -> Tuple[List[float]]:
    return inputs(12345)


def reference(xs: List[float]) -> float:
    total = 0.0
    for x in xs:
        total += x * x
    return total


def copy(xs: List[float]) -> float:
    total = 0.0
    for x in xs:
        total += x * x
    return total


def slow3(xs: List[float]) -> float:
    for _ in range(2):
        total = 0.0
        for x in xs:
            total += x * x
    total = 0.0
    for x in xs:
        total += x * x
    return total
