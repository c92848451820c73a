"""What a user waits for beyond the warm call: gpumeter.phases() (docs/phases.md).

A candidate is named by reference, ``"package.module:function"``, so that a fresh process can
import it: ``function(**params)`` returns its steps, a dict (or an object with the attributes) of
zero-argument callables:

    init      import and initialise the framework (nothing heavy may happen at the module's
              import: that would count as process start)
    compile   compile or load the kernel (cold with every kernel cache empty, else cached)
    convert   convert and copy the inputs into the framework
    build     build a structure the call needs (a BVH, a plan), if any
    call      the public call: what a user's code calls
    kernel    the bare kernel launch, without the call's wrapper work (optional)
    capture   capture the call into a CUDA graph; returns a replay callable (optional)
    refit, rebuild, downstream
              refit or rebuild the structure, the next stage downstream (optional, warm)
    sync      synchronize the runtime that launched the work (Warp, CuPy, PyTorch)
    result    the call's result as a NumPy array, to check the candidates agree (optional)

Fresh processes (``processes`` of them per setting, candidates interleaved) time process start,
init, cold compile (empty caches) or cached load, conversion, first build and first launch, and
the totals of N calls from the spawn, one sample per process. This process then sets each
candidate up and times, warm: the kernel's device time (the core's measurement), the bare kernel
and the public call with the synchronized wall clock (their difference is the wrapper's work),
graph capture and replay, refit, rebuild and the next stage. The device lock is held throughout.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from . import _child, _gpumeter, _runtimes
from ._answers import DEFAULT_ATOL, DEFAULT_RTOL, _checked_tolerances, _copy, _default_verify
from ._core import _options, _raise_run_error, _run, _Runner
from ._runtimes import deviations as _runtime_deviations
from ._errors import ConfigError, Error, UserCodeError

# The kernel caches a fresh process is given empty (cold) or warm (cached), each the framework's
# own setting: Warp's kernel cache, Triton's cache, TorchInductor's, CuPy's (its NVRTC output) and
# the driver's JIT cache of PTX (CUDA_CACHE_PATH), which would otherwise keep a "cold" PTX compile
# warm across processes.
CACHE_VARIABLES: Tuple[str, ...] = ("WARP_CACHE_PATH", "TRITON_CACHE_DIR",
                                    "TORCHINDUCTOR_CACHE_DIR", "CUPY_CACHE_DIR", "CUDA_CACHE_PATH")

def _steps_of(steps: Any, name: str) -> Optional[Callable[..., Any]]:
    fn = steps.get(name) if isinstance(steps, Mapping) else getattr(steps, name, None)
    return fn if callable(fn) else None


def _resolve(reference: str) -> Callable[..., Any]:
    module_name, _, attribute = reference.partition(":")
    target: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        target = getattr(target, part)
    if not callable(target):
        raise ConfigError(f"candidates: {reference!r} is not a callable", argument="candidates")
    return target  # type: ignore[no-any-return]


def _check_reference(name: str, reference: object) -> str:
    if not isinstance(reference, str) or ":" not in reference or reference.startswith(":") \
            or reference.endswith(":"):
        raise ConfigError(
            f"candidates[{name!r}]: must be 'package.module:function' (importable in a fresh "
            f"process), not {reference!r}", argument="candidates")
    return reference


def _fresh_process(python: str, candidate: str, params: Mapping[str, Any], compile_phase: str,
                   calls: Sequence[int], env: Mapping[str, str],
                   timeout_s: float) -> Dict[str, Any]:
    """One fresh process: spawned, then read back (its phases, or the error it raised)."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_phase_child.py")
    spawned = time.monotonic_ns()
    order = {"spawned_ns": spawned, "candidate": candidate, "params": dict(params),
             "compile_phase": compile_phase, "calls": list(calls)}
    # The child's output is kept: a candidate's prints are not gpumeter's, and a failure shows
    # their end. Its exit is seen when it has been reaped, on the clock the child read
    # (CLOCK_MONOTONIC, one for every process of the host).
    ended = _child.run([python, script], env=env, timeout_s=timeout_s, order=order)
    if ended.rc is None:
        raise Error(f"a fresh process of {candidate} did not finish in {timeout_s:g} s "
                    "and was killed; nothing of it is kept (raise timeout_s if its compile "
                    "takes longer)")
    exited_ns = ended.exited_ns
    text = ended.output
    result = ended.report
    if result is None:
        raise Error(f"a fresh process of {candidate} exited with {ended.rc} "
                    f"before reporting its phases; its last output:\n{text[-2000:]}")
    if not result.get("ok") and result.get("type") == "ConfigError":
        # A step that makes a coroutine or a generator: refused, never timed.
        raise ConfigError(
            f"candidates: {candidate}: {result.get('message')}: calling it runs none "
            "of its body, so gpumeter would time making the object that would; give each "
            "step a function that does the work when called", argument="candidates")
    if not result.get("ok"):
        step = str(result.get("step", ""))
        raise UserCodeError(
            f"a fresh process of {candidate} raised {result.get('type')} in its "
            f"{step} step: {result.get('message')}\n{result.get('traceback', '')}"
            f"{text[-2000:]}", step=f"{candidate}, fresh process, {step}",
            exception_type=str(result.get("type")),
            exception_message=str(result.get("message")))
    # The process exit: from the child's last synchronize to its exit, as this parent saw it.
    # The measured totals end at the synchronize; total(N) adds this (docs/phases.md).
    last_sync = result.get("last_sync_ns")
    if isinstance(last_sync, int) and 0 <= last_sync <= exited_ns:
        result["phases"]["process_exit"] = exited_ns - last_sync
    result["spawn_to_exit_ns"] = exited_ns - spawned
    return result


def _child_environment(cache_dir: str) -> Dict[str, str]:
    env = dict(os.environ)
    for variable in CACHE_VARIABLES:
        path = os.path.join(cache_dir, variable.lower())
        os.makedirs(path, exist_ok=True)
        env[variable] = path
    env.pop("CUPY_CACHE_IN_MEMORY", None)
    # The candidate's module is imported as this process imports it.
    paths = [p for p in sys.path if p] + [os.getcwd()]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    # JAX would take 75% of the device at its first use, which the next candidate then lacks.
    env["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    return env


def _wall_samples(runner: _Runner, fn: Callable[[], Any], sync: Callable[[], Any],
                  comparison_pass: bool,
                  estimate_ns: Optional[int] = None) -> Tuple[List[int], int]:
    """The synchronized wall clock of ``fn``, each call between two synchronizes, taken by the
    core's driver on the host clock as ``timing="host"`` takes a call: calibrated, warmed up
    (the warm-up's samples dropped) and counted by the core's budget, of one comparison pass
    where the calls are taken in two passes; a second pass counted from the first's estimate.
    Returns the samples and the estimate of one call."""

    def call() -> None:
        fn()
        sync()

    sync()
    try:
        samples, estimate = _gpumeter.host_clock_samples(runner.wrap(call), comparison_pass,
                                                         estimate_ns)
    except Error as e:
        _raise_run_error(e, runner)
    runner.raised = None
    return [int(x) for x in samples], int(estimate)


def _wall_phase(name: str, params: Mapping[str, str], implementation: str, phase: str,
                setting: str, samples: List[int],
                recaptures: Optional[int] = None) -> _gpumeter.PhaseReading:
    """One phase timed by the host clock around a synchronized call (every phase of this module
    but the kernels' device time, which the core's measurement takes)."""
    return _gpumeter.PhaseReading(name, dict(params), implementation, phase,
                                  "synchronized_wall_clock", setting, samples, recaptures)


class PhasesResult:
    """What gpumeter.phases() returns: the record (phases, totals, the warm calls' results and
    each candidate's runtime) and what the core derives from it."""

    def __init__(self, record: Any) -> None:
        self.record = record

    def total_n(self) -> List[Any]:
        """total(N) of each candidate: the decomposition beside the measured totals."""
        return list(self.record.total_n())

    def crossovers(self) -> List[Any]:
        """Where one candidate's measured total overtakes another's: brackets of N."""
        return list(self.record.call_crossovers())

    def __str__(self) -> str:
        return str(self.record.markdown())


def run_phases(candidates: Mapping[str, str], *, name: str, params: Mapping[str, Any],
               processes: int, calls: Sequence[int], options_for: Callable[[bool], Any],
               device: int, lock: bool, allow_contended: bool, verify: bool, rtol: float,
               atol: float, recaptures: int, python: str, timeout_s: float,
               resolve_runtimes: Callable[[Mapping[str, Callable[[], Any]], int], List[Any]]
               ) -> PhasesResult:
    names = list(candidates)
    row_params = {str(k): str(v) for k, v in params.items()}
    phases: List[_gpumeter.PhaseReading] = []
    totals: Dict[Tuple[str, int, str], List[int]] = {}
    fresh: Dict[Tuple[str, str, str], List[int]] = {}
    held = _gpumeter.hold_device_lock(device, allow_contended) if lock else None
    caches = tempfile.mkdtemp(prefix="gpumeter-phases-")
    try:
        # Fresh processes, the candidates interleaved and their order reversed each round, so a
        # drift of the machine (a cache of the file system, a clock) falls on each alike.
        for setting, compile_phase in (("fresh_cold", "cold_compile"),
                                       ("fresh_cached", "cached_load")):
            for i in range(processes):
                order = names if i % 2 == 0 else list(reversed(names))
                for n in order:
                    # Cold: a new empty cache per process. Cached: the one the cold processes
                    # of this candidate filled.
                    directory = os.path.join(caches, f"{names.index(n)}",
                                             f"cold-{i}" if setting == "fresh_cold" else
                                             f"cold-{processes - 1}")
                    out = _fresh_process(python, candidates[n], params, compile_phase, calls,
                                         _child_environment(directory), timeout_s)
                    for phase, ns in out["phases"].items():
                        fresh.setdefault((n, phase, setting), []).append(int(ns))
                    for k, ns in out["totals"].items():
                        totals.setdefault((n, int(k), setting), []).append(int(ns))
        for (n, phase, setting), samples in fresh.items():
            phases.append(_wall_phase(name, row_params, n, phase, setting, samples))

        # This process: every candidate set up, untimed, then read warm.
        steps: Dict[str, Any] = {}
        for n in names:
            s = _resolve(candidates[n])(**params)
            for step in ("init", "compile", "convert", "build"):
                fn = _steps_of(s, step)
                if fn is not None:
                    fn()
            if _steps_of(s, "call") is None or _steps_of(s, "sync") is None:
                raise ConfigError(f"candidates[{n!r}]: its steps need a 'call' and a 'sync'",
                                  argument="candidates")
            _steps_of(s, "sync")()  # type: ignore[misc]
            steps[n] = s
        kernels: Dict[str, Callable[[], Any]] = {}
        for n in names:
            k = _steps_of(steps[n], "kernel") or _steps_of(steps[n], "call")
            assert k is not None  # a call was checked above
            kernels[n] = k
        runtimes = resolve_runtimes(kernels, device)  # refuses Warp's CPU device, before timing
        if verify:
            _verify_outputs(steps, names, rtol, atol)

        # The kernels' device time: the core's measurement, A B B A.
        record = _measure_kernels(kernels, name, row_params, options_for(held is not None))

        warm: List[Tuple[str, str, Optional[Callable[[], Any]]]] = []
        for n in names:
            s = steps[n]
            warm += [(n, "kernel_call", _steps_of(s, "kernel")),
                     (n, "end_to_end", _steps_of(s, "call")),
                     (n, "warm_build", _steps_of(s, "build")),
                     (n, "refit", _steps_of(s, "refit")),
                     (n, "rebuild", _steps_of(s, "rebuild")),
                     (n, "downstream", _steps_of(s, "downstream"))]
        wall: Dict[Tuple[str, str], List[int]] = {}
        estimates: Dict[Tuple[str, str], int] = {}
        runner = _Runner()  # a warm call's exception raised as measure() raises it
        for warm_order in (warm, list(reversed(warm))):  # two passes, the second reversed
            for n, phase, fn in warm_order:
                if fn is not None:
                    sync = _steps_of(steps[n], "sync")
                    assert sync is not None
                    samples, estimates[(n, phase)] = _wall_samples(
                        runner, fn, sync, True, estimates.get((n, phase)))
                    wall.setdefault((n, phase), []).extend(samples)
        for n in names:
            capture = _steps_of(steps[n], "capture")
            if capture is None:
                continue
            sync = _steps_of(steps[n], "sync")
            assert sync is not None
            times, replay = [], None
            for _ in range(recaptures):
                t = time.monotonic_ns()
                replay = capture()
                sync()
                times.append(time.monotonic_ns() - t)
            phases.append(_wall_phase(name, row_params, n, "graph_capture", "warm_process",
                                      times, recaptures))
            if callable(replay):
                wall[(n, "graph_replay")] = _wall_samples(runner, replay, sync, False)[0]
        for (n, phase), samples in wall.items():
            phases.append(_wall_phase(name, row_params, n, phase, "warm_process", samples))

        measured_totals = [_gpumeter.MeasuredTotal(name, dict(row_params), n, k, setting, samples)
                           for (n, k, setting), samples in sorted(totals.items())]
        known = [r.to_record() for r in runtimes if r.runtime]
        notes = [f"fresh processes: {processes} per candidate and setting; cold ones with every "
                 f"kernel cache empty ({', '.join(CACHE_VARIABLES)}), cached ones with the "
                 "cache their candidate's cold processes filled; a framework caching elsewhere "
                 "was not emptied"]
        notes += list(_runtime_deviations(runtimes))
        if held is not None:
            notes += list(held.deviations)
        return PhasesResult(_gpumeter.with_phases(record, phases, measured_totals, known, notes))
    finally:
        shutil.rmtree(caches, ignore_errors=True)
        if held is not None:
            held.release()


def _verify_outputs(steps: Mapping[str, Any], names: Sequence[str], rtol: float,
                    atol: float) -> None:
    """The candidates compute the same thing: each one's output (its ``result`` step) against
    the first's, before anything warm is timed, by the check compare() makes by default: the
    core's tolerance rules (atol held to the size of the first's answer, no constant answer
    passing), then allclose by ``rtol`` and ``atol``."""
    check = _default_verify(rtol, atol)
    outputs = {}
    for n in names:
        out = _steps_of(steps[n], "result")
        if out is None:
            continue
        call = _steps_of(steps[n], "call")
        sync = _steps_of(steps[n], "sync")
        assert call is not None and sync is not None
        call()
        sync()
        outputs[n] = _copy(out())  # a later candidate's call may write the same buffer
    if len(outputs) < 2:
        return
    first, *others = outputs
    for n in others:
        check(n, outputs[n], outputs[first])


def _measure_kernels(kernels: Mapping[str, Callable[[], Any]], name: str,
                     params: Mapping[str, str], options: Any) -> Any:
    runner = _Runner()  # the package's own runner: errors raised as measure() raises them
    impls = [_gpumeter.Implementation(n, runner.wrap(fn, argument=f"candidates[{n!r}]"), None,
                                      None, None)
             for n, fn in kernels.items()]
    case = _gpumeter.Case(name, impls, params=dict(params))
    return _run(case, options, runner)


def phases(candidates: Mapping[str, str], *, name: str = "phases",
           params: Optional[Mapping[str, Any]] = None, processes: int = 3,
           calls: Sequence[int] = (1, 10, 100), device: Optional[int] = None,
           timing: str = "auto", lock: bool = True, allow_contended: bool = False,
            verify: bool = True, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL,
            recaptures: int = 3, python: Optional[str] = None,
            timeout_s: float = _gpumeter.PROCESS_LIMIT_DEFAULT_SECONDS) -> PhasesResult:
    """Measures what each candidate costs a user, from a fresh process to N calls.

    Each candidate is ``"package.module:function"``; ``function(**params)`` returns its steps
    (``init``, ``compile``, ``convert``, ``build``, ``call``, ``kernel``, ``capture``, ``sync``,
    ``result``...: see this module's documentation). In ``processes`` fresh processes per setting
    (kernel caches empty, then warm) gpumeter times process start, init, cold compile or cached
    load, conversion, first build, first launch and the totals of each N in ``calls`` from the
    spawn; then in this process the kernels' device time (CUPTI, A B B A), and with the
    synchronized wall clock the bare kernel, the public call, graph capture and replay, refit,
    rebuild and the next stage. The device lock is held throughout. Phases a candidate does not
    supply read "not measured". Wall-clock phases are compared by the host clock's rule (each
    fresh process or warm call a pass: no claim the readings' spread does not support, and none
    under the 1.5x floor) and never with device time.

    Args:
        candidates: Names to references, e.g. ``{"warp": "mypkg.saxpy:warp_candidate"}``.
        name: The case's name in the record.
        params: Keyword arguments of every candidate's function; recorded as the case's params.
        processes: Fresh processes per candidate and setting (cold, cached), 1 to 100.
        calls: The N of the measured totals (each from 1 to 100000).
        device: CUDA device index (default 0).
        timing: How the kernels' device time is taken, as for :func:`gpumeter.measure`.
        lock: Hold the device's exclusive lock throughout (``lock=False`` is a deviation).
        allow_contended: Go ahead when other processes use the device (marked contended).
        verify: Check that candidates with a ``result`` step agree, by compare()'s default
            check (``rtol``, ``atol``).
        rtol: Relative tolerance of the check.
        atol: Absolute tolerance of the check. Refused (ConfigError), as compare() refuses it,
            where it would pass an all-zero or constant answer against the first candidate's.
        recaptures: Graph captures timed per candidate with a ``capture`` step.
        python: The interpreter of the fresh processes (default: this one).
        timeout_s: How long one fresh process may take before it is killed (an error).

    Returns:
        PhasesResult: ``record`` (write it with ``gpumeter.write_record``), ``total_n()``,
        ``crossovers()``, and ``str()`` the report.

    Raises:
        ConfigError: an argument of the wrong type or value, named in ``argument`` (a
            tolerance that would pass an all-zero answer, as compare() refuses it); a
            callable that does no work when called (a generator or ``async def`` function, or
            one that returned a generator, a coroutine or an awaitable), refused before timing.
        UserCodeError: a candidate raised, in a fresh process or here.
        WrongDevice: a Warp candidate resolved to Warp's CPU device (before timing).
        VerificationFailed: the candidates' outputs differ.
        DeviceBusy: another process uses the device or holds its lock.
        Error: a fresh process hung (killed after ``timeout_s``), or as for measure().
    """
    if not isinstance(candidates, Mapping) or not candidates:
        raise ConfigError("candidates: must be a non-empty dict of names to "
                          "'package.module:function' references", argument="candidates")
    refs = {str(n): _check_reference(str(n), r) for n, r in candidates.items()}
    if params is not None and not isinstance(params, Mapping):
        raise ConfigError(f"params: must be a dict of keyword arguments, not {params!r}",
                          argument="params")
    if isinstance(processes, bool) or not isinstance(processes, int) or not 1 <= processes <= 100:
        raise ConfigError(f"processes: must be an integer from 1 to 100, not {processes!r}",
                          argument="processes")
    if isinstance(recaptures, bool) or not isinstance(recaptures, int) or \
            not 1 <= recaptures <= 1000:
        raise ConfigError(f"recaptures: must be an integer from 1 to 1000, not {recaptures!r}",
                          argument="recaptures")
    n_calls = list(calls) if isinstance(calls, Sequence) and not isinstance(calls, str) else None
    if not n_calls or any(isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 100_000
                          for k in n_calls):
        raise ConfigError(f"calls: must be a list of integers from 1 to 100000, not {calls!r}",
                          argument="calls")
    # The core's rule of a process's time limit, as `gpumeter evaluate --timeout` reads it: at
    # least 1 s, finite (inf and nan are no limit).
    if not isinstance(timeout_s, (int, float)) or isinstance(timeout_s, bool):
        raise ConfigError(f"timeout_s: must be a number of seconds, not {timeout_s!r}",
                          argument="timeout_s")
    problem = _gpumeter.value_problem("timeout_s", float(timeout_s), "process_limit_seconds")
    if problem:
        raise ConfigError(problem, argument="timeout_s")
    # The tolerances as compare() takes them, refused before anything runs where they cannot
    # make a verdict (the rule that needs the answers is applied to them, before warm timing).
    rtol_v, atol_v = _checked_tolerances(rtol, atol) if verify else (rtol, atol)
    index = 0 if device is None else device
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise ConfigError(f"device: must be a CUDA device index, not {device!r}",
                          argument="device")

    def options_for(lock_held: bool) -> Any:
        return _options(index, None, timing, False, False, lock, allow_contended,
                        lock_held=lock_held)

    return run_phases(
        refs, name=name, params=dict(params or {}), processes=processes,
        calls=sorted(set(n_calls)), options_for=options_for, device=index, lock=lock,
        allow_contended=allow_contended, verify=bool(verify), rtol=rtol_v, atol=atol_v,
        recaptures=recaptures, python=python or sys.executable, timeout_s=float(timeout_s),
        resolve_runtimes=_runtimes.resolve_runtimes)
