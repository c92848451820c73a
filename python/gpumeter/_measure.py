"""gpumeter.measure() and gpumeter.compare(): one callable timed, or implementations of one
operation checked and then compared, each run as one case of the C++ core."""

from __future__ import annotations

import builtins
from typing import Any, Callable, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Union

from . import _core, _gpumeter, _runtimes
from ._answers import DEFAULT_ATOL, DEFAULT_RTOL, _checked_tolerances, _copy, _default_verify, _is_warp_array, _plain_answer
from ._checks import (_bad, _callable, _flag, _integer, _optional_real, _per_name,
                      _refuse_lazy_result, _shown, _text)
from ._core import _options, _run, _Runner
from ._errors import ConfigError
from ._gpumeter import CompareResult, Result
from ._inputs import _fingerprint, _FreshInputs

#: Set by ``gpumeter evaluate``'s run process (``_evaluate_child``) before any candidate code is
#: imported: the checker that answers are sent to with the default check and fresh inputs. Code
#: that unsets it only makes its record claim checks the checker never made, which the parent
#: refuses.
_checker_link: Optional[Any] = None

#: How a measurement is timed: "auto" (kernel-records where a GPU is usable, else host-clock,
#: with a FallbackWarning), "cupti" (short for "kernel-records": device time from the device's
#: record of each kernel), "events" (short for "device-events": a device event pair per call) or
#: "host" (short for "host-clock": the host clock around a synchronized call). Result.method
#: says the full name back.
Timing = Literal["auto", "cupti", "events", "host", "kernel-records", "device-events",
                 "host-clock"]


def measure(fn: Callable[[], Any], *, reset: Optional[Callable[[], Any]] = None,
            count_copies: bool = False, flops: Optional[float] = None,
            bytes: Optional[float] = None, device: Optional[int] = None,  # noqa: A002
            budget: Union[Tuple[float, float], str, None] = None, timing: Timing = "auto",
            allow_events_fallback: bool = False, name: str = "measure", lock: bool = True,
            allow_contended: bool = False,
            scaled: Optional[Callable[[int], Any]] = None,
            precision: Union[float, str, None] = None,
            max_time_s: Union[float, str, None] = None,
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
        budget: (warm-up ms, measure ms), or its text as ``--budget`` takes it ("25,100"), read
            by the core's rule; None: the core's default (``--budget``'s, option_specs()).
        timing: "auto" (kernel-records where a GPU is usable, else host-clock with a
            FallbackWarning), "cupti" or "kernel-records" (the device's record of each kernel),
            "events" or "device-events" (a device event pair per call) or "host" or
            "host-clock" (the host clock around a synchronized call).
        allow_events_fallback: Time with device-events when kernel-records cannot be taken
            (a FallbackWarning says so; device-events rows never compare with kernel-records
            rows).
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
            level (the passes' geometric mean) is within +-precision (a fraction: 0.01 or "1%";
            a bare 1 or more is refused, as ``--precision`` refuses it), or until
            ``max_time_s``; ``Result.precision`` says what was reached and why it stopped.
        max_time_s: The cap of a run to ``precision``: seconds, or a duration's text as
            ``--max-time`` takes it ("10s", "500ms"), read by the core's rule and range; only
            with ``precision``. None (the default): the core's cap (``--max-time``'s).
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
                          count_copies=_flag("count_copies", count_copies),
                          yardstick=_core._yardstick)
    return _run(case, options, runner, runtimes).results[0]


def compare(implementations: Mapping[str, Callable[[], Any]], *,
            reset: Union[None, Callable[[], Any], Mapping[str, Callable[[], Any]]] = None,
            verify: Union[None, bool, Callable[[str, Any, Any], None]] = None,
            inputs: Optional[Sequence[Any]] = None, rtol: float = DEFAULT_RTOL,
            atol: float = DEFAULT_ATOL,
            count_copies: bool = False, flops: Optional[float] = None,
            bytes: Optional[float] = None, device: Optional[int] = None,  # noqa: A002
            budget: Union[Tuple[float, float], str, None] = None, timing: Timing = "auto",
            allow_events_fallback: bool = False, name: str = "compare", lock: bool = True,
            allow_contended: bool = False,
            scaled: Optional[Mapping[str, Callable[[int], Any]]] = None,
            precision: Union[float, str, None] = None,
            max_time_s: Union[float, str, None] = None,
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
    95%); for the host clock, three rounds of A B C C B A and the host-clock rule: a difference
    only where the passes' interval excludes none, the medians differ by 1.5x or more and the
    means agree, else "no difference this machine can resolve now (...; passes spread N%; load
    average L)".

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
        rtol: Relative tolerance of the default check (stated in the record: each checked
            Result's ``answer_check``).
        atol: Absolute tolerance of the default check. Refused (ConfigError) where the first
            answer shows it proves nothing: an answer of zeros, or of one constant (the
            reference answer's mean or the middle of its range) in every element, would pass.
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
            with the first would detect a difference of ``precision`` (a fraction: 0.01 or
            "1%"; a bare 1 or more is refused, as ``--precision`` refuses it), or until
            ``max_time_s``. The stop reads only the width, never the estimate, so stopping
            cannot make a difference appear; each sentence ends with what was reached.
        max_time_s: The cap of a run to ``precision``: seconds, or a duration's text as
            ``--max-time`` takes it ("10s", "500ms"), read by the core's rule and range; only
            with ``precision``. None (the default): the core's cap (``--max-time``'s).
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
    # The default check's tolerances, stated in the record beside each checked row.
    tolerances: Tuple[Optional[float], Optional[float]] = (None, None)
    if plain_answers:
        rtol_v, atol_v = _checked_tolerances(rtol, atol)
        check = _default_verify(rtol_v, atol_v)
        tolerances = (rtol_v, atol_v)
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
        inputs_fingerprint=runner.wrap_value(fingerprint) if fingerprint else None,
        rtol=tolerances[0], atol=tolerances[1], yardstick=_core._yardstick)
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

    untimed = [True]

    def check_answer(seed: int) -> None:
        assert against is not None
        link = _checker_link
        if link is not None and plain is not None:
            # Under `gpumeter evaluate`: the answer goes to the checker, a process no candidate
            # code runs in, which rebuilds the inputs, runs the reference and compares (B11).
            was_untimed, untimed[0] = untimed[0], False
            link.check(name, seed, keep[0], was_untimed)
            return
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
