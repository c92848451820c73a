"""The runtime each candidate launches its work through, resolved before anything is timed.

A candidate's work is GPU work only if the runtime that launched it put it on the measured GPU.
Warp picks its device itself (``device=None`` is Warp's current default, which is its CPU device
on a machine where Warp found no CUDA driver): a Warp candidate is resolved through Warp's own
``warp.get_device`` and refused as WrongDevice when that is the CPU, a device Warp cannot resolve,
or another GPU than the measured one, before timing, so no CPU time is ever recorded as a GPU
time. The runtime, its version and the device as the runtime names it go into the record.

Wall-clock phases end with a synchronize, through the runtime that launched the work (Warp, then
CuPy, then PyTorch), on the measured device, never on whichever device happens to be current.

JAX preallocates 75% of the GPU's memory when its backend starts, unless
``XLA_PYTHON_CLIENT_PREALLOCATE=false``: a JAX candidate beside others would starve them and
time an allocator that is not the one users run with. gpumeter sets it off before JAX starts.

Nothing here imports a framework unless a candidate declared that runtime: frameworks already
imported are looked up in ``sys.modules``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
import inspect
import os
import sys
from typing import (Any, Callable, Dict, Iterator, List, Literal, Mapping, MutableMapping,
                    Optional, Sequence, Tuple, cast, get_args)

from . import _gpumeter
from ._errors import ConfigError, DeviceError, Error, UserCodeError, WrongDevice

#: The runtimes a candidate may declare: the framework that launches its GPU work.
Runtime = Literal["warp", "cupy", "torch", "jax", "triton", "cuda"]
RUNTIMES: Tuple[str, ...] = get_args(Runtime)

#: The runtimes that can synchronize a device, in gpumeter's order of preference when the
#: candidate's own runtime cannot: Warp's, CuPy's and PyTorch's synchronize each wait for every
#: stream of the device's primary context, where all three (and JAX, Triton) launch by default.
SYNC_PREFERENCE: Tuple[str, ...] = ("warp", "cupy", "torch")

#: JAX's switch for preallocating most of the GPU's memory when its backend starts.
JAX_PREALLOCATE = "XLA_PYTHON_CLIENT_PREALLOCATE"
#: The runtime note of a JAX candidate measured as the rule says.
JAX_PREALLOCATION_OFF = "allocator preallocation off"
#: The note (a deviation) when JAX started before gpumeter could turn preallocation off.
JAX_PREALLOCATION_ON = ("JAX allocator preallocation was on (jax imported before gpumeter set it "
                        "off)")

# What a refusal before timing puts in WrongDevice's fields: no iteration ran, and a device that
# is not a CUDA device has no CUDA index.
_BEFORE_TIMING = -1
_NOT_A_CUDA_DEVICE = -1


@dataclasses.dataclass(frozen=True)
class RuntimeInfo:
    """One candidate's runtime as the record keeps it (the record's ``runtimes``).

    The fields and ``to_dict()``'s keys are the record's: a string is "" where it does not apply
    or is not known (a candidate that declared nothing and launched no Warp kernel).

    Attributes:
        implementation: the candidate's name.
        runtime: "warp", "cupy", "torch", "jax", "triton", "cuda", or "" when not known.
        version: the runtime's version ("1.9.1").
        device_alias: the device as the runtime names it ("cuda:0").
        arch: the device's architecture ("sm_90").
        synchronized_by: the runtime whose synchronize ends each wall-clock phase, or "" when
            none can synchronize the measured device (``synchronizer`` then raises).
        notes: what else a reader must know ("allocator preallocation off").
    """

    implementation: str
    runtime: str = ""
    version: str = ""
    device_alias: str = ""
    arch: str = ""
    synchronized_by: str = ""
    notes: Tuple[str, ...] = ()

    def to_record(self) -> Any:
        """The record's ``runtimes`` entry, typed (the core's ``CandidateRuntime``)."""
        return _gpumeter.CandidateRuntime(
            self.implementation, self.runtime, self.version, self.device_alias, self.arch,
            self.synchronized_by, list(self.notes))

    def to_dict(self) -> Dict[str, Any]:
        """The record's ``runtimes`` entry: the C++ ``CandidateRuntime``'s field names."""
        return {"implementation": self.implementation, "runtime": self.runtime,
                "version": self.version, "device_alias": self.device_alias, "arch": self.arch,
                "synchronized_by": self.synchronized_by, "notes": list(self.notes)}


class Candidate:
    """A callable declared to launch its GPU work through one runtime, on one device.

    Calling it calls ``fn``. ``measure()`` and ``compare()`` take it wherever they take a
    callable, and resolve its runtime and device before timing: a Warp candidate on Warp's CPU
    device, or on another GPU than the measured one, is refused instead of timed.

    Attributes:
        fn: the callable.
        runtime: the declared runtime ("warp", "cupy", "torch", "jax", "triton", "cuda").
        device: the declared device, as the runtime names it (Warp: "cuda:0", a
            ``warp.context.Device``; others: an index or "cuda:N"), or None for the runtime's
            default device.
    """

    fn: Callable[..., Any]
    runtime: str
    device: Any

    def __init__(self, fn: Callable[..., Any], runtime: str, device: Any = None) -> None:
        if not callable(fn):
            raise ConfigError(f"fn: must be a callable that launches the work, not "
                              f"{type(fn).__name__} {fn!r:.60}", argument="fn")
        if runtime not in RUNTIMES:
            raise ConfigError(f"runtime: must be one of {', '.join(repr(r) for r in RUNTIMES)}, "
                              f"not {runtime!r:.60}", argument="runtime")
        self.fn = fn
        self.runtime = runtime
        self.device = device
        # The wrapped function's name labels the row, as a bare function's would.
        functools.update_wrapper(self, fn, updated=())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        device = "" if self.device is None else f", device={self.device!r}"
        return f"gpumeter.candidate({self.fn!r}, runtime={self.runtime!r}{device})"


def warp(fn: Callable[..., Any], device: Any = None) -> Candidate:
    """Declares ``fn`` a Warp candidate on ``device``, resolved through Warp before timing.

    A Warp kernel launched without a device runs on Warp's default device, which is Warp's CPU
    device where Warp found no CUDA driver: timed, it would be a CPU time labelled GPU. Declared,
    the device is resolved with ``warp.get_device(device)`` before anything is timed, and must be
    the CUDA device gpumeter measures; every launch of the untimed first call must be on it too.
    Warp's version, the device's alias and its architecture are recorded.

    Args:
        fn: The callable that launches the Warp kernels.
        device: What ``warp.get_device`` resolves ("cuda:0", a Warp device), or None for Warp's
            current default device.

    Returns:
        Candidate: calls ``fn``; pass it to ``measure()`` or ``compare()``.

    Raises:
        ConfigError: ``fn`` is not callable.
    """
    return Candidate(fn, "warp", device)


def candidate(fn: Callable[..., Any], runtime: Runtime, device: Any = None) -> Candidate:
    """Declares the runtime that launches ``fn``'s GPU work, so the record names it and the
    wall-clock phases synchronize through it.

    Without a declaration gpumeter knows a candidate's runtime only when it sees Warp launches
    (Warp imported); a declared runtime is recorded with its version and the device's
    architecture, and its device is checked against the measured one before timing.

    Args:
        fn: The callable that launches the work.
        runtime: "warp", "cupy", "torch", "jax", "triton" or "cuda".
        device: The device the candidate uses: for Warp, what ``warp.get_device`` resolves;
            otherwise a CUDA index or "cuda:N"; None for the runtime's default (which must be
            the measured device).

    Returns:
        Candidate: calls ``fn``; pass it to ``measure()`` or ``compare()``.

    Raises:
        ConfigError: ``fn`` is not callable, or ``runtime`` is not one of those above.
    """
    return Candidate(fn, runtime, device)


# --- JAX's allocator --------------------------------------------------------------------------


def _preallocation_off(environ: Mapping[str, str]) -> bool:
    # "platform" allocates on demand, so it does not preallocate either.
    return (environ.get(JAX_PREALLOCATE, "").strip().lower() in ("false", "0")
            or environ.get("XLA_PYTHON_CLIENT_ALLOCATOR", "").strip().lower() == "platform")


def _jax_started() -> bool:
    """Whether JAX's backends may have started (and read the allocator's settings already).

    JAX reads them when its first backend starts, not when it is imported; an imported JAX
    whose backend table is still empty can still be set. Unknown counts as started."""
    if "jax" not in sys.modules:
        return False
    bridge = sys.modules.get("jax._src.xla_bridge")
    backends = getattr(bridge, "_backends", None)
    return not (isinstance(backends, dict) and not backends)


def prepare_jax_environment(environ: Optional[MutableMapping[str, str]] = None) -> None:
    """Turns JAX's preallocation off for this process unless JAX started already or the user
    set it (a JAX candidate then turns it off while JAX has not started, or its record says it
    could not: ``jax_preallocation_note``).

    Called when gpumeter is imported: JAX reads the setting once, when its first backend starts,
    and a preallocating JAX holds 75% of the GPU's memory that other candidates then lack."""
    env = os.environ if environ is None else environ
    if not _jax_started():
        env.setdefault(JAX_PREALLOCATE, "false")


def child_environment(base: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
    """The environment for a fresh child process that runs a candidate: ``base`` (default: this
    process's) with JAX's preallocation off, so a JAX candidate started there never
    preallocates, whatever this process's JAX does."""
    env = dict(os.environ if base is None else base)
    env[JAX_PREALLOCATE] = "false"
    return env


def jax_preallocation_note(environ: Optional[MutableMapping[str, str]] = None) -> str:
    """Turns JAX's preallocation off for a JAX candidate in this process, and says whether it is.

    Returns ``JAX_PREALLOCATION_OFF`` when it is off (set now, JAX not started yet, or set
    before JAX started), else ``JAX_PREALLOCATION_ON``: a JAX that started preallocating cannot
    be changed in-process, and the record carries the note as a deviation."""
    env = os.environ if environ is None else environ
    if not _jax_started():
        env[JAX_PREALLOCATE] = "false"
        return JAX_PREALLOCATION_OFF
    return JAX_PREALLOCATION_OFF if _preallocation_off(env) else JAX_PREALLOCATION_ON


# --- synchronization ----------------------------------------------------------------------------


def _sync_order(runtime: str) -> List[str]:
    """The candidate's own runtime first where it can synchronize (Triton launches on PyTorch's
    stream, so PyTorch's), then Warp, CuPy, PyTorch."""
    own = {"warp": "warp", "cupy": "cupy", "torch": "torch", "triton": "torch"}.get(runtime)
    order = [own] if own else []
    return order + [r for r in SYNC_PREFERENCE if r != own]


def _module(name: str, may_import: bool) -> Any:
    module = sys.modules.get(name)
    if module is None and may_import:
        module = importlib.import_module(name)
    return module


def _try_sync(name: str, module: Any, index: int, warp_device: Any) -> Callable[[], None]:
    """A callable synchronizing CUDA device ``index`` through ``module``; raises (anything)
    when that runtime cannot reach the device."""
    if name == "warp":
        # The candidate's own Warp device: its context may be one Warp mapped, not the primary.
        device = warp_device if warp_device is not None else module.get_device(f"cuda:{index}")
        if not getattr(device, "is_cuda", False) or getattr(device, "ordinal", index) != index:
            raise RuntimeError(f"Warp resolves 'cuda:{index}' to {device!r}")
        warp_module = module
        return lambda: warp_module.synchronize_device(device)
    if name == "cupy":
        count = int(module.cuda.runtime.getDeviceCount())
        if index >= count:
            raise RuntimeError(f"CuPy sees {count} CUDA device(s)")
        return cast(Callable[[], None], module.cuda.Device(index).synchronize)
    if not module.cuda.is_available():
        raise RuntimeError("torch.cuda.is_available() is False")
    count = int(module.cuda.device_count())
    if index >= count:
        raise RuntimeError(f"PyTorch sees {count} CUDA device(s)")
    torch_module = module
    return lambda: torch_module.cuda.synchronize(index)


def synchronizer(device_index: int, runtime: str = "",
                 warp_device: Any = None) -> Tuple[Callable[[], None], str]:
    """A zero-argument callable that synchronizes CUDA device ``device_index``, and the name of
    the runtime it goes through.

    A wall-clock phase ends when the device has finished the candidate's work, so its end is a
    synchronize of the measured device (not of the current one, which the call may have changed)
    through the runtime that launched the work: the candidate's own when it can, then Warp
    (``warp.synchronize_device``), CuPy (``cupy.cuda.Device(i).synchronize``) and PyTorch
    (``torch.cuda.synchronize(i)``), among those imported. A declared runtime is imported if
    needed; no other is.

    Args:
        device_index: The measured CUDA device.
        runtime: The candidate's runtime ("" when not known).
        warp_device: A Warp candidate's resolved Warp device (``resolve_warp_device``), which
            Warp synchronizes; None: ``warp.get_device("cuda:<device_index>")``.

    Returns:
        (sync, name): ``sync()`` synchronizes the device; ``name`` is "warp", "cupy" or "torch".

    Raises:
        DeviceError: no runtime can synchronize the device (none imported, or none reaches it);
            the message says what each one answered.
    """
    tried: List[str] = []
    order = _sync_order(runtime)
    for name in order:
        # Only the candidate's own runtime is imported: it is in use already, or about to be.
        own = name == order[0] and runtime in ("warp", "cupy", "torch", "triton")
        try:
            module = _module(name, may_import=own)
        except ImportError as e:
            tried.append(f"{name}: cannot be imported ({e})")
            continue
        if module is None:
            tried.append(f"{name}: not imported")
            continue
        try:
            return _try_sync(name, module, device_index, warp_device), name
        except Exception as e:  # noqa: BLE001  (any failure: this runtime cannot synchronize)
            tried.append(f"{name}: {type(e).__name__}: {e}")
    of = f" for a {runtime} candidate" if runtime else ""
    raise DeviceError(
        f"nothing can synchronize CUDA device {device_index}{of}, so no wall-clock time can end "
        f"when its work has finished ({'; '.join(tried)}): import Warp, CuPy or PyTorch with CUDA "
        f"support in the measuring process, or measure device time")


def _sync_choice(runtime: str, device_index: int, warp_device: Any = None) -> str:
    try:
        return synchronizer(device_index, runtime, warp_device)[1]
    except (DeviceError, ImportError):
        return ""


# --- Warp ---------------------------------------------------------------------------------------


def _arch(value: Any) -> str:
    """"sm_90" from Warp's 90, PyTorch's (9, 0), CuPy's "90" or JAX's "9.0"."""
    if value is None or value == "":
        return ""
    if isinstance(value, tuple) and len(value) == 2:
        return f"sm_{int(value[0])}{int(value[1])}"
    text = str(value)
    if text.startswith("sm_"):
        return text
    if "." in text:
        major, _, minor = text.partition(".")
        return f"sm_{int(major)}{int(minor)}"
    return f"sm_{int(text)}"


def _warp_version(module: Any) -> str:
    config = getattr(module, "config", None)
    version = getattr(config, "version", None) or getattr(module, "__version__", "")
    return str(version)


def _device_label(device: Any) -> str:
    alias = getattr(device, "alias", None)
    return str(alias) if alias else repr(device)


def _kernel_label(kernel: Any) -> str:
    for attribute in ("key", "__name__"):
        value = getattr(kernel, attribute, None)
        if isinstance(value, str) and value:
            return value
    return repr(kernel)


def _check_warp_device(device: Any, *, candidate_name: str, what: str, kernel: str,
                       measured: int, fix: str) -> None:
    """Refuses (WrongDevice) a Warp device that is not the measured CUDA device."""
    label = _device_label(device)
    if getattr(device, "is_cpu", False) or not getattr(device, "is_cuda", False):
        raise WrongDevice(
            f"warp candidate {candidate_name!r} {what} Warp's CPU device {label!r}: gpumeter "
            f"times GPU work, and this would be a CPU time; {fix}. Nothing was timed",
            iteration=_BEFORE_TIMING, kernel=kernel, ran_on=_NOT_A_CUDA_DEVICE, measured=measured)
    ordinal = getattr(device, "ordinal", None)
    if not isinstance(ordinal, int) or ordinal != measured:
        raise WrongDevice(
            f"warp candidate {candidate_name!r} {what} Warp device {label!r} (CUDA device "
            f"{ordinal}), but gpumeter measures CUDA device {measured}: its work would be neither "
            f"flushed nor drained nor timed; {fix}, or measure with device={ordinal}. Nothing "
            f"was timed", iteration=_BEFORE_TIMING, kernel=kernel,
            ran_on=ordinal if isinstance(ordinal, int) else _NOT_A_CUDA_DEVICE, measured=measured)


def resolve_warp_device(candidate_name: str, device: Any, measured: int) -> Any:
    """The Warp device ``device`` names (None: Warp's current default), resolved by
    ``warp.get_device``, refused as WrongDevice unless it is CUDA device ``measured``.

    Raises:
        WrongDevice: Warp cannot resolve it, or it is Warp's CPU device, or another GPU.
        ConfigError: Warp is not installed.
    """
    try:
        module = _module("warp", may_import=True)
    except ImportError as e:
        raise ConfigError(f"warp candidate {candidate_name!r}: Warp cannot be imported ({e}); "
                          f"install warp-lang, or declare the runtime that launches its work",
                          argument="implementations") from e
    fix = f"pass device='cuda:{measured}' to gpumeter.warp()"
    try:
        resolved = module.get_device(device)
    except Exception as e:  # noqa: BLE001  (whatever Warp raises: it cannot resolve the name)
        raise WrongDevice(
            f"warp candidate {candidate_name!r}: Warp cannot resolve device {device!r} "
            f"({type(e).__name__}: {e}); gpumeter times GPU work on CUDA device {measured}: "
            f"check that Warp sees it (warp.get_cuda_device_count()), and {fix}. Nothing was "
            f"timed", iteration=_BEFORE_TIMING, kernel=candidate_name,
            ran_on=_NOT_A_CUDA_DEVICE, measured=measured) from e
    _check_warp_device(resolved, candidate_name=candidate_name, what="resolved to",
                       kernel=candidate_name, measured=measured, fix=fix)
    return resolved


@dataclasses.dataclass
class WarpLaunch:
    """One Warp launch seen by the spy: the kernel's name and the device Warp resolved."""

    kernel: str
    device: Any


# The launch functions the spy replaces, in Warp's module and where Warp defines them.
_LAUNCHERS = ("launch", "launch_tiled", "capture_launch")
_WARP_MODULES = ("warp", "warp.context", "warp._src.context")


def _launch_device(launcher: str, signature: Optional[inspect.Signature], args: Tuple[Any, ...],
                   kwargs: Dict[str, Any]) -> Tuple[str, Any]:
    """The kernel's name and the ``device`` a launch asked for (its stream's or its graph's
    device when it names none)."""
    arguments: Dict[str, Any] = dict(kwargs)
    if signature is not None:
        with contextlib.suppress(TypeError):
            arguments = dict(signature.bind_partial(*args, **kwargs).arguments)
    first = args[0] if args else arguments.get("graph" if launcher == "capture_launch"
                                               else "kernel")
    device = arguments.get("device")
    stream = arguments.get("stream")
    if device is None and stream is not None:
        device = getattr(stream, "device", None)
    if launcher == "capture_launch":
        if device is None:
            device = getattr(first, "device", None)
        return "a captured Warp graph", device
    return _kernel_label(first), device


@contextlib.contextmanager
def spy_on_warp_launches(candidate_name: str, measured: int) -> Iterator[List[WarpLaunch]]:
    """While open, every Warp launch (``warp.launch``, ``launch_tiled``, ``capture_launch``, in
    ``warp`` and in the module defining them) has its device resolved by ``warp.get_device``
    (None: Warp's current default, at the moment of the launch) and appended to the list this
    yields. A launch on another device than CUDA device ``measured`` raises WrongDevice instead
    of running. The original functions are back when it closes, whatever happened."""
    module = sys.modules["warp"]
    launches: List[WarpLaunch] = []
    replaced: List[Tuple[Any, str, Any]] = []

    def spy(launcher: str, original: Callable[..., Any]) -> Callable[..., Any]:
        try:
            signature: Optional[inspect.Signature] = inspect.signature(original)
        except (TypeError, ValueError):
            signature = None

        @functools.wraps(original)
        def launch(*args: Any, **kwargs: Any) -> Any:
            kernel, asked = _launch_device(launcher, signature, args, kwargs)
            try:
                device = module.get_device(asked)
            except Exception as e:  # noqa: BLE001  (whatever Warp raises: it cannot resolve)
                raise WrongDevice(
                    f"warp candidate {candidate_name!r} launched kernel {kernel!r} on device "
                    f"{asked!r}, which Warp cannot resolve ({type(e).__name__}: {e}); gpumeter "
                    f"times GPU work on CUDA device {measured}. Nothing was timed",
                    iteration=_BEFORE_TIMING, kernel=kernel, ran_on=_NOT_A_CUDA_DEVICE,
                    measured=measured) from e
            launches.append(WarpLaunch(kernel, device))
            _check_warp_device(
                device, candidate_name=candidate_name, what=f"launched kernel {kernel!r} on",
                kernel=kernel, measured=measured,
                fix=f"launch it with device='cuda:{measured}', or make that Warp's default "
                    f"(wp.set_device('cuda:{measured}'))")
            return original(*args, **kwargs)
        return launch

    try:
        for module_name in _WARP_MODULES:
            target = sys.modules.get(module_name)
            if target is None:
                continue
            for launcher in _LAUNCHERS:
                original = getattr(target, launcher, None)
                if callable(original):
                    replaced.append((target, launcher, original))
                    setattr(target, launcher, spy(launcher, original))
        yield launches
    finally:
        for target, launcher, original in reversed(replaced):
            setattr(target, launcher, original)


def _user_code_error(step: str, e: Exception) -> UserCodeError:
    """UserCodeError worded as the core words it, for an exception of the untimed call."""
    cls = type(e)
    kind = (cls.__qualname__ if cls.__module__ == "builtins"
            else f"{cls.__module__}.{cls.__qualname__}")
    message = str(e)
    return UserCodeError(
        f"{step} threw {kind}{': ' + message if message else ''}; no number was produced for it "
        f"(the exception is your code's, not gpumeter's: fix it, or catch it there)",
        step=step, exception_type=kind, exception_message=message)


def detect_warp_launches(candidate_name: str, fn: Callable[[], Any], measured: int,
                         reset: Optional[Callable[[], Any]] = None) -> List[WarpLaunch]:
    """Calls ``reset()`` then ``fn()`` once, untimed, under ``spy_on_warp_launches``, and
    returns the Warp launches it made.

    A launch that Warp put on its CPU device or on another GPU is refused here, before timing,
    even when ``fn`` caught the error the spy raised.

    Raises:
        WrongDevice: a launch was not on CUDA device ``measured``.
        UserCodeError: ``reset`` or ``fn`` raised (the exception is its ``__cause__``).
    """
    raised: Optional[Exception] = None
    with spy_on_warp_launches(candidate_name, measured) as launches:
        for step, call in (("the reset before the untimed call that finds the runtime", reset),
                           ("the untimed call that finds the runtime", fn)):
            if call is None:
                continue
            try:
                call()
            except Error:
                raise
            except Exception as e:  # noqa: BLE001  (re-raised as UserCodeError below)
                raised = e
                break
    # A refused launch the candidate caught is refused still: check every launch again.
    for launch in launches:
        _check_warp_device(
            launch.device, candidate_name=candidate_name,
            what=f"launched kernel {launch.kernel!r} on", kernel=launch.kernel, measured=measured,
            fix=f"launch it with device='cuda:{measured}'")
    if raised is not None:
        step = f"{candidate_name}: the untimed call that finds its runtime, before timing"
        raise _user_code_error(step, raised) from raised
    return launches


# --- every candidate ----------------------------------------------------------------------------


def _cuda_index(candidate_name: str, runtime: str, device: Any, measured: int) -> None:
    """Refuses a declared non-Warp device that is not CUDA device ``measured``."""
    if device is None:
        return
    index: Optional[int] = None
    if isinstance(device, int) and not isinstance(device, bool):
        index = device
    elif isinstance(device, str):
        kind, _, number = device.partition(":")
        if kind == "cuda" and (number.isdigit() or not number):
            index = int(number) if number else measured
    else:  # torch.device(index=...), cupy.cuda.Device(id=...)
        for attribute in ("index", "id"):
            value = getattr(device, attribute, None)
            if isinstance(value, int):
                index = value
                break
    if index != measured:
        raise WrongDevice(
            f"{runtime} candidate {candidate_name!r} declared device {device!r}, but gpumeter "
            f"measures CUDA device {measured}: declare device={measured} or measure with the "
            f"candidate's device. Nothing was timed", iteration=_BEFORE_TIMING,
            kernel=candidate_name, ran_on=index if index is not None else _NOT_A_CUDA_DEVICE,
            measured=measured)


def _framework(name: str, declared: bool) -> Any:
    try:
        return _module(name, may_import=declared)
    except ImportError as e:
        raise ConfigError(f"a candidate declared runtime {name!r}, which cannot be imported ({e})",
                          argument="implementations") from e


def _describe(name: str, runtime: str, measured: int, warp_device: Any,
              notes: List[str]) -> RuntimeInfo:
    """The record's entry of a candidate whose runtime is known."""
    version = alias = arch = ""
    if runtime == "warp":
        version = _warp_version(sys.modules["warp"])
        alias = _device_label(warp_device)
        arch = _arch(getattr(warp_device, "arch", None))
    elif runtime == "jax":
        jax = _framework("jax", declared=True)
        version = str(getattr(jax, "__version__", ""))
        try:
            devices = list(jax.devices())
        except Exception as e:  # noqa: BLE001  (JAX could not start a backend)
            raise DeviceError(f"jax candidate {name!r}: JAX cannot list its devices "
                              f"({type(e).__name__}: {e})") from e
        gpus = [d for d in devices if getattr(d, "platform", "") in ("gpu", "cuda")]
        ours = [d for d in gpus if getattr(d, "id", None) == measured]
        if not ours:
            raise WrongDevice(
                f"jax candidate {name!r}: JAX has no GPU device {measured} (its devices: "
                f"{', '.join(str(d) for d in devices)}), so its work would run elsewhere "
                f"or on the CPU: install JAX with CUDA support, or measure one of its GPUs. "
                f"Nothing was timed", iteration=_BEFORE_TIMING, kernel=name,
                ran_on=_NOT_A_CUDA_DEVICE, measured=measured)
        alias = f"cuda:{measured}"
        arch = _arch(getattr(ours[0], "compute_capability", None))
    else:
        module = _framework(runtime, declared=True) if runtime != "cuda" else None
        version = str(getattr(module, "__version__", "")) if module is not None else ""
        alias = f"cuda:{measured}"
        with contextlib.suppress(Exception):  # the architecture is a label: absent if unknown
            torch = sys.modules.get("torch")
            cupy = sys.modules.get("cupy")
            if runtime == "cupy" and cupy is not None:
                arch = _arch(cupy.cuda.Device(measured).compute_capability)
            elif torch is not None and torch.cuda.is_available():
                arch = _arch(tuple(torch.cuda.get_device_capability(measured)))
            elif cupy is not None:
                arch = _arch(cupy.cuda.Device(measured).compute_capability)
    return RuntimeInfo(name, runtime, version, alias, arch,
                       _sync_choice(runtime, measured, warp_device), tuple(notes))


def resolve_runtimes(implementations: Mapping[str, Callable[[], Any]], device_index: int, *,
                     resets: Optional[Mapping[str, Callable[[], Any]]] = None
                     ) -> List[RuntimeInfo]:
    """Resolves each candidate's runtime and device before timing; one RuntimeInfo each.

    A candidate's runtime is what it declared (``gpumeter.warp``, ``gpumeter.candidate``), else
    "warp" when its untimed call launched Warp kernels, else "" (not known). The untimed call
    (after its reset) is made only where Warp is imported or the candidate declared Warp: its
    launches are resolved through ``warp.get_device`` and each must be on the measured device.

    Args:
        implementations: Names to callables (a Candidate, or any callable).
        device_index: The CUDA device gpumeter measures.
        resets: The reset of each name that has one, called before its untimed call.

    Returns:
        list of RuntimeInfo, in the order of ``implementations``.

    Raises:
        WrongDevice: a Warp candidate resolves to Warp's CPU device, a device Warp cannot
            resolve or another GPU, or launched a kernel there; a declared device is not the
            measured one; a JAX candidate has no such GPU.
        UserCodeError: a reset or candidate raised in the untimed call.
        ConfigError: a declared runtime cannot be imported.
    """
    infos: List[RuntimeInfo] = []
    for name, fn in implementations.items():
        declared = fn if isinstance(fn, Candidate) else None
        runtime = declared.runtime if declared is not None else ""
        notes: List[str] = []
        warp_device: Any = None
        if declared is not None and runtime == "warp":
            warp_device = resolve_warp_device(name, declared.device, device_index)
        elif declared is not None:
            _cuda_index(name, runtime, declared.device, device_index)
        if runtime == "jax":
            # Before anything starts JAX's backend: it reads the setting once, then.
            note = jax_preallocation_note()
            notes.append(note)
        if "warp" in sys.modules:
            reset = (resets or {}).get(name)
            launches = detect_warp_launches(name, fn, device_index, reset)
            if launches and runtime == "":
                runtime = "warp"
                warp_device = launches[0].device
            elif launches and runtime != "warp":
                notes.append(f"launched Warp kernels too ({launches[0].kernel})")
            elif not launches and runtime == "warp":
                notes.append("no Warp launch seen in its first call")
        if runtime == "":
            infos.append(RuntimeInfo(name, synchronized_by=_sync_choice("", device_index)))
        else:
            infos.append(_describe(name, runtime, device_index, warp_device, notes))
    return infos


def deviations(runtimes: Sequence[RuntimeInfo]) -> List[str]:
    """The runtime notes a record must carry as deviations from the rules (JAX preallocating),
    each naming its candidate."""
    return [f"{r.implementation}: {note}" for r in runtimes for note in r.notes
            if note == JAX_PREALLOCATION_ON]


__all__ = ["Runtime", "RUNTIMES", "RuntimeInfo", "Candidate", "warp", "candidate", "synchronizer",
           "resolve_runtimes", "resolve_warp_device", "detect_warp_launches",
           "spy_on_warp_launches", "WarpLaunch", "child_environment", "prepare_jax_environment",
           "jax_preallocation_note", "deviations", "SYNC_PREFERENCE", "JAX_PREALLOCATE",
           "JAX_PREALLOCATION_OFF", "JAX_PREALLOCATION_ON"]
