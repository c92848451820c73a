"""gpumeter for Python: time GPU work (PyTorch, Triton, CuPy, Warp, your own kernels) with the
same C++ core as gpumeter's C++ API and benchmark programs: CUPTI device time attributed by
identity, the A B C C B A order, calibrated comparisons, fail-closed errors and JSON records.

    import gpumeter
    r = gpumeter.measure(lambda: torch.mm(a, b), flops=2 * n**3)
    print(r.device_busy.median_us, r.tflops)

    c = gpumeter.compare({"eager": f, "compiled": torch.compile(f)}, inputs=[x])
    print(c)                         # "compiled is 31% faster than eager (95% interval ...)"
    gpumeter.write_record(c)         # gpumeter-results/gpumeter-<run id>.json

Work that another thread launches (PyTorch's autograd engine, JAX's runtime) is refused as
OffThreadLaunch: see gpumeter.OffThreadLaunch for the fixes.
"""

from __future__ import annotations

import ctypes
import glob
import json
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union


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
from ._gpumeter import (  # noqa: E402,F401
    AttributionError,
    ConfigError,
    CuptiUnavailable,
    DeviceBusy,
    DeviceError,
    Error,
    IncomparableStatistics,
    InputsModified,
    InvalidRecord,
    MixedTimingMethods,
    OffThreadLaunch,
    RecordsLost,
    TimestampUnitMismatch,
    UserCodeError,
    VerificationFailed,
    WrongDevice,
)

__version__ = _gpumeter.version()
__all__ = [
    "measure", "compare", "write_record", "read_record", "env", "release_cupti", "Result",
    "Comparison",
    "CompareResult", "Spread", "Sample", "Error", "RecordsLost", "OffThreadLaunch",
    "AttributionError", "CuptiUnavailable", "InputsModified", "VerificationFailed",
    "MixedTimingMethods", "IncomparableStatistics", "WrongDevice", "DeviceError", "DeviceBusy",
    "InvalidRecord", "ConfigError", "TimestampUnitMismatch", "UserCodeError",
]

_ERRORS = {cls.__name__: cls for cls in (
    AttributionError, ConfigError, CuptiUnavailable, DeviceBusy, DeviceError, Error,
    IncomparableStatistics,
    InputsModified, InvalidRecord, MixedTimingMethods, OffThreadLaunch, RecordsLost,
    TimestampUnitMismatch, UserCodeError, VerificationFailed, WrongDevice)}


# --- results ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Spread:
    """Median, 10th and 90th percentile of a statistic, in nanoseconds."""

    median_ns: float
    p10_ns: float
    p90_ns: float

    @property
    def median_us(self) -> float:
        return self.median_ns / 1e3


@dataclass(frozen=True)
class Sample:
    """One measured iteration."""

    device_busy_ns: int
    latency_ns: int
    n_kernels: Optional[int]
    uncounted_copy_ns: int


@dataclass(frozen=True)
class Result:
    """One implementation measured: its summary (computed by the C++ core) and raw samples."""

    name: str
    method: str  # "cupti", "cuda-events", "host-wall"
    statistic: str  # "device_busy", "cuda_event", "synchronized_wall_clock"
    device_busy: Spread
    latency: Spread
    n_samples: int
    max_n_kernels: Optional[int]
    uncounted_copy_ns: float
    retries: int
    tflops: Optional[float]
    tbs: Optional[float]
    pct_of_peak_flops: Optional[float]
    pct_of_peak_bandwidth: Optional[float]
    samples: Tuple[Sample, ...]
    pass_sizes: Tuple[int, ...]
    reason: str
    record: Dict[str, Any] = field(repr=False)
    # The null test, when `scaled` was given: "4x the work took 4.0x the time: pass", and
    # whether it failed (a failed row's times are not the work's; it is compared with nothing).
    null_test: Optional[str] = None
    null_test_failed: bool = False
    # Clock state per sample (None where the clock could not be read): the SM clock's median and
    # range, and the samples flagged as possibly slowed by their clock: below 95% of the row's
    # highest clock (clock_below_reference_samples), or under a thermal or hardware slowdown.
    # throttle_reason_samples counts the samples each slowing reason was set around
    # ("sw_power_cap", routine on a loaded GPU and no flag by itself, "hw_slowdown",
    # "sw_thermal", "hw_thermal", "hw_power_brake").
    median_sm_clock_mhz: Optional[float] = None
    min_sm_clock_mhz: Optional[int] = None
    max_sm_clock_mhz: Optional[int] = None
    clock_flagged_samples: Optional[int] = None
    clock_below_reference_samples: Optional[int] = None
    throttle_reason_samples: Optional[Dict[str, int]] = None
    # Memory of the call's case, each in its domain (None: not available): this process's device
    # memory above its context floor (NVML), and the host's peak resident set (VmHWM). The floor
    # is read when the process first opens the device for gpumeter, so whatever the process
    # allocated since (inputs included) counts: compare memory across fresh processes.
    gpu_workload_bytes: Optional[int] = None
    host_peak_rss_bytes: Optional[int] = None
    # Whether a percent of peak is above 100: the row ran faster than the fastest run of the
    # ceiling's work (timed like the row), a finding, not an error (None: no percent).
    above_flops_ceiling: Optional[bool] = None
    above_bandwidth_ceiling: Optional[bool] = None

    def __str__(self) -> str:
        s = (f"{self.name}: {self.statistic} median {self.device_busy.median_ns / 1e3:.3g} us "
             f"[p10 {self.device_busy.p10_ns / 1e3:.3g}, p90 {self.device_busy.p90_ns / 1e3:.3g}], "
             f"latency {self.latency.median_ns / 1e3:.3g} us, {self.n_samples} samples")
        if self.tflops is not None:
            s += f", {self.tflops:.3g} TFLOP/s"
        if self.tbs is not None:
            s += f", {self.tbs:.3g} TB/s"
        for pct, above, what in ((self.pct_of_peak_flops, self.above_flops_ceiling, "FLOP/s"),
                                 (self.pct_of_peak_bandwidth, self.above_bandwidth_ceiling,
                                  "TB/s")):
            if pct is not None:
                s += f", {pct:.3g}% of the measured {what} ceiling"
                if above:
                    s += " (above the measured ceiling)"
        return s


@dataclass(frozen=True)
class Comparison:
    """One implementation against the first (the baseline), by the rule of their statistic."""

    baseline: str
    candidate: str
    rule: str  # "relative_difference" (device time) or "resolution_1.5x" (wall clock)
    estimate: Optional[float]  # candidate / baseline - 1
    low: Optional[float]
    high: Optional[float]
    smallest_detectable: Optional[float]
    refusal: str
    text: str  # the sentence a reader sees first

    @property
    def slower(self) -> bool:
        return self.low is not None and self.low > 0

    @property
    def faster(self) -> bool:
        return self.high is not None and self.high < 0

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class CompareResult:
    results: Dict[str, Result]
    comparisons: Tuple[Comparison, ...]
    record: Dict[str, Any] = field(repr=False)

    def __str__(self) -> str:
        return "\n".join([str(r) for r in self.results.values()] +
                         [str(c) for c in self.comparisons])


def _spread(summary: Mapping[str, Any], key: str) -> Spread:
    s = summary[key]
    return Spread(s["median"] * 1e6, s["p10"] * 1e6, s["p90"] * 1e6)


def _result(row: Mapping[str, Any], record: Dict[str, Any]) -> Result:
    s = row["summary"]
    raw = row["samples"]
    kernels = raw["n_kernels"] or [None] * len(raw["device_busy_ns"])
    samples = tuple(Sample(b, lat, k, c) for b, lat, k, c in zip(
        raw["device_busy_ns"], raw["latency_ns"], kernels, raw["uncounted_copy_ns"]))
    memory = row["memory"]
    floor, after = memory["gpu_context_floor_bytes"], memory["gpu_after_case_bytes"]
    null = row["null_test"]
    null_text = None
    if null is not None:
        null_text = (f"{null['scale']}x the work took {null['ratio']:.2g}x the time: "
                     f"{'pass' if null['pass'] else 'FAIL'}" if null["ratio"] is not None
                     else "null test not evaluated: FAIL")
    return Result(
        name=row["implementation"], method=row["timing_method"], statistic=row["statistic"],
        null_test=null_text, null_test_failed=null is not None and not null["pass"],
        median_sm_clock_mhz=s["median_sm_clock_mhz"],
        min_sm_clock_mhz=s["min_sm_clock_mhz"], max_sm_clock_mhz=s["max_sm_clock_mhz"],
        clock_flagged_samples=s["clock_flagged_samples"],
        clock_below_reference_samples=s["clock_below_reference_samples"],
        throttle_reason_samples=(None if s["clock_flagged_samples"] is None
                                 else dict(s["throttle_reason_samples"])),
        gpu_workload_bytes=after - floor if floor is not None and after is not None else None,
        host_peak_rss_bytes=memory["host_peak_rss_bytes"],
        device_busy=_spread(s, "device_busy_ms"), latency=_spread(s, "latency_ms"),
        n_samples=s["n_samples"], max_n_kernels=s["max_n_kernels"],
        uncounted_copy_ns=s["uncounted_copy_ms"] * 1e6, retries=s["retries"], tflops=s["tflops"],
        tbs=s["tbs"], pct_of_peak_flops=s["pct_of_peak_flops"],
        pct_of_peak_bandwidth=s["pct_of_peak_bandwidth"],
        above_flops_ceiling=s["above_flops_ceiling"],
        above_bandwidth_ceiling=s["above_bandwidth_ceiling"], samples=samples,
        pass_sizes=tuple(row["pass_sizes"]), reason=row["reason"], record=record)


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

    def wrap(self, fn: Callable[[], Any], keep: Optional[List[Any]] = None) -> Callable[[], None]:
        def call() -> None:
            out = self._call(fn)
            if keep is not None:
                keep[0] = out
        return call

    def wrap_scaled(self, fn: Callable[[int], Any]) -> Callable[[int], None]:
        def call(k: int) -> None:
            self._call(fn, k)
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


def _options(device: Optional[int], budget: Optional[Tuple[float, float]], timing: str,
             allow_events_fallback: bool, workload: bool, lock: bool = True,
             allow_contended: bool = False) -> Dict[str, Any]:
    # The device's ceilings (for % of peak) are measured once per process, and only when a
    # workload is declared: they cost about a second the first time.
    opts: Dict[str, Any] = {"device": 0 if device is None else int(device), "timing": timing,
                            "allow_events_fallback": bool(allow_events_fallback),
                            "argv": list(sys.argv), "ceilings": bool(workload),
                            "share_cupti": _cupti_sharing() if timing != "host" else False,
                            "lock": bool(lock), "allow_contended": bool(allow_contended)}
    if budget is not None:
        opts["warmup_ms"], opts["measure_ms"] = (float(budget[0]), float(budget[1]))
    return opts


def _run(cases: List[Dict[str, Any]], options: Dict[str, Any], runner: _Runner) -> Dict[str, Any]:
    text = _gpumeter.run(cases, options)
    record = json.loads(text)
    for failure in record["failures"]:
        raised = runner.raised
        # gpumeter's own errors raised in a callable (the default check's VerificationFailed)
        # keep their cause; Ctrl-C and SystemExit stay what they are.
        if raised is not None and (isinstance(raised, Error) or
                                   not isinstance(raised, Exception)):
            raise raised
        # The core's error by its cause: UserCodeError for a callable's exception, which is
        # kept as the __cause__ (its traceback points into the user's code).
        cls = _ERRORS.get(failure["error"], Error)
        raise cls(failure["message"]) from raised
    return record


def measure(fn: Callable[[], Any], *, reset: Optional[Callable[[], Any]] = None,
            count_copies: bool = False, flops: Optional[float] = None,
            bytes: Optional[float] = None, device: Optional[int] = None,  # noqa: A002
            budget: Optional[Tuple[float, float]] = None, timing: str = "auto",
            allow_events_fallback: bool = False, name: str = "measure", lock: bool = True,
            allow_contended: bool = False,
            scaled: Optional[Callable[[int], Any]] = None) -> Result:
    """Measures `fn` (a call that launches GPU work) and returns its typed Result.

    reset: restores inputs `fn` overwrites, before every call, untimed. count_copies: count
    memcpy/memset time as device time. flops, bytes: per call, for TFLOP/s and TB/s.
    budget: (warm-up ms, measure ms), default (25, 100). timing: "auto" (CUPTI where a GPU is
    usable, else the host clock), "cupti", "events", or "host". The device_busy statistic counts
    only the kernels' own time: the Python call between them adds to latency, never to it.
    lock: hold the device's exclusive lock for the call (GPU_LOCK, else a file per device under
    /tmp), after checking that no other process uses the device; lock=False is recorded as a
    deviation. allow_contended: measure even when other processes use the device (the record is
    marked contended); otherwise a busy device raises DeviceBusy naming them.
    scaled: the null test's hook, `scaled(k)` doing k times the work of `fn` (scaled(1) is
    `fn`'s work): 4x the work must take about 4x the time (within 40%), else the result's
    null_test_failed is True and its times are not the work's.
    Raises a gpumeter.Error subclass named by its cause; an exception `fn`, `reset` or `scaled`
    raised is gpumeter.UserCodeError, with that exception as its __cause__.
    """
    runner = _Runner()
    case = {"name": name, "params": {}, "count_copies": count_copies, "flops": flops,
            "bytes": bytes,
            "implementations": [(getattr(fn, "__name__", "fn") or "fn", runner.wrap(fn),
                                 runner.wrap(reset) if reset else None, None,
                                 runner.wrap_scaled(scaled) if scaled else None)]}
    record = _run([case], _options(device, budget, timing, allow_events_fallback,
                                   flops is not None or bytes is not None, lock,
                                   allow_contended), runner)
    return _result(record["results"][0], record)


def _default_verify(rtol: float, atol: float) -> Callable[[str, Any, Any], None]:
    def verify(name: str, out: Any, ref: Any) -> None:
        if out is None and ref is None:
            return
        try:  # PyTorch, CuPy, NumPy: compared on their own device where they can be
            import torch
            if isinstance(out, torch.Tensor) and isinstance(ref, torch.Tensor):
                if not torch.allclose(out, ref, rtol=rtol, atol=atol, equal_nan=False):
                    err = (out.double() - ref.double()).abs().max().item()
                    raise VerificationFailed(
                        f"{name}: output differs from the first implementation's (largest "
                        f"absolute difference {err:.3g}; rtol {rtol}, atol {atol})")
                return
        except ImportError:
            pass
        import numpy as np
        o = np.asarray(out.get() if hasattr(out, "get") else out)
        r = np.asarray(ref.get() if hasattr(ref, "get") else ref)
        if o.shape != r.shape or not np.allclose(o, r, rtol=rtol, atol=atol):
            raise VerificationFailed(
                f"{name}: output differs from the first implementation's (shape {o.shape} vs "
                f"{r.shape}; rtol {rtol}, atol {atol})")
    return verify


def _copy(x: Any) -> Any:
    """A copy of an output (tensor, array, or a tuple/list of them) that later calls cannot
    overwrite."""
    if isinstance(x, (list, tuple)):
        return type(x)(_copy(v) for v in x)
    if hasattr(x, "clone"):
        return x.clone()
    if hasattr(x, "copy"):
        return x.copy()
    return x


def _fingerprint(inputs: Sequence[Any]) -> Callable[[], int]:
    """0 while every shared input equals its copy taken at the start, 1 once one does not."""
    copies = [x.clone() if hasattr(x, "clone") else x.copy() for x in inputs]

    def changed() -> int:
        for x, c in zip(inputs, copies):
            try:
                import torch
                if isinstance(x, torch.Tensor):
                    if not torch.equal(x, c):
                        return 1
                    continue
            except ImportError:
                pass
            import numpy as np
            a = x.get() if hasattr(x, "get") else x
            b = c.get() if hasattr(c, "get") else c
            if not np.array_equal(np.asarray(a), np.asarray(b)):
                return 1
        return 0
    return changed


def compare(implementations: Mapping[str, Callable[[], Any]], *,
            reset: Union[None, Callable[[], Any], Mapping[str, Callable[[], Any]]] = None,
            verify: Union[None, bool, Callable[[str, Any, Any], None]] = None,
            inputs: Optional[Sequence[Any]] = None, rtol: float = 1e-5, atol: float = 1e-8,
            count_copies: bool = False, flops: Optional[float] = None,
            bytes: Optional[float] = None, device: Optional[int] = None,  # noqa: A002
            budget: Optional[Tuple[float, float]] = None, timing: str = "auto",
            allow_events_fallback: bool = False, name: str = "compare", lock: bool = True,
            allow_contended: bool = False,
            scaled: Optional[Mapping[str, Callable[[int], Any]]] = None) -> CompareResult:
    """Compares implementations of one operation in A B C C B A order.

    Before anything is timed, each implementation's output (its return value) is checked
    against the first's: by `verify(name, output, reference)` if given, else (verify=None or
    True) with allclose (rtol, atol) for tensors and arrays; verify=False skips it. `inputs`: shared tensors no
    implementation may change (checked before and after every pass). reset: one callable for
    all, or one per implementation. Device-time comparisons read "B is 2.8% slower than A (95%
    interval 2.6% to 3.0%)" or "no difference detected (a difference larger than x% would have
    been seen)". lock, allow_contended: as for measure(). scaled: the null test's hook per
    implementation name, as for measure(); an implementation whose null test fails is compared
    with nothing. Raises a gpumeter.Error subclass named by its cause; an exception a callable
    raised (an implementation, a reset, `verify` itself) is gpumeter.UserCodeError, with that
    exception as its __cause__.
    """
    if not implementations:
        raise ConfigError("compare: no implementations")
    runner = _Runner()
    check: Optional[Callable[[str, Any, Any], None]]
    if verify is None or verify is True:
        check = _default_verify(rtol, atol)
    elif verify is False:
        check = None
    elif callable(verify):
        check = verify
    else:
        raise ConfigError(f"compare: verify must be True, False, None or a callable "
                          f"verify(name, output, reference), not {type(verify).__name__}")
    outputs: Dict[str, List[Any]] = {}
    names = list(implementations)
    impls = []
    reference: List[Any] = [None]
    for i, (impl_name, fn) in enumerate(implementations.items()):
        keep: List[Any] = [None]
        outputs[impl_name] = keep
        r = reset.get(impl_name) if isinstance(reset, Mapping) else reset
        verifier = None
        if check is not None and i == 0:
            # A copy of the first output: a later implementation may write the same buffer.
            def verifier(n=impl_name) -> None:
                reference[0] = _copy(outputs[n][0])
            verifier = runner.wrap(verifier)
        elif check is not None:
            def verifier(n=impl_name) -> None:
                check(n, outputs[n][0], reference[0])
            verifier = runner.wrap(verifier)
        k_fn = scaled.get(impl_name) if scaled else None
        impls.append((impl_name, runner.wrap(fn, keep), runner.wrap(r) if r else None, verifier,
                      runner.wrap_scaled(k_fn) if k_fn else None))
    case = {"name": name, "params": {}, "count_copies": count_copies, "flops": flops,
            "bytes": bytes, "implementations": impls,
            "inputs_fingerprint": runner.wrap_value(_fingerprint(inputs)) if inputs else None}
    record = _run([case], _options(device, budget, timing, allow_events_fallback,
                                   flops is not None or bytes is not None, lock,
                                   allow_contended), runner)
    results = {row["implementation"]: _result(row, record) for row in record["results"]}
    texts = _gpumeter.describe_comparisons(json.dumps(record)).splitlines()
    comparisons = []
    for c, text in zip(record["comparisons"], texts):
        d = c["difference"] or {}
        comparisons.append(Comparison(c["baseline"], c["candidate"], c["rule"], d.get("estimate"),
                                      d.get("low"), d.get("high"), d.get("smallest_detectable"),
                                      c["refusal"], text))
    return CompareResult(results, tuple(comparisons), record)


# --- records and environment ------------------------------------------------------------------


def write_record(result: Union[Result, CompareResult, Mapping[str, Any]],
                 directory: str = "gpumeter-results") -> str:
    """Writes the record of `result` as gpumeter-<run id>.json in `directory` (never overwriting,
    atomically); `gpumeter report` reads it. Returns the path."""
    record = result if isinstance(result, Mapping) else result.record
    return _gpumeter.write_record(json.dumps(record), str(directory))


def read_record(path: str) -> Dict[str, Any]:
    """Reads a record strictly (the checks of `gpumeter report`) and returns it as a dict.

    The file is read by gpumeter's reader itself: a regular file of at most 256 MiB (a FIFO or a
    device is refused, not waited on), in time linear in its size. Raises InvalidRecord naming
    the file and the problem.
    """
    return json.loads(_gpumeter.read_record_file(os.fspath(path)))


def env(device: int = 0) -> Dict[str, Any]:
    """The host, the device and its state, as a record made now would hold them."""
    try:
        rc, out, err = _gpumeter.cli(["env", "--json", "--device", str(device)])
    finally:
        _gpumeter.release_cupti()  # reading CUPTI's state claimed it: a profiler may follow
    if rc != 0:
        raise Error(err.strip())
    return json.loads(out)


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
    """`python -m gpumeter report|compare|merge|env|lock ...`: the gpumeter command."""
    rc, out, err = _gpumeter.cli(list(sys.argv[1:] if argv is None else argv))
    sys.stdout.write(out)
    sys.stderr.write(err)
    return rc
