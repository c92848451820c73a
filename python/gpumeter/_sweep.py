"""gpumeter.sweep(): implementations across a size axis spanning decades (docs/phases.md).

Every size is a case of the record, its implementations timed A B B A as compare() times them,
all under one device lock. Where two implementations land close together (no difference the
size's comparison could state), the size is measured again with the implementations in reversed
order, as the protocol asks where order could matter; those rows carry ``order=reversed``. The
growth exponents per regime and the crossover brackets come from the core, read from the record.

A sweep can be split across the tasks of a cluster's array job as a benchmark program's is
(docs/cluster.md): ``shard="K/N"``, else a Slurm array task's or a Kubernetes indexed Job's index;
each task measures the sizes the core deals it, and ``gpumeter merge`` of every task's record gives
the whole sweep.
"""

from __future__ import annotations

import builtins
import numbers
import sys
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from . import _gpumeter
from ._answers import DEFAULT_ATOL, DEFAULT_RTOL, _default_verify
from ._checks import _callable, _refuse_lazy_result
from ._core import _options, _run, _run_many, _Runner
from ._errors import ConfigError

#: The param that marks a re-measurement in reversed order (the core leaves such rows out of the
#: growth fit: they are checks of order, not more sizes).
REVERSED_ORDER_PARAM = "order"


class SweepResult:
    """What gpumeter.sweep() returns: the record, and the core's reading of it."""

    def __init__(self, record: Any, reversed_sizes: List[Any], shard: Any = None) -> None:
        #: The record; None for a shard dealt no size (an empty part of the sweep: nothing was
        #: measured, and a merge of the other shards is the whole sweep).
        self.record = record
        #: Sizes measured again in reversed order because the implementations landed close.
        self.reversed_sizes = reversed_sizes
        #: The shard this task measured (ShardPlan: which shard, the dealing of every size), or
        #: None for the whole sweep.
        self.shard = shard

    @property
    def analysis(self) -> Any:
        """Growth per implementation and regime, and crossover brackets (SweepAnalysis)."""
        if self.record is None:
            raise ConfigError(f"{self.shard}: this shard measured no size, so it has no "
                              "analysis; merge the other shards' records")
        return self.record.sweeps()

    def __str__(self) -> str:
        if self.record is None:
            return f"{self.shard}: no size was dealt to this shard; nothing was measured"
        return str(self.record.markdown())


def _size_text(size: Any) -> str:
    return format(size, "g") if isinstance(size, float) else str(size)


def _close(comparison: Any) -> bool:
    """No difference the comparison could state (the core's finding): the order of the two is
    not established. A refused comparison is not measured again."""
    return bool(comparison.compared) and not comparison.found


def sweep(implementations: Mapping[str, Callable[[Any], Callable[[], Any]]],
          sizes: Sequence[Any], *, axis: str = "n", name: str = "sweep",
          bytes: Optional[Callable[[Any], float]] = None,  # noqa: A002
          flops: Optional[Callable[[Any], float]] = None, count_copies: bool = False,
          verify: bool = True,
          rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL, reverse_when_close: bool = True,
          device: Optional[int] = None, budget: Optional[Any] = None, timing: str = "auto",
          lock: bool = True, allow_contended: bool = False,
          shard: Optional[str] = None) -> SweepResult:
    """Times each implementation at each size and says how its cost grows.

    Args:
        implementations: Names to factories: ``factory(size)`` sets the size up (allocates,
            fills) and returns the call to time, which returns its output.
        sizes: The axis' values, e.g. ``[10**k for k in range(4, 10)]``; three or more, for a
            growth exponent.
        axis: The param's name in the record ("bytes" lets a plot mark the L2's size).
        name: The case's name in the record.
        bytes: ``bytes(size)``: bytes moved per call, for TB/s.
        flops: ``flops(size)``: floating-point operations per call, for TFLOP/s.
        count_copies: Count memcpy and memset time as device time, as for
            :func:`gpumeter.measure` (a sweep of a copy needs it: its work is the copy).
        verify: Check each size's outputs against the first implementation's (``rtol``,
            ``atol``) before timing it.
        rtol: Relative tolerance of the check.
        atol: Absolute tolerance of the check.
        reverse_when_close: Measure a size again in reversed order where the implementations
            land close together.
        device: As for :func:`gpumeter.measure`.
        budget: As for :func:`gpumeter.measure`, per size and implementation.
        timing: As for :func:`gpumeter.measure`.
        lock: As for :func:`gpumeter.measure`: held for the whole sweep.
        allow_contended: As for :func:`gpumeter.measure`.
        shard: ``"K/N"``: measure shard K (from 0) of N of the sizes, dealt as a benchmark
            program's ``--shard`` deals cases (round robin in the sizes' order), the same way in
            every task of an array; ``"all"``: every size. None: a Slurm array task's or a
            Kubernetes indexed Job's index where one is set (docs/cluster.md), else every size.
            The record of a shard holds its shard section; ``gpumeter merge`` of every shard's
            record gives the whole sweep.

    Returns:
        SweepResult: ``record``, ``analysis`` (growth exponents per regime with their fit
        quality, crossover brackets), ``reversed_sizes``, ``shard``. A shard dealt no size (more
        shards than sizes) measures nothing: its ``record`` is None.

    Raises:
        ConfigError: an argument of the wrong type or value, named in ``argument``; a
            callable that does no work when called (a generator or ``async def`` function, or
            one that returned a generator, a coroutine or an awaitable), refused before timing.
        VerificationFailed: an implementation's output differs from the first's at a size.
        Error: as for :func:`gpumeter.compare`.
    """
    if not isinstance(implementations, Mapping) or not implementations:
        raise ConfigError("implementations: must be a non-empty dict of names to factories "
                          "factory(size) -> call", argument="implementations")
    for n, f in implementations.items():
        if not isinstance(n, str) or not n or not callable(f):
            raise ConfigError(f"implementations: {n!r} must name a factory(size) -> call",
                              argument="implementations")
        _callable(f"implementations[{n!r}]", f, "a factory(size) -> call")
    if isinstance(sizes, (str, builtins.bytes)) or not isinstance(sizes, Sequence) or len(sizes) < 1:
        raise ConfigError(f"sizes: must be a list of sizes, not {sizes!r}", argument="sizes")
    for s in sizes:
        if isinstance(s, bool) or not isinstance(s, numbers.Real) or not float(s) > 0:
            raise ConfigError(f"sizes: every size must be a positive number, not {s!r}",
                              argument="sizes")
    if len(set(sizes)) != len(sizes):
        raise ConfigError("sizes: a size appears twice", argument="sizes")
    if not isinstance(axis, str) or not axis or axis == REVERSED_ORDER_PARAM:
        raise ConfigError(f"axis: must be a param name other than {REVERSED_ORDER_PARAM!r}, "
                          f"not {axis!r}", argument="axis")
    if shard is not None and not isinstance(shard, str):
        raise ConfigError(f"shard: must be 'K/N' or 'all', not {shard!r}", argument="shard")
    # The core deals the sizes, and reads the scheduler's variables, as for benchmark programs.
    plan = _gpumeter.sweep_shard(shard, [(name, {axis: _size_text(s)}) for s in sizes])
    if plan is not None:
        sizes = [s for s, dealt in zip(sizes, plan.cases) if dealt.shard == plan.shard.index]
        if not sizes:
            return SweepResult(None, [], plan)
    index = 0 if device is None else device
    check = _default_verify(rtol, atol) if verify else None
    names = list(implementations)

    held = _gpumeter.hold_device_lock(index, allow_contended) if lock else None
    try:
        options = _options(index, budget, timing, False, bytes is not None or flops is not None,
                           lock, allow_contended, lock_held=held is not None)

        def cases_for(order: List[str], extra: Mapping[str, str],
                      only: Optional[List[Any]] = None) -> Tuple[List[Any], Any]:
            runner = _Runner()
            cases = []
            for size in (sizes if only is None else only):
                calls: Dict[str, Callable[[], Any]] = {}
                for n in order:
                    calls[n] = implementations[n](size)
                    if not callable(calls[n]):
                        raise ConfigError(f"implementations[{n!r}]({size!r}) returned "
                                          f"{calls[n]!r}, not a call", argument="implementations")
                    _callable(f"implementations[{n!r}]({size!r})", calls[n], "a call")
                if check is not None:
                    reference = None
                    for i, n in enumerate(names):  # against the first implementation, always
                        out = calls[n]()
                        _refuse_lazy_result(f"implementations[{n!r}]({size!r})", out)
                        if i == 0:
                            reference = out
                        else:
                            check(f"{n} at {axis}={_size_text(size)}", out, reference)
                impls = [_gpumeter.Implementation(
                    n, runner.wrap(calls[n], argument=f"implementations[{n!r}]({size!r})"),
                    None, None, None) for n in order]
                cases.append(_gpumeter.Case(
                    name, impls, params={axis: _size_text(size), **extra},
                    bytes=None if bytes is None else float(bytes(size)),
                    count_copies=bool(count_copies),
                    flops=None if flops is None else float(flops(size))))
            return cases, runner

        cases, runner = cases_for(names, {})
        record = _run_cases(cases, options, runner)
        reversed_sizes: List[Any] = []
        if reverse_when_close and len(names) > 1:
            by_text = {_size_text(s): s for s in sizes}
            for c in record.comparisons:
                size = by_text.get(c.baseline_row.params.get(axis, ""))
                if size is not None and size not in reversed_sizes and _close(c):
                    reversed_sizes.append(size)
            if reversed_sizes:
                again, runner = cases_for(list(reversed(names)),
                                          {REVERSED_ORDER_PARAM: "reversed"}, reversed_sizes)
                second = _run_cases(again, options, runner)
                record = _gpumeter.merge_records([record, second],
                                                 [str(a) for a in sys.argv])
        if held is not None and held.deviations:
            record = _gpumeter.with_deviations(record, list(held.deviations))
        if plan is not None:
            record = _gpumeter.with_shard(record, plan)
        return SweepResult(record, reversed_sizes, plan)
    finally:
        if held is not None:
            held.release()


def _run_cases(cases: List[Any], options: Any, runner: _Runner) -> Any:
    """All cases in one run of the core (one session), errors raised as compare() raises them."""
    if len(cases) == 1:
        return _run(cases[0], options, runner)
    return _run_many(cases, options, runner)
