"""The glue to the C++ core: the options of a run (checked, with the device locks this process
holds), the runner that wraps Python callables for the core and keeps what they raised, and the
run, whose errors and fallbacks reach the caller as measure() and compare() document them."""

from __future__ import annotations

import sys
import warnings
from typing import Any, Callable, Dict, List, NoReturn, Optional, Sequence, Tuple, Union

from . import _gpumeter, _runtimes
from ._answers import _plain_answer
from ._checks import (_bad, _budget, _duration, _flag, _fraction, _integer, _optional_real,
                      _real, _refuse_lazy_result)
from ._errors import ConfigError, CuptiUnavailable, Error, FallbackWarning
from ._gpumeter import Record


class _Runner:
    """Wraps Python callables for the core: keeps each call's return value for verification,
    and the first exception a Python callable raised: the cause of the UserCodeError raised
    after the run (or, for gpumeter's own errors and KeyboardInterrupt, raised as itself)."""

    def __init__(self) -> None:
        self.raised: Optional[BaseException] = None

    def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except BaseException as e:  # noqa: BLE001  (re-raised after the run)
            if self.raised is None:
                self.raised = e
            raise

    def refuse(self, error: BaseException) -> NoReturn:
        """Raises `error` from inside a call, as the error of the run (not the user's code)."""
        if self.raised is None:
            self.raised = error
        raise error

    def wrap(self, fn: Callable[[], Any], keep: Optional[List[Any]] = None,
             argument: Optional[str] = None, plain: Optional[str] = None) -> Callable[[], None]:
        """`fn` for the core. With `argument`, its first call's result (the untimed call, before
        any timing) is checked for a generator, a coroutine or an awaitable: a call that made
        one did none of its work. ``keep[0]`` receives the call's return value; with ``plain``
        (the implementation's name), only a plain answer, checked inside the call
        (AnswerNotPlain otherwise)."""
        first = [argument is not None]

        def call() -> None:
            out = self._call(fn)
            if first[0]:
                first[0] = False
                try:
                    _refuse_lazy_result(argument or "", out)
                except ConfigError as e:
                    self.refuse(e)
            if keep is not None:
                keep[0] = out if plain is None else self._call(_plain_answer, plain, out)
        return call

    def wrap_scaled(self, fn: Callable[[int], Any]) -> Callable[[int], None]:
        def call(k: int) -> None:
            self._call(fn, k)
        return call

    def wrap_seeded(self, fn: Callable[[int], Any]) -> Callable[[int], None]:
        def call(seed: int) -> None:
            self._call(fn, seed)
        return call

    def wrap_value(self, fn: Callable[[], Any]) -> Callable[[], Any]:
        def call() -> Any:
            return self._call(fn)
        return call


def _cupti_sharing() -> bool:
    """Whether gpumeter may use CUPTI beside PyTorch's profiler: never while it runs (CUPTI
    serves one client per process, and both would lose records); after its context has ended,
    yes, although PyTorch keeps its CUPTI subscription for the rest of the process."""
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    try:
        running = bool(torch._C._autograd._profiler_enabled())
    except Exception:  # noqa: BLE001  (another PyTorch: no sharing, the core decides)
        return False
    if running:
        raise CuptiUnavailable(
            "PyTorch's profiler is running in this process and holds CUPTI, which serves one "
            "client per process: measure after the profiler's context has ended, or in another "
            "process")
    return True


#: Device locks this process holds across many calls, by device index (the pytest plugin's, held
#: for its session): a call on such a device takes none itself, which would wait for this one.
_held_locks: Dict[int, Any] = {}

def _python_yardstick() -> None:
    """The yardstick of Python rows: a fixed pure-Python loop (tens of microseconds), run through
    the same path into the core as a measured call, so the load of the minutes it runs in slows
    it as it slows the row beside it."""
    total = 0
    for i in range(1000):
        total += i * i


#: The yardstick's work as a record names it: rows are read against one yardstick only where both
#: ran the same work, so a change of the loop above changes this name.
_PYTHON_YARDSTICK = ("python-int-loop-1000", _python_yardstick)

#: The yardstick the next measure() or compare() times beside its host-clock rows, where a front end
#: that compares rows of two runs asks for one (the pytest plugin, around each measurement); None:
#: none. Comparisons across runs read each row against it (docs/comparisons.md, "the host clock").
_yardstick: Optional[Tuple[str, Callable[[], None]]] = None

#: The other processes a measured phase tolerates on the device (B11), as NVML lists them: None,
#: those there when the backend is made. ``gpumeter evaluate`` sets the list it read before any
#: candidate code ran, so a helper process a candidate starts counts whenever it came.
_tolerated_device_processes: Optional[List[int]] = None


def _options(device: object, budget: object, timing: object, allow_events_fallback: object,
             workload: bool, lock: object, allow_contended: object, precision: object = None,
             max_time_s: object = None, lock_held: bool = False) -> _gpumeter.Options:
    if not isinstance(timing, str):
        *first, last = [f"'{n}'" for n in _gpumeter.timing_names()]  # the session's names
        raise _bad("timing", f"{', '.join(first)} or {last}", timing)
    index = 0 if device is None else _integer("device", device, "a CUDA device index")
    if index >= 2**31:  # what a C int holds; a negative index is the core's to refuse
        raise _bad("device", "a CUDA device index", device)
    # The device's ceilings (for % of peak) are measured once per process, and only when a
    # workload is declared: they cost about a second the first time.
    return _gpumeter.Options(
        device=index, timing=timing,
        allow_events_fallback=_flag("allow_events_fallback", allow_events_fallback),
        budget_ms=_budget(budget), argv=[str(a) for a in sys.argv], ceilings=workload,
        share_cupti=not _gpumeter.timing_is_host(timing) and _cupti_sharing(),
        lock=_flag("lock", lock),
        allow_contended=_flag("allow_contended", allow_contended),
        precision=_fraction("precision", precision),
        max_time_s=_duration("max_time_s", max_time_s, "max_time"),
        lock_held=lock_held or index in _held_locks,
        tolerated_device_processes=_tolerated_device_processes)


def _with_runtimes(record: Record, runtimes: Sequence[_runtimes.RuntimeInfo]) -> Record:
    """The record with each candidate's runtime (resolved before timing) and what the runtimes
    found that the record must say (JAX's preallocation left on), read back as strictly as a
    file."""
    known = [r.to_record() for r in runtimes if r.runtime]
    notes = _runtimes.deviations(runtimes)
    if known:
        record = _gpumeter.with_runtimes(record, known)
    return _gpumeter.with_deviations(record, list(notes)) if notes else record


def _raise_run_error(error: Error, runner: _Runner) -> NoReturn:
    """Raises the error a run of the core raised, as measure() and compare() document it: the
    exception a Python callable raised (kept by ``runner``) as its cause, or itself."""
    # The runner forgets the exception: its traceback reaches this frame, whose case holds the
    # runner's closures in C++ objects the garbage collector cannot see into, a cycle it could
    # never free.
    raised, runner.raised = runner.raised, None
    # gpumeter's own errors raised in a callable (the default check's VerificationFailed)
    # keep their cause; Ctrl-C and SystemExit stay what they are.
    # The core's copy of the same error, when it says more (the iteration whose answer a
    # check refused), is raised instead, with the callable's as its cause.
    if (isinstance(raised, Error) and type(error) is type(raised) and
            str(raised) in str(error) and str(error) != str(raised)):
        raise error from raised
    if raised is not None and (isinstance(raised, Error) or
                               not isinstance(raised, Exception)):
        raise raised
    # UserCodeError for a callable's exception keeps it as its __cause__ (its traceback
    # points into the user's code).
    if raised is not None:
        raise error from raised
    raise error


def _run(case: Union[_gpumeter.Case, Sequence[_gpumeter.Case]], options: _gpumeter.Options,
         runner: _Runner, runtimes: Sequence[_runtimes.RuntimeInfo] = ()) -> Record:
    cases: List[_gpumeter.Case] = (list(case) if isinstance(case, (list, tuple))
                                   else [case])  # type: ignore[list-item]
    error: Optional[Error] = None
    try:
        record, fallbacks = _gpumeter.run(cases, options)
    except Error as e:
        error = e
    if error is not None:
        _raise_run_error(error, runner)
    runner.raised = None
    for note in fallbacks:
        warnings.warn(note, FallbackWarning, stacklevel=3)  # at the caller of measure/compare
    return _with_runtimes(record, runtimes)


def _run_many(cases: Sequence[_gpumeter.Case], options: _gpumeter.Options,
              runner: _Runner) -> Record:
    return _run(list(cases), options, runner)
