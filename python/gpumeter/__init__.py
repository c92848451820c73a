"""gpumeter for Python: time GPU work (PyTorch, Triton, CuPy, JAX, your own kernels) with the
same C++ core as gpumeter's C++ API and benchmark programs: CUPTI device time attributed by
identity, the A B C C B A order, calibrated comparisons, fail-closed errors and JSON records.

    import gpumeter
    r = gpumeter.measure(lambda: torch.mm(a, b), flops=2 * n**3)
    print(r.device_busy.median_us, r.tflops)

    c = gpumeter.compare({"eager": f, "compiled": torch.compile(f)}, inputs=[x])
    print(c.comparisons[0])          # "compiled is 31% faster than eager (99% interval ...)"
    gpumeter.write_record(c)         # gpumeter-results/gpumeter-<run id>.json

Results are typed objects (Result, CompareResult, Comparison, Record); every sentence they hold
comes from the C++ core. Errors are classes named by cause under gpumeter.Error, with their
fields; a measurement that fell back from what was asked warns with gpumeter.FallbackWarning.
Work that another thread launches (PyTorch's autograd engine) is refused as OffThreadLaunch: see
gpumeter.OffThreadLaunch for the fix.

Warp candidates are resolved through Warp's own device lookup before timing, and one on Warp's CPU
device is refused as WrongDevice: declare one with gpumeter.warp(fn, device="cuda:0"), or let
gpumeter see its launches. gpumeter.candidate(fn, runtime="cupy") declares any other runtime.
Importing gpumeter turns JAX's allocator preallocation off unless JAX has started already.
"""

from __future__ import annotations

import builtins
import ctypes
import glob
import inspect
import numbers
import os
import sys
import warnings
from typing import (Any, Callable, Dict, List, Literal, Mapping, NoReturn, Optional, Sequence,
                    Tuple, Union)


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

from . import _gpumeter  # noqa: E402  (after the libraries it needs are found)
from ._errors import (  # noqa: E402
    AnswerNotPlain,
    AttributionError,
    CollectionStopped,
    ConfigError,
    CuptiUnavailable,
    DeviceBusy,
    DeviceError,
    Error,
    FallbackWarning,
    GpumeterWarning,
    IncomparableStatistics,
    InputsModified,
    InvalidRecord,
    MixedTimingMethods,
    OffThreadLaunch,
    OtherProcessOnDevice,
    RecordsLost,
    TimestampUnitMismatch,
    UnaccountedWork,
    UserCodeError,
    VerificationFailed,
    WrongDevice,
)
from . import _runtimes, _wire  # noqa: E402
from ._runtimes import Candidate, Runtime, RuntimeInfo, candidate, warp  # noqa: E402
from ._gpumeter import (  # noqa: E402
    Budget,
    CeilingRun,
    Ceilings,
    ClockReading,
    ClockSummary,
    CompareResult,
    Comparison,
    DeviceIdentity,
    DeviceState,
    Failure,
    HostIdentity,
    Ledger,
    MemoryUse,
    NullTest,
    RatioVerdict,
    Record,
    RelativeDifference,
    Result,
    RowKey,
    RunConfig,
    Sample,
    Spread,
    Summary,
    TimestampCheck,
    PrecisionOutcome,
    PhaseReading,
    MeasuredTotal,
    CandidateRuntime,
    TotalTerm,
    TotalAtN,
    TotalN,
    Crossover,
    GrowthRegime,
    Growth,
    SweepAnalysis,
)

__version__: str = _gpumeter.version()
__all__ = [
    # what you call
    "measure", "compare", "write_record", "read_record", "env", "release_cupti", "main",
    "warp", "candidate", "Candidate", "Runtime", "RuntimeInfo", "phases", "sweep",
    "PhasesResult", "SweepResult", "PhaseReading", "MeasuredTotal", "CandidateRuntime",
    "TotalTerm", "TotalAtN", "TotalN", "Crossover", "GrowthRegime", "Growth", "SweepAnalysis",
    # what comes back
    "Result", "CompareResult", "Comparison", "Record", "Summary", "Spread", "Sample",
    "ClockReading", "ClockSummary", "RowKey", "MemoryUse", "Ledger", "TimestampCheck",
    "PrecisionOutcome", "NullTest",
    "RelativeDifference", "RatioVerdict", "HostIdentity", "DeviceIdentity", "DeviceState",
    "Ceilings", "CeilingRun", "RunConfig", "Budget", "Failure", "Timing",
    # errors and warnings
    "Error", "RecordsLost", "OffThreadLaunch", "AttributionError", "CuptiUnavailable",
    "CollectionStopped", "UnaccountedWork", "InputsModified", "VerificationFailed",
    "AnswerNotPlain", "OtherProcessOnDevice", "MixedTimingMethods",
    "IncomparableStatistics",
    "WrongDevice", "DeviceError", "DeviceBusy", "InvalidRecord", "ConfigError",
    "TimestampUnitMismatch", "UserCodeError", "GpumeterWarning", "FallbackWarning",
]

#: How a measurement is timed: "auto" (CUPTI where a GPU is usable, else the host clock, with a
#: FallbackWarning), "cupti" (device time from kernel records), "events" (a CUDA event pair per
#: call) or "host" (the host clock around a synchronized call).
Timing = Literal["auto", "cupti", "events", "host"]

# JAX reads its allocator's settings once, when its first backend starts: set before that, a JAX
# candidate never preallocates 75% of the GPU that the other candidates then lack.
_runtimes.prepare_jax_environment()


# --- arguments: every bad one is a ConfigError naming it --------------------------------------
# Python's types are checked here; the values (a budget's range, flops >= 0, a device index,
# a timing's name) by the C++ core's rules when the options are made.


def _shown(value: object) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


def _bad(argument: str, expected: str, value: object) -> ConfigError:
    return ConfigError(f"{argument}: must be {expected}, not {_shown(value)}", argument=argument)


def _real(argument: str, value: object, expected: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _bad(argument, expected, value)
    try:
        return float(value)
    except OverflowError:
        # An int too large for a float (10**400): named like any other bad value.
        raise _bad(argument, expected + " within a float's range", value) from None


def _optional_real(argument: str, value: object, expected: str) -> Optional[float]:
    return None if value is None else _real(argument, value, expected)


def _integer(argument: str, value: object, expected: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise _bad(argument, expected, value)
    return int(value)


def _flag(argument: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise _bad(argument, "True or False", value)
    return value


# The longest name a record holds (kMaxNameBytes in the C++ core), in UTF-8 bytes.
_MAX_NAME_BYTES = 256


def _text(argument: str, value: object) -> str:
    if not isinstance(value, str) or not value:
        raise _bad(argument, "a non-empty string", value)
    size = len(value.encode("utf-8", "surrogatepass"))
    if size > _MAX_NAME_BYTES:
        raise ConfigError(f"{argument}: must be at most {_MAX_NAME_BYTES} bytes (the longest name "
                          f"a record holds), not a str of {size} bytes", argument=argument)
    return value


def _lazy_kind(fn: object) -> Optional[str]:
    """What calling ``fn`` makes instead of doing its work, when its definition says so: a
    generator function, an ``async def`` function or an async generator function (a partial,
    a method or a callable object of one included)."""
    for f in (fn, getattr(type(fn), "__call__", None)):
        if f is None:
            continue
        if inspect.isasyncgenfunction(f):
            return "an async generator function (async def with yield)"
        if inspect.iscoroutinefunction(f):
            return "an async def function"
        if inspect.isgeneratorfunction(f):
            return "a generator function (def with yield)"
    return None


def _lazy_result(value: object) -> Optional[str]:
    """What a call returned in place of its work: a generator, a coroutine or an awaitable,
    none of whose body ran."""
    if inspect.isgenerator(value):
        return "a generator"
    if inspect.iscoroutine(value):
        return "a coroutine"
    if inspect.isasyncgen(value):
        return "an async generator"
    if inspect.isawaitable(value):
        return f"an awaitable ({type(value).__name__})"
    return None


def _lazy_refusal(argument: str, what: str) -> ConfigError:
    return ConfigError(
        f"{argument}: {what}: calling it runs none of its body, it only makes an object that "
        "would do the work later, so gpumeter would time making that object; pass a function "
        "that does the work when called (await or iterate inside it)", argument=argument)


def _callable(argument: str, value: object, expected: str) -> Callable[..., Any]:
    if not callable(value):
        raise _bad(argument, expected, value)
    lazy = _lazy_kind(value)
    if lazy is not None:
        raise _lazy_refusal(argument, f"{_shown(value)} is {lazy}")
    return value


def _refuse_lazy_result(argument: str, value: object) -> None:
    """Raises the ConfigError for a call that returned a generator, a coroutine or an
    awaitable (closed first: Python would warn of a coroutine never awaited)."""
    lazy = _lazy_result(value)
    if lazy is None:
        return
    close = getattr(value, "close", None)
    if callable(close):
        try:
            close()
        except Exception:  # noqa: BLE001  (the refusal says what matters)
            pass
    raise _lazy_refusal(argument, f"it returned {lazy}")


def _budget(value: object) -> Optional[Tuple[float, float]]:
    expected = "a pair (warm-up ms, measure ms) such as (25, 100)"
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 2:
        raise _bad("budget", expected, value)
    return (_real("budget", value[0], expected), _real("budget", value[1], expected))


def _per_name(argument: str, value: object, names: Sequence[str],
              expected: str) -> Dict[str, Callable[..., Any]]:
    """A mapping of implementation names to callables, every name one of `names`."""
    if not isinstance(value, Mapping):
        raise _bad(argument, expected, value)
    out: Dict[str, Callable[..., Any]] = {}
    for key, fn in value.items():
        if key not in names:
            raise ConfigError(f"{argument}: {key!r} is not one of the implementations "
                              f"({', '.join(repr(n) for n in names)})", argument=argument)
        out[key] = _callable(f"{argument}[{key!r}]", fn, "a callable")
    return out


# --- running --------------------------------------------------------------------------------


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

#: The other processes a measured phase tolerates on the device (B11), as NVML lists them: None,
#: those there when the backend is made. ``gpumeter evaluate`` sets the list it read before any
#: candidate code ran, so a helper process a candidate starts counts whenever it came.
_tolerated_device_processes: Optional[List[int]] = None


def _options(device: object, budget: object, timing: object, allow_events_fallback: object,
             workload: bool, lock: object, allow_contended: object, precision: object = None,
             max_time_s: object = 10.0, lock_held: bool = False) -> _gpumeter.Options:
    if not isinstance(timing, str):
        raise _bad("timing", "'auto', 'cupti', 'events' or 'host'", timing)
    index = 0 if device is None else _integer("device", device, "a CUDA device index")
    if index >= 2**31:  # what a C int holds; a negative index is the core's to refuse
        raise _bad("device", "a CUDA device index", device)
    # The device's ceilings (for % of peak) are measured once per process, and only when a
    # workload is declared: they cost about a second the first time.
    return _gpumeter.Options(
        device=index, timing=timing,
        allow_events_fallback=_flag("allow_events_fallback", allow_events_fallback),
        budget_ms=_budget(budget), argv=[str(a) for a in sys.argv], ceilings=workload,
        share_cupti=_cupti_sharing() if timing != "host" else False, lock=_flag("lock", lock),
        allow_contended=_flag("allow_contended", allow_contended),
        precision=_optional_real("precision", precision, "a fraction such as 0.01 (1%) or None"),
        max_time_s=_real("max_time_s", max_time_s, "a number of seconds"),
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


def _run(case: Union[_gpumeter.Case, Sequence[_gpumeter.Case]], options: _gpumeter.Options,
         runner: _Runner, runtimes: Sequence[_runtimes.RuntimeInfo] = ()) -> Record:
    cases: List[_gpumeter.Case] = (list(case) if isinstance(case, (list, tuple))
                                   else [case])  # type: ignore[list-item]
    error: Optional[Error] = None
    try:
        record, fallbacks = _gpumeter.run(cases, options)
    except Error as e:
        error = e
    # The runner forgets the exception: its traceback reaches this frame, whose case holds the
    # runner's closures in C++ objects the garbage collector cannot see into, a cycle it could
    # never free.
    raised, runner.raised = runner.raised, None
    if error is not None:
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
    for note in fallbacks:
        warnings.warn(note, FallbackWarning, stacklevel=3)  # at the caller of measure/compare
    return _with_runtimes(record, runtimes)


def _run_many(cases: Sequence[_gpumeter.Case], options: _gpumeter.Options,
              runner: _Runner) -> Record:
    return _run(list(cases), options, runner)


def measure(fn: Callable[[], Any], *, reset: Optional[Callable[[], Any]] = None,
            count_copies: bool = False, flops: Optional[float] = None,
            bytes: Optional[float] = None, device: Optional[int] = None,  # noqa: A002
            budget: Optional[Tuple[float, float]] = None, timing: Timing = "auto",
            allow_events_fallback: bool = False, name: str = "measure", lock: bool = True,
            allow_contended: bool = False,
            scaled: Optional[Callable[[int], Any]] = None,
            precision: Optional[float] = None, max_time_s: float = 10.0,
            fresh_inputs: Optional[Callable[[int], Sequence[Any]]] = None) -> Result:
    """Measures the GPU work of ``fn()`` and returns its typed Result.

    ``fn`` is called many times on the calling thread: three calls estimate one, then two measured
    passes (A A), each opening with warm-up calls whose times are dropped, each call preceded by
    ``reset`` and an L2 flush. With CUPTI, ``device_busy`` is the union of the execution intervals
    of the kernels each call launched, attributed by an id the call carried, never by timestamp:
    Python between kernels adds to ``latency``, never to ``device_busy``, and work another thread
    launched is refused. While it measures, the device's exclusive lock is held (see ``lock``).
    Nothing is printed; the Result carries the summary, the raw samples and the record.

    Before timing, the runtime that launches ``fn``'s work is resolved: where Warp is imported
    (or ``fn`` is ``gpumeter.warp(...)``), ``fn`` is called once more, untimed, and each Warp
    launch's device is resolved by ``warp.get_device``; Warp's CPU device, or another GPU than
    ``device``, is refused as WrongDevice before anything is timed.

    Args:
        fn: A callable launching the work to time; its return value is ignored. A
            ``gpumeter.warp(f, device=...)`` or ``gpumeter.candidate(f, runtime=...)`` declares
            the runtime and device it uses.
        reset: Called before every call of ``fn``, untimed: restores inputs ``fn`` overwrites.
        count_copies: Count memcpy and memset time as device time (default: seen and reported
            as ``uncounted_copy_ns``, not counted).
        flops: Floating-point operations per call, for TFLOP/s and the percent of the device's
            measured FLOP/s ceiling (measured once per process, about a second).
        bytes: Bytes moved per call (each input read once, each output written once), for TB/s
            and the percent of the measured bandwidth ceiling.
        device: CUDA device index (default 0).
        budget: (warm-up ms, measure ms), default (25, 100); each is a positive number of at
            most 1e6 ms. The iterations are clamped to [10, 200].
        timing: "auto" (CUPTI where a GPU is usable, else the host clock with a
            FallbackWarning), "cupti", "events" (a CUDA event pair per call) or "host" (the
            host clock around a synchronized call).
        allow_events_fallback: Time with CUDA events when CUPTI is unavailable (a
            FallbackWarning says so; events rows never compare with CUPTI rows).
        name: The case's name in the record.
        lock: Hold the device's exclusive lock (``$GPU_LOCK``, else a file per device under
            /tmp) after checking through NVML that no other process uses the device;
            ``lock=False`` is recorded as a deviation.
        allow_contended: Measure even when other processes use the device (the record is marked
            contended); otherwise a busy device raises DeviceBusy naming them.
        scaled: The null test's hook: ``scaled(k)`` does k times the work of ``fn``. 4x the work
            must take 4x the time within 40%, else ``null_test_failed`` is True and the times
            are not the work's.
        precision: Instead of a fixed budget, measure in passes until the 99% interval of the
            level (the passes' geometric mean) is within +-precision (0.01: 1%), or until
            ``max_time_s``; ``Result.precision`` says what was reached and why it stopped.
        max_time_s: The cap of a run to ``precision``, in seconds (0.1 to 3600; default 10).
        fresh_inputs: ``fresh_inputs(seed)`` returns the arguments of one call, made from
            ``seed`` (a pure function of it; checked once); each call is then
            ``fn(*fresh_inputs(seed))`` with a seed never used before, made untimed, so an
            answer remembered from an earlier call cannot be returned for nothing. To check the
            answers too, use :func:`compare` with a reference first.

    Returns:
        Result: ``device_busy`` and ``latency`` (median, p10, p90 in ns), ``n_samples``,
        ``max_n_kernels``, ``tflops``/``tbs`` and percents of the ceilings, clocks, memory, the
        null test, the raw ``samples``, and ``record`` (write it with ``write_record``).

    Raises:
        ConfigError: an argument of the wrong type or value, named in ``argument``; a
            callable that does no work when called (a generator or ``async def`` function, or
            one that returned a generator, a coroutine or an awaitable), refused before timing.
        UserCodeError: ``fn``, ``reset`` or ``scaled`` raised; that exception is the
            ``__cause__``, and ``step`` says which call of which iteration.
        OffThreadLaunch: kernels launched from another thread (PyTorch's autograd backward:
            ``torch.autograd.set_multithreading_enabled(False)``).
        AttributionError: an iteration ran nothing on the device.
        RecordsLost: CUPTI dropped records in all 3 attempts.
        CuptiUnavailable: CUPTI is missing or held by another client (PyTorch's profiler while
            it runs, ncu, Nsight).
        DeviceBusy: another process uses the device, or another run holds its lock.
        DeviceError: no usable device for ``timing="cupti"``/``"events"``, or a CUDA error.
        WrongDevice: before timing, a Warp candidate resolved to (or launched a kernel on)
            Warp's CPU device, a device Warp cannot resolve or another GPU than ``device``; or a
            declared device is not ``device``. ``str(error)`` names the candidate and the
            device.
        Error: the base of all of these; any other cause is named by its own subclass.

    Warns:
        FallbackWarning: the host clock was used for ``timing="auto"`` (no usable GPU), or CUDA
        events for CUPTI (``allow_events_fallback``).

    Example:
        >>> a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
        >>> r = gpumeter.measure(lambda: a @ a, flops=2 * 4096**3)
        >>> r.device_busy.median_us, r.tflops
        (172.3, 797.6)
    """
    fn = _callable("fn", fn, "a callable that launches the work")
    reset_fn = None if reset is None else _callable("reset", reset, "a callable or None")
    scaled_fn = None if scaled is None else _callable("scaled", scaled, "a callable scaled(k) "
                                                      "or None")
    flops_v = _optional_real("flops", flops, "a number of floating-point operations per call")
    bytes_v = _optional_real("bytes", bytes, "a number of bytes moved per call")
    options = _options(device, budget, timing, allow_events_fallback,
                       flops_v is not None or bytes_v is not None, lock, allow_contended,
                       precision, max_time_s)
    runner = _Runner()
    label = getattr(fn, "__name__", None)  # a partial or a callable object may have none
    label = label if isinstance(label, str) and label else "fn"
    fresh: Optional[_FreshInputs] = None
    if fresh_inputs is not None:
        fresh = _FreshInputs(_callable("fresh_inputs", fresh_inputs, "a callable "
                                       "fresh_inputs(seed) returning the arguments of one call, "
                                       "or None"), None)
        fresh.check_pure()
    # Before timing: a Warp candidate on Warp's CPU device is refused here, not timed.
    found_on: Callable[[], Any] = fn
    if fresh is not None:
        some_args = fresh.make(0)

        def found_on() -> Any:
            return fn(*some_args)
    runtimes = _runtimes.resolve_runtimes(
        {label: found_on}, 0 if device is None else int(device),
        resets={label: reset_fn} if reset_fn else None)
    if fresh is not None:
        impl = _fresh_implementation(runner, fresh, label, fn, [None], None, reset_fn, scaled_fn,
                                     argument="fn")
    else:
        impl = _gpumeter.Implementation(
            label, runner.wrap(fn, argument="fn"),
            runner.wrap(reset_fn, argument="reset") if reset_fn else None, None,
            runner.wrap_scaled(scaled_fn) if scaled_fn else None)
    case = _gpumeter.Case(_text("name", name), [impl], flops=flops_v, bytes=bytes_v,
                          count_copies=_flag("count_copies", count_copies))
    return _run(case, options, runner, runtimes).results[0]


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
            if problem:
                raise ConfigError(problem, argument="atol")
        # PyTorch, CuPy, NumPy: compared on their own device where they can be. A tensor means
        # torch is imported already: it is looked up, never imported here.
        torch: Any = sys.modules.get("torch")
        if torch is not None and isinstance(out, torch.Tensor) and isinstance(ref, torch.Tensor):
            if not torch.allclose(out, ref, rtol=rtol, atol=atol, equal_nan=False):
                err = (out.double() - ref.double()).abs().max().item()
                raise VerificationFailed(
                    f"{name}: output differs from the first implementation's (largest "
                    f"absolute difference {err:.3g}; rtol {rtol}, atol {atol})")
            return
        import numpy as np
        o = np.asarray(_host(out))
        r = np.asarray(_host(ref))
        if o.shape != r.shape or not np.allclose(o, r, rtol=rtol, atol=atol):
            raise VerificationFailed(
                f"{name}: output differs from the first implementation's (shape {o.shape} vs "
                f"{r.shape}; rtol {rtol}, atol {atol})")
    return verify


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


def compare(implementations: Mapping[str, Callable[[], Any]], *,
            reset: Union[None, Callable[[], Any], Mapping[str, Callable[[], Any]]] = None,
            verify: Union[None, bool, Callable[[str, Any, Any], None]] = None,
            inputs: Optional[Sequence[Any]] = None, rtol: float = 1e-5, atol: float = 1e-8,
            count_copies: bool = False, flops: Optional[float] = None,
            bytes: Optional[float] = None, device: Optional[int] = None,  # noqa: A002
            budget: Optional[Tuple[float, float]] = None, timing: Timing = "auto",
            allow_events_fallback: bool = False, name: str = "compare", lock: bool = True,
            allow_contended: bool = False,
            scaled: Optional[Mapping[str, Callable[[int], Any]]] = None,
            precision: Optional[float] = None, max_time_s: float = 10.0,
            fresh_inputs: Optional[Callable[[int], Sequence[Any]]] = None,
            outputs: Optional[Sequence[int]] = None) -> CompareResult:
    """Compares implementations of one operation, checked first, timed in A B C C B A order.

    Before anything is timed, each implementation is called once (after its reset) and its
    output (its return value) is checked against the first implementation's, and the shared
    ``inputs`` are checked unchanged. Then each is measured in two passes, A B C C B A, so a
    drift in the device's speed cancels, and each is compared with the first by the rule of its
    statistic: for device time, "B is 2.8% slower than A (99% interval 2.6% to 3.0%)" or "no
    difference detected (a difference larger than 0.43% would have been seen)", the interval
    from the passes (calibrated: at 99%, a kernel against itself claims a difference in about 1
    comparison of 100; 0 of 24 from Python on an H100, and 0 of 80 on an H200 at the earlier
    95%); for the host clock, the 1.5x resolution.

    Each implementation's runtime is resolved before that, as for :func:`measure`: where Warp
    is imported, each is called once more, untimed, and a Warp launch on Warp's CPU device or
    on another GPU is refused as WrongDevice.

    Args:
        implementations: Names to callables, e.g. ``{"eager": f, "compiled": g}``; the first
            is the baseline. Each returns its output (a tensor, an array, a Warp array, a tuple
            of them). A ``gpumeter.warp(f, device=...)`` or ``gpumeter.candidate(f, ...)``
            declares an implementation's runtime.
        reset: One callable for all, or one per implementation name, called before every call,
            untimed.
        verify: None or True: allclose (``rtol``, ``atol``) of each output with the first's
            (PyTorch, CuPy, NumPy); a callable ``verify(name, output, reference)`` that raises
            (VerificationFailed, or anything) to refuse; False: no check.
        inputs: Shared tensors or arrays no implementation may change (each needs ``clone()``
            or ``copy()``, or is a Warp array); checked before timing and after every pass.
        rtol: Relative tolerance of the default check.
        atol: Absolute tolerance of the default check.
        count_copies: As for :func:`measure`, for every implementation.
        flops: As for :func:`measure`, per call of each implementation.
        bytes: As for :func:`measure`, per call of each implementation.
        device: As for :func:`measure`.
        budget: As for :func:`measure`: one implementation's; each pass gets half.
        timing: As for :func:`measure`.
        allow_events_fallback: As for :func:`measure`.
        name: The case's name in the record.
        lock: As for :func:`measure`.
        allow_contended: As for :func:`measure`.
        scaled: The null test's hook per implementation name, as for :func:`measure`; an
            implementation whose null test fails is compared with nothing.
        precision: Instead of a fixed budget, measure in rounds of A B B A until every comparison
            with the first would detect a difference of ``precision`` (0.01: 1%), or until
            ``max_time_s``. The stop reads only the width, never the estimate, so stopping
            cannot make a difference appear; each sentence ends with what was reached.
        max_time_s: The cap of a run to ``precision``, in seconds (0.1 to 3600; default 10).
        fresh_inputs: ``fresh_inputs(seed)`` returns the arguments of one call, made from
            ``seed`` (a pure function of it; checked once). Given, every call of every
            implementation gets new inputs, ``fn(*fresh_inputs(seed))`` with a seed never used
            before, made untimed; and every other implementation's answer is checked against
            the first's on the same inputs after its call returned, outside the timed window:
            every iteration where the check is cheap, else a sample drawn after each call. A
            remembered or copied answer then fails as VerificationFailed naming the iteration.
            ``scaled`` hooks are called ``scaled(k, *args)``.
        outputs: With ``fresh_inputs``: indices of its arguments that the implementations write
            into. Each is filled with a poison value (NaN; every bit set for integers) before
            every call, untimed, and is the output checked instead of the return value.

    Returns:
        CompareResult: ``results`` (each implementation's Result, by name), ``comparisons``
        (each against the first, with its sentence as ``str()``) and ``record``.

    Raises:
        VerificationFailed: an output differs from the first implementation's.
        WrongDevice: as for :func:`measure`, naming the implementation.
        InputsModified: an implementation changed the shared ``inputs``.
        ConfigError: an argument of the wrong type or value (a list instead of a dict, a
            ``reset`` or ``scaled`` key that names no implementation, an implementation that
            does no work when called: a generator or ``async def`` function, or one that
            returned a generator, a coroutine or an awaitable), named in ``argument``.
        UserCodeError: a callable (an implementation, a reset, ``verify`` itself) raised; that
            exception is the ``__cause__``.
        Error: as for :func:`measure`: OffThreadLaunch, AttributionError, RecordsLost,
            CuptiUnavailable, DeviceBusy, DeviceError...

    Warns:
        FallbackWarning: as for :func:`measure`.

    Example:
        >>> c = gpumeter.compare({"eager": lambda: f(x), "compiled": lambda: g(x)}, inputs=[x])
        >>> print(c.comparisons[0])
        compiled is 4.5x faster than eager (99% interval 4.4x to 4.6x; ...)
    """
    expected = "a dict of implementation names to callables, e.g. {'a': f, 'b': g}"
    if not isinstance(implementations, Mapping):
        raise _bad("implementations", expected, implementations)
    if not implementations:
        raise ConfigError("implementations: no implementations given; compare needs "
                          f"{expected}", argument="implementations")
    names: List[str] = []
    for impl_name, fn in implementations.items():
        if not isinstance(impl_name, str) or not impl_name:
            raise ConfigError(f"implementations: every name must be a non-empty string, not "
                              f"{_shown(impl_name)}", argument="implementations")
        _text("implementations", impl_name)  # a name a record can hold
        _callable(f"implementations[{impl_name!r}]", fn, "a callable")
        names.append(impl_name)
    resets: Dict[str, Callable[..., Any]] = {}
    if isinstance(reset, Mapping):
        resets = _per_name("reset", reset, names, "a callable, a dict of them, or None")
    elif reset is not None:
        one = _callable("reset", reset, "a callable, a dict of them by implementation name, or "
                                        "None")
        resets = {n: one for n in names}
    scaled_by = {} if scaled is None else _per_name(
        "scaled", scaled, names, "a dict of implementation names to scaled(k) callables")
    check: Optional[Callable[[str, Any, Any], None]]
    # The default check reads answers gpumeter knows how to read without running the call's code
    # (B11); a verify of the user's own reads what the call returned, as it is.
    plain_answers = verify is None or verify is True
    if plain_answers:
        rtol_v = _real("rtol", rtol, "a number >= 0")
        atol_v = _real("atol", atol, "a number >= 0")
        problem = _gpumeter.tolerance_problem(rtol_v, atol_v)
        if problem:
            raise ConfigError(f"{problem}", argument="rtol" if problem.startswith("rtol")
                              else "atol")
        check = _default_verify(rtol_v, atol_v)
    elif verify is False:
        check = None
    elif callable(verify):
        check = verify
    else:
        raise _bad("verify", "True, False, None or a callable verify(name, output, reference)",
                   verify)
    shared: Optional[List[Any]] = None
    if inputs is not None:
        if isinstance(inputs, (str, builtins.bytes)) or not isinstance(inputs, Sequence):
            raise _bad("inputs", "a list of tensors or arrays", inputs)
        for i, x in enumerate(inputs):
            if not hasattr(x, "clone") and not hasattr(x, "copy") and not _is_warp_array(x):
                raise _bad(f"inputs[{i}]", "a tensor or an array (with clone() or copy(), or a "
                           "Warp array)", x)
        shared = list(inputs)
    flops_v = _optional_real("flops", flops, "a number of floating-point operations per call")
    bytes_v = _optional_real("bytes", bytes, "a number of bytes moved per call")
    options = _options(device, budget, timing, allow_events_fallback,
                       flops_v is not None or bytes_v is not None, lock, allow_contended,
                       precision, max_time_s)

    fresh: Optional[_FreshInputs] = None
    if fresh_inputs is not None:
        generate = _callable("fresh_inputs", fresh_inputs, "a callable fresh_inputs(seed) "
                             "returning the arguments of one call, or None")
        if outputs is not None and (isinstance(outputs, (str, builtins.bytes)) or
                                    not isinstance(outputs, Sequence)):
            raise _bad("outputs", "a sequence of argument indices", outputs)
        fresh = _FreshInputs(generate, [_integer("outputs", k, "an argument index")
                                        for k in (outputs or ())])
        fresh.check_pure()
    elif outputs is not None:
        raise ConfigError("outputs: needs fresh_inputs (the buffers are among its arguments)",
                          argument="outputs")

    # The shared inputs are copied before any call, the untimed call that finds a runtime too.
    fingerprint = _fingerprint(shared) if shared else None
    # With fresh inputs, the runtime is found on inputs of a seed of its own.
    found_on = ({n: (lambda f=implementations[n], a=fresh.make(0): f(*a)) for n in names}
                if fresh is not None else {n: implementations[n] for n in names})
    runtimes = _runtimes.resolve_runtimes(
        found_on, 0 if device is None else int(device), resets=resets)
    runner = _Runner()
    kept: Dict[str, List[Any]] = {}
    reference: List[Any] = [None]
    impls = []
    for i, impl_name in enumerate(names):
        keep: List[Any] = [None]
        kept[impl_name] = keep
        verifier: Optional[Callable[[], None]] = None
        if check is not None and i == 0:
            # A copy of the first output: a later implementation may write the same buffer.
            def keep_reference(n: str = impl_name) -> None:
                reference[0] = _copy(kept[n][0])
            verifier = runner.wrap(keep_reference)
        elif check is not None:
            def check_output(n: str = impl_name,
                             c: Callable[[str, Any, Any], None] = check) -> None:
                c(n, kept[n][0], reference[0])
            verifier = runner.wrap(check_output)
        r = resets.get(impl_name)
        k_fn = scaled_by.get(impl_name)
        if fresh is not None:
            # The first implementation is checked too, against itself run again on the same
            # seed: what its checks cost the device is what a check costs where no other
            # implementation's work is in it (the moved-work rule's reference).
            impls.append(_fresh_implementation(
                runner, fresh, impl_name, implementations[impl_name], keep,
                None if check is None else (implementations[names[0]], check),
                r, k_fn, impl_name if plain_answers else None,
                argument=f"implementations[{impl_name!r}]"))
            continue
        impls.append(_gpumeter.Implementation(
            impl_name, runner.wrap(implementations[impl_name], keep,
                                   argument=f"implementations[{impl_name!r}]",
                                   plain=impl_name if plain_answers and check is not None
                                   else None),
            runner.wrap(r, argument="reset") if r else None, verifier,
            runner.wrap_scaled(k_fn) if k_fn else None))
    case = _gpumeter.Case(
        _text("name", name), impls, flops=flops_v, bytes=bytes_v,
        count_copies=_flag("count_copies", count_copies),
        inputs_fingerprint=runner.wrap_value(fingerprint) if fingerprint else None)
    return _gpumeter.compare_result(_run(case, options, runner, runtimes))


def _fresh_implementation(runner: _Runner, fresh: _FreshInputs, name: str,
                          fn: Callable[..., Any], keep: List[Any],
                          against: Optional[Tuple[Callable[..., Any],
                                                  Callable[[str, Any, Any], None]]],
                          reset: Optional[Callable[[], Any]],
                          scaled: Optional[Callable[..., Any]],
                          plain: Optional[str] = None,
                          argument: str = "fn") -> _gpumeter.Implementation:
    """An implementation called on fresh inputs (B11): ``prepare(seed)`` makes its arguments,
    ``run()`` calls it on them, ``check(seed)`` rebuilds the same inputs, runs the reference on
    them and checks the answer kept from the call."""
    slot: List[Tuple[Any, ...]] = [()]

    def prepare(seed: int) -> None:
        slot[0] = fresh.make(seed)

    first = [True]

    def run() -> None:
        out = fn(*slot[0])
        if first[0]:  # the untimed call, before any timing
            first[0] = False
            try:
                _refuse_lazy_result(argument, out)
            except ConfigError as e:
                runner.refuse(e)
        out = fresh.output_of(slot[0], out)
        keep[0] = out if plain is None else _plain_answer(plain, out)

    def check_answer(seed: int) -> None:
        assert against is not None
        reference, compare_outputs = against
        args = fresh.make(seed)
        expected = fresh.output_of(args, reference(*args))
        compare_outputs(name, keep[0], expected)

    def scaled_call(k: int) -> None:
        assert scaled is not None
        scaled(k, *slot[0])

    return _gpumeter.Implementation(
        name, runner.wrap(run), runner.wrap(reset, argument="reset") if reset else None, None,
        runner.wrap_scaled(scaled_call) if scaled else None,
        prepare=runner.wrap_seeded(prepare),
        check=runner.wrap_seeded(check_answer) if against is not None else None)


# --- records and environment ------------------------------------------------------------------


def write_record(result: Union[Result, CompareResult, "PhasesResult", "SweepResult", Record,
                              Mapping[str, Any]],
                 directory: Union[str, os.PathLike[str]] = "gpumeter-results") -> str:
    """Writes the record of a result as ``gpumeter-<run id>.json`` in ``directory``.

    Written atomically and never over an existing file; ``gpumeter report`` (or
    ``python -m gpumeter report``) renders it, ``gpumeter compare`` compares two.

    Args:
        result: What measure(), compare(), phases() or sweep() returned, a Record, or a record
            as a dict (read as strictly as a file).
        directory: Where to write; created if needed.

    Returns:
        str: The path written.

    Raises:
        ConfigError: ``result`` or ``directory`` of the wrong type.
        InvalidRecord: a dict that is not a record gpumeter can stand behind.
        Error: the file exists already, or cannot be written.
    """
    if not isinstance(directory, (str, os.PathLike)):
        raise _bad("directory", "a path", directory)
    record: Record
    if isinstance(result, SweepResult) and result.record is None:
        raise ConfigError(f"result: {result}; there is no record to write",
                          argument="result")
    if isinstance(result, (Result, CompareResult, PhasesResult, SweepResult)):
        record = result.record
    elif isinstance(result, Record):
        record = result
    elif isinstance(result, Mapping):
        record = Record.from_json(_wire.record_text(result), "(the dict given to write_record)")
    else:
        raise _bad("result", "what measure() or compare() returned, a Record, or a record's "
                   "dict", result)
    return _gpumeter.write_record(record, os.fspath(directory))


def read_record(path: Union[str, os.PathLike[str]]) -> Record:
    """Reads a record file with the checks of ``gpumeter report``.

    Every derived value (summaries, rates, comparisons) is recomputed from the raw samples, and
    a record whose stored values differ is refused.

    Args:
        path: The record's file.

    Returns:
        Record: typed; ``.to_dict()`` for its JSON as a dict.

    Raises:
        ConfigError: ``path`` is not a path.
        InvalidRecord: the file is missing, unreadable, not UTF-8, not JSON, truncated, altered
            or oversized; ``path`` and ``problem`` say which and why.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise _bad("path", "a path", path)
    return _gpumeter.read_record(os.fspath(path))


def env(device: int = 0) -> Dict[str, Any]:
    """The host, the device and its state, as a record made now would hold them.

    Args:
        device: CUDA device index.

    Returns:
        dict: what ``gpumeter env --json`` prints: ``host``, ``device`` (None without a usable
        device, then ``device_unavailable`` says why), ``device_state``, ``cupti`` and
        ``not_available``.

    Raises:
        ConfigError: ``device`` is not an index.
    """
    index = _integer("device", device, "a CUDA device index")
    try:
        rc, out, err = _gpumeter.cli(["env", "--json", "--device", str(index)])
    finally:
        _gpumeter.release_cupti()  # reading CUPTI's state claimed it: a profiler may follow
    if rc != 0:
        raise ConfigError(err.strip(), argument="device")
    return _wire.read_object(out)


def release_cupti() -> None:
    """Gives CUPTI back until the next measurement. Kept for older code: every measure(),
    compare() and env() already gives CUPTI back when it returns.

    CUPTI serves one client per process. gpumeter claims it while it measures and releases it
    after every measurement phase, so PyTorch's profiler started between two calls records the
    GPU. The next measurement claims CUPTI again; if another client holds it then, gpumeter
    names that client and measures nothing, except PyTorch's profiler after its context has
    ended, which keeps its subscription while collecting nothing. A no-op without CUDA.
    """
    _gpumeter.release_cupti()


def main(argv: Optional[Sequence[str]] = None) -> int:
    """`python -m gpumeter report|compare|merge|env|lock|plot|run|evaluate|history ...`: the
    gpumeter command."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["evaluate"]:
        # Candidates in processes of their own, judged here; the C++ command's `evaluate` runs
        # this.
        return _evaluate.main(args[1:])
    if args[:1] == ["plot"]:
        # Drawn in Python (matplotlib); the C++ command's `plot` runs this.
        from .plot import main as plot_main
        return plot_main(args[1:])
    rc, out, err = _gpumeter.cli(args)
    sys.stdout.write(out)
    sys.stderr.write(err)
    return rc


from ._phases import PhasesResult, phases  # noqa: E402  (they use the functions above)
from ._sweep import SweepResult, sweep  # noqa: E402
from . import _evaluate  # noqa: E402  (gpumeter evaluate: docs/evaluation.md)
