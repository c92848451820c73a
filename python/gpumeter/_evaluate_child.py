"""The process of one candidate of ``gpumeter evaluate``: compares it with the reference on fresh
inputs, writes the record into the folder its parent chose, and reports on a pipe.

The order of what happens here is the point of this file. gpumeter, the reference and the input
generator (the evaluator's own code) are imported first; then the functions this process calls,
the ones gpumeter's checks call, the namespaces the reference can reach and the settings it runs
under (the framework's flags, this process's CUDA settings) are captured; only then is the
candidate imported. After the run, every captured name and setting is looked up again: a
candidate that replaced one (gpumeter's compare, its checks, torch.allclose, an activation the
reference calls, TF32) is reported as tampered, by name, whatever its times. The pair is then
timed again end to end (the synchronized wall clock), so work gpumeter does not see still shows.
The verdict is not made here: the parent reads the records back with the strict reader and
judges them.

The report leaves on a channel only gpumeter's compiled code holds (B11, issue 50): its key is
read into compiled memory and erased first thing in ``main``; the channel is sealed right before
the candidate is imported, and from then on the one report, every measurement and every record
must be asked for by gpumeter's own code over ``main``'s frames, else a violation is sent.

Run with ``"mode": "alone"``, the process measures the reference by itself, with no candidate
code: what the reference costs where nothing of a candidate's can reach it (a second copy of the
reference takes the candidate's place, so the protocol is the same).

Code in this process can still subvert it at the C level (reading the channel's key out of the
extension's memory, patching compiled code); that limit is documented in docs/evaluation.md.
"""

from __future__ import annotations

import faulthandler
import os
import sys
import traceback
import types
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

# Run with -m under PYTHONSAFEPATH (B11): gpumeter's folder, then the interpreter's own path, and
# the user's folders (the current one among them) only after, appended by main: the candidate's
# modules are found as the evaluator's shell finds them, but none stands in for gpumeter or a
# framework.

import gpumeter  # noqa: E402  (gpumeter first: before any code under test)
from gpumeter import _checker, _child, _core, _measure, _wire  # noqa: E402
from gpumeter._specs import load as _load, user_path as _user_path  # noqa: E402

faulthandler.enable()  # a crash leaves its Python stack in the candidate's log

# What the run calls, captured before any candidate code exists in this process.
_compare = gpumeter.compare
_write_record = gpumeter.write_record
_UserCodeError = gpumeter.UserCodeError
_ConfigError = gpumeter.ConfigError
_Error = gpumeter.Error
_report_line = _wire.report_line
_channel_open = gpumeter._gpumeter.evaluation_channel_open
_channel_seal = gpumeter._gpumeter.evaluation_channel_seal
_report = gpumeter._gpumeter.evaluation_report
_exit = os._exit


# --- tamper check: names captured before the candidate, looked up again after the run -------

# Outside gpumeter, what its checks and this process call: replacing one defeats a check without
# touching gpumeter's own code.
_WATCHED_ELSEWHERE = {
    "json": ("dumps", "loads"),
    "os": ("write", "_exit", "fdopen", "replace", "link", "open"),
    "numpy": ("allclose", "isclose", "asarray", "array_equal", "array", "abs", "isnan"),
    "torch": ("allclose", "isclose", "equal", "abs", "max", "isnan", "empty_like", "clone"),
}
_WATCHED_TENSOR = ("clone", "copy_", "double", "float", "abs", "max", "item", "fill_",
                   "allclose", "equal", "__sub__", "cpu", "numpy", "isnan")


# B11: what the reference can reach, watched whole: the frameworks' namespaces (functions an
# activation or an operator is looked up in when the reference runs) and the C modules behind them.
_WATCHED_NAMESPACES = (
    "torch", "torch.nn.functional", "torch.nn", "torch.linalg", "torch.fft", "torch.special",
    "torch.cuda", "torch.backends", "torch._C._nn", "torch._C._VariableFunctions",
    "torch._C._linalg", "torch._C._fft", "torch._C._special", "numpy", "numpy.linalg", "cupy",
    "cupy.linalg", "cupyx", "warp")
_WATCHED_CLASSES = (("torch", "Tensor"), ("torch._C", "TensorBase"))


def _settings(device: int) -> Dict[str, str]:
    """The settings the reference runs under that code in this process can change: PyTorch's
    global flags and modes, the allocator's and the launch's environment, and this process's CUDA
    settings on the device. Each read as it is now (what cannot be read says why)."""
    out: Dict[str, str] = {}

    def put(name: str, read: Callable[[], Any]) -> None:
        try:
            out[name] = repr(read())
        except Exception as e:  # noqa: BLE001  (a setting this version lacks)
            out[name] = f"unreadable ({type(e).__name__})"
    for var in ("PYTORCH_CUDA_ALLOC_CONF", "CUDA_LAUNCH_BLOCKING", "CUBLAS_WORKSPACE_CONFIG",
                "NVIDIA_TF32_OVERRIDE", "CUDA_DEVICE_MAX_CONNECTIONS"):
        out[f"os.environ[{var!r}]"] = repr(os.environ.get(var))
    torch = sys.modules.get("torch")
    if torch is not None:
        b = torch.backends
        put("torch.backends.cuda.matmul.allow_tf32", lambda: b.cuda.matmul.allow_tf32)
        put("torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
            lambda: b.cuda.matmul.allow_fp16_reduced_precision_reduction)
        put("torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction",
            lambda: b.cuda.matmul.allow_bf16_reduced_precision_reduction)
        put("torch.backends.cudnn.enabled", lambda: b.cudnn.enabled)
        put("torch.backends.cudnn.benchmark", lambda: b.cudnn.benchmark)
        put("torch.backends.cudnn.deterministic", lambda: b.cudnn.deterministic)
        put("torch.backends.cudnn.allow_tf32", lambda: b.cudnn.allow_tf32)
        put("torch.get_float32_matmul_precision()", torch.get_float32_matmul_precision)
        put("torch.are_deterministic_algorithms_enabled()",
            torch.are_deterministic_algorithms_enabled)
        put("torch.get_default_dtype()", torch.get_default_dtype)
        put("torch.is_grad_enabled()", torch.is_grad_enabled)
        put("torch.is_inference_mode_enabled()", torch.is_inference_mode_enabled)
        put("torch.is_autocast_enabled('cuda')", lambda: torch.is_autocast_enabled("cuda"))
        put("torch function modes", torch._C._len_torch_function_stack)
        put("torch dispatch modes", torch._C._len_torch_dispatch_stack)
        put("torch.get_num_threads()", torch.get_num_threads)
        if torch.cuda.is_initialized():
            put("torch.cuda.current_device()", torch.cuda.current_device)
            put("torch.cuda.current_stream()",
                lambda: (torch.cuda.current_stream().cuda_stream,
                         torch.cuda.current_stream().priority))
            put("torch.cuda.get_allocator_backend()", torch.cuda.get_allocator_backend)
            put("torch.cuda.memory fraction", lambda: torch.cuda.get_per_process_memory_fraction(
                device) if hasattr(torch.cuda, "get_per_process_memory_fraction") else None)
    for name, value in gpumeter._gpumeter.cuda_settings(device):
        out[f"CUDA {name}"] = repr(value)
    return out


#: What the capture is kept in: compiled memory (python/src/watch.cpp), which no Python object
#: holds, so code that finds the interpreter's objects (gc.get_objects()) cannot rewrite it. Taken
#: now, before any candidate code exists.
_watch_capture = gpumeter._gpumeter.watch_capture
_watch_changes = gpumeter._gpumeter.watch_changes

#: A watched name: its key, the object it holds, and the function it runs where the compiled
#: side cannot read that itself (NumPy's dispatchers), or None.
_Entry = Tuple[str, Any, Optional[types.FunctionType]]


def _function_of(value: Any) -> Optional[types.FunctionType]:
    """The Python function a watched value runs: itself, a method's, or a NumPy dispatcher's
    (``numpy.allclose`` is one: its code is its ``_implementation``'s)."""
    try:
        fn = getattr(value, "__func__", value)
        if isinstance(fn, types.FunctionType):
            return fn
        if type(value).__name__ == "_ArrayFunctionDispatcher":
            impl = getattr(value, "_implementation", None)
            return impl if isinstance(impl, types.FunctionType) else None
    except Exception:  # noqa: BLE001  (an object whose attributes cannot be read: no function)
        pass
    return None


def _ours(name: str) -> bool:
    """gpumeter's modules, and this one (its captured functions are looked up as globals)."""
    return name == "gpumeter" or name.startswith("gpumeter.") or name == __name__


def _evaluator_namespaces(modules: Tuple[str, ...]) -> Tuple[str, ...]:
    """The evaluator's own modules (the reference's and the input generator's) and the modules
    their globals hold (``math``, ``np``): what the reference looks its functions up in when it
    runs (a candidate that replaced ``math.sqrt`` slowed it, issue 38). gpumeter's own are
    watched whole already."""
    names: List[str] = []
    for name in modules:
        module = sys.modules.get(name)
        if not isinstance(module, types.ModuleType):
            continue
        names.append(name)
        for value in list(vars(module).values()):
            if isinstance(value, types.ModuleType):
                names.append(value.__name__)
    return tuple(dict.fromkeys(n for n in names if not _ours(n)))


def _callee_namespaces(functions: List[Any]) -> Tuple[str, ...]:
    """The modules whose globals the functions gpumeter's checks call look their own callees up
    in (``numpy.allclose`` calls ``isclose`` of ``numpy._core.numeric``): replacing one there
    bends the check below every name watched by itself."""
    names: List[str] = []
    for value in functions:
        fn = _function_of(value)
        name = fn.__globals__.get("__name__") if fn is not None else None
        if isinstance(name, str) and isinstance(sys.modules.get(name), types.ModuleType):
            names.append(name)
    return tuple(dict.fromkeys(n for n in names if not _ours(n)))


def _snapshot(evaluator_modules: Tuple[str, ...] = ()) -> List[_Entry]:
    """What is watched, decided before any candidate code exists: every attribute of gpumeter's
    modules and this one (and each class's dict), the watched names of the modules gpumeter's
    checks use and every callable of the modules those functions look their callees up in, the
    functions and classes of the evaluator's own modules and of the modules they import
    (_evaluator_namespaces), the frameworks' namespaces, every callable of ``builtins``, and the
    import hooks (``sys.meta_path``, ``sys.path_hooks``). Handed to the compiled capture, then
    dropped: nothing of it stays in a Python object."""
    shot: Dict[str, Tuple[Any, Optional[types.FunctionType]]] = {}

    def watch(key: str, value: Any) -> None:
        shot[key] = (value, _function_of(value))
    for name, module in list(sys.modules.items()):
        if module is None or not _ours(name):
            continue
        watch(f"sys.modules[{name!r}]", module)
        for attr, value in list(vars(module).items()):
            key = f"{name}.{attr}"
            watch(key, value)
            if isinstance(value, type) and getattr(value, "__module__", "").startswith("gpumeter"):
                for cattr, cvalue in list(vars(value).items()):
                    if cattr not in ("__dict__", "__weakref__", "__doc__"):
                        watch(f"{key}.{cattr}", cvalue)
    checked: List[Any] = []
    for name, attrs in _WATCHED_ELSEWHERE.items():
        elsewhere = sys.modules.get(name)
        if elsewhere is None:
            continue
        for attr in attrs:
            if hasattr(elsewhere, attr):
                value = getattr(elsewhere, attr)
                watch(f"{name}.{attr}", value)
                checked.append(value)
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "Tensor"):
        for attr in _WATCHED_TENSOR:
            if attr in vars(torch.Tensor):
                watch(f"torch.Tensor.{attr}", vars(torch.Tensor)[attr])
                checked.append(vars(torch.Tensor)[attr])
    # B11: whole namespaces the reference can reach, what the checks' functions call, the
    # builtins every function falls back on, and the tensor classes' methods.
    for name in _WATCHED_NAMESPACES + _evaluator_namespaces(evaluator_modules) + \
            _callee_namespaces(checked) + ("builtins",):
        namespace = sys.modules.get(name)
        if not isinstance(namespace, types.ModuleType):
            continue
        # What is called, not data a run may update (a lazily set flag): functions and classes.
        for attr, value in list(vars(namespace).items()):
            if callable(value) and not isinstance(value, types.ModuleType):
                watch(f"{name}.{attr}", value)
    for module_name, class_name in _WATCHED_CLASSES:
        cls = getattr(sys.modules.get(module_name), class_name, None)
        if isinstance(cls, type):
            for attr, value in list(vars(cls).items()):
                if attr not in ("__dict__", "__weakref__", "__doc__"):
                    watch(f"{module_name}.{class_name}.{attr}", value)
    # Import hooks: the lists themselves here, their contents as probes (_probes).
    watch("sys.meta_path", sys.meta_path)
    watch("sys.path_hooks", sys.path_hooks)
    return [(key, value, fn) for key, (value, fn) in shot.items()]


def _timers_armed(getitimer: Callable[[int], Tuple[float, float]],
                  which: Tuple[int, ...]) -> Tuple[bool, ...]:
    """Whether each interval timer is armed (a timer's remaining time changes as it runs: its
    being armed is what is compared)."""
    return tuple(any(t > 0 for t in getitimer(w)) for w in which)


def _entries_of(cache: Dict[str, Any], keys: Tuple[str, ...]) -> Tuple[Any, ...]:
    """The finders ``sys.path_importer_cache`` holds for the paths it held at capture (imports add
    paths; a finder replaced for one gpumeter or the reference imports from runs code there)."""
    return tuple(cache.get(k) for k in keys)


def _instance_items(obj: Any) -> Tuple[Tuple[str, Any], ...]:
    """An object's own attributes (its instance dict), read without getattr code: a method
    replaced on the instance shadows its class's watched one (``_checker_link.check = ...``)."""
    return tuple(sorted(object.__getattribute__(obj, "__dict__").items()))


def _harness_objects() -> List[Tuple[str, Any]]:
    """gpumeter's own objects held by its modules (the checker link and what it holds): each an
    instance of a class of gpumeter's with an instance dict, found by key as the capture names
    it."""
    found: List[Tuple[str, Any]] = []
    seen: Set[int] = set()

    def visit(key: str, value: Any, depth: int) -> None:
        cls = type(value)
        if depth > 2 or id(value) in seen or isinstance(value, (type, types.ModuleType)) or \
                not str(getattr(cls, "__module__", "")).startswith("gpumeter") or \
                not hasattr(value, "__dict__") or isinstance(value, types.FunctionType):
            return
        try:
            attrs = dict(object.__getattribute__(value, "__dict__"))
        except (AttributeError, TypeError):
            return
        seen.add(id(value))
        found.append((key, value))
        for attr, inner in attrs.items():
            visit(f"{key}.{attr}", inner, depth + 1)
    for name, module in list(sys.modules.items()):
        if module is not None and _ours(name):
            for attr, value in list(vars(module).items()):
                visit(f"{name}.{attr}", value, 0)
    return found


def _probes() -> List[Tuple[str, Callable[..., Any], Tuple[Any, ...]]]:
    """The interpreter's hooks, read by calling these (kept by the compiled capture, so a name
    replaced later cannot change what is read), at the end of the run and while every answer is
    checked: the profile and trace functions of this thread and of new threads, sys.monitoring's
    tools and their events, the import hooks' contents; issue 50's levers, which run code while a
    check runs without replacing any name: gc's callbacks, thresholds and state, every signal's
    handler and the interval timers that raise them, the hooks the interpreter calls on an
    exception or an unraisable error, the finders of the import path; and the instance dicts of
    gpumeter's own objects (a method shadowed on the instance)."""
    import gc
    import operator
    import signal
    import threading
    probes: List[Tuple[str, Callable[..., Any], Tuple[Any, ...]]] = [
        ("sys.getprofile()", sys.getprofile, ()), ("sys.gettrace()", sys.gettrace, ()),
        ("sys.meta_path[:]", tuple, (sys.meta_path,)),
        ("sys.path_hooks[:]", tuple, (sys.path_hooks,)),
        ("gc.callbacks[:]", tuple, (gc.callbacks,)),
        ("gc.get_threshold()", gc.get_threshold, ()), ("gc.isenabled()", gc.isenabled, ()),
        ("sys.path_importer_cache", _entries_of,
         # The finders of absolute paths (those importlib.invalidate_caches keeps).
         (sys.path_importer_cache, tuple(sorted(
             k for k, v in list(sys.path_importer_cache.items())
             if isinstance(k, str) and os.path.isabs(k) and v is not None))))]
    for name in ("getprofile", "gettrace"):
        if callable(getattr(threading, name, None)):
            probes.append((f"threading.{name}()", getattr(threading, name), ()))
    for owner, names in ((sys, ("excepthook", "unraisablehook", "displayhook", "breakpointhook")),
                         (threading, ("excepthook",))):
        for name in names:
            if hasattr(owner, name):
                probes.append((f"{owner.__name__}.{name}", operator.attrgetter(name), (owner,)))
    for number in sorted(signal.valid_signals()):
        try:
            label = signal.Signals(number).name
        except ValueError:
            label = str(int(number))
        probes.append((f"signal.getsignal({label})", signal.getsignal, (number,)))
    timers = tuple(getattr(signal, t) for t in ("ITIMER_REAL", "ITIMER_VIRTUAL", "ITIMER_PROF")
                   if hasattr(signal, t))
    if timers and hasattr(signal, "getitimer"):
        probes.append(("signal.setitimer (a timer armed)", _timers_armed,
                       (signal.getitimer, timers)))
    monitoring = getattr(sys, "monitoring", None)  # 3.12
    if monitoring is not None:
        for i in range(6):
            probes.append((f"sys.monitoring.get_tool({i})", monitoring.get_tool, (i,)))
            probes.append((f"sys.monitoring.get_events({i})", monitoring.get_events, (i,)))
    for key, obj in _harness_objects():
        probes.append((f"vars({key})", _instance_items, (obj,)))
    return probes


def _classes() -> List[type]:
    """The classes whose attributes replaced during the run are reported as it happens (the
    audit hook): the tensor classes and gpumeter's own."""
    classes: List[type] = []
    for module_name, class_name in _WATCHED_CLASSES:
        cls = getattr(sys.modules.get(module_name), class_name, None)
        if isinstance(cls, type):
            classes.append(cls)
    for name, module in list(sys.modules.items()):
        if module is not None and _ours(name):
            classes.extend(v for v in list(vars(module).values()) if isinstance(v, type) and
                           getattr(v, "__module__", "").startswith("gpumeter"))
    return classes


def _dispatcher() -> Optional[Tuple[Callable[[], Any], Callable[[str], Any]]]:
    """PyTorch's operator registry where torch is imported: the function listing every
    operator and the one dumping an operator's kernels (each dispatch key's registration), which
    the compiled capture digests. A kernel registered later for an operator that existed (with
    ``torch.library``) bends every check while every Python name stays the same object."""
    torch = sys.modules.get("torch")
    try:
        c = getattr(torch, "_C", None)
        names = getattr(c, "_dispatch_get_all_op_names", None)
        dump = getattr(c, "_dispatch_dump", None)
    except Exception:  # noqa: BLE001  (a torch without them: nothing to watch there)
        return None
    return (names, dump) if callable(names) and callable(dump) else None


def _capture(evaluator_modules: Tuple[str, ...], device: int) -> Callable[[Dict[str, str]],
                                                                         List[str]]:
    """Everything watched, kept by the compiled side: once per process (a second call is refused
    and reported). Returns the compiled compare, for the run to hold where a module attribute
    replaced cannot reach it (its replacement is then reported like any other)."""
    _watch_capture(_snapshot(evaluator_modules), _settings(device), _probes(), _classes(),
                   _dispatcher())
    return _watch_changes


# --- whose exception ------------------------------------------------------------------------


def _blame(error: BaseException, parts: Dict[str, Tuple[Callable[..., Any], Optional[str]]],
           default: str = "candidate") -> str:
    """Which part raised the exception behind a UserCodeError: the first frame outside gpumeter
    is the callable gpumeter called; its code, else its file, names the part. A frame that names
    none is the candidate's (the evaluator's code is trusted to run); with no frame outside
    gpumeter, ``default``."""
    cause = error.__cause__ if error.__cause__ is not None else error
    package = os.path.dirname(os.path.abspath(gpumeter.__file__)) + os.sep
    tb = cause.__traceback__
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(package):
        tb = tb.tb_next
    if tb is None:
        return default
    for part, (fn, _) in parts.items():
        if getattr(getattr(fn, "__func__", fn), "__code__", None) is tb.tb_frame.f_code:
            return part
    frame_file = os.path.abspath(tb.tb_frame.f_code.co_filename)
    for part in ("candidate", "reference", "inputs"):
        file = parts[part][1] if part in parts else None
        if file and os.path.abspath(file) == frame_file:
            return part
    return "candidate"


def _error_fields(error: BaseException) -> Dict[str, Any]:
    fields: Dict[str, Any] = {}
    for key, value in vars(error).items():
        if isinstance(value, (str, int, float, bool)) or value is None:
            fields[key] = value
    return fields


def _blamed(e: BaseException, parts: Dict[str, Tuple[Callable[..., Any], Optional[str]]],
            step: str, candidate: str) -> Dict[str, Any]:
    """The report of an exception the comparison raised, and whose code raised it."""
    # A callable's exception reaches here as UserCodeError; SystemExit or KeyboardInterrupt
    # raised by one stays itself; anything else is gpumeter's. An exception that is not
    # gpumeter's came from code gpumeter called outside its runner (the input generator, checked
    # before timing), else from gpumeter itself.
    if isinstance(e, _UserCodeError):
        who = _blame(e, parts)
    elif isinstance(e, _ConfigError) and \
            getattr(e, "argument", None) == f"implementations[{candidate!r}]":
        # The candidate itself was refused (a coroutine or a generator where a call does its
        # work): its own doing, not the evaluation's.
        who = "candidate"
    elif not isinstance(e, Exception):
        who = "candidate"
    elif isinstance(e, _Error):
        who = "gpumeter"
    else:
        who = _blame(e, parts, default="internal")
    return {"ok": False, "who": who, "step": step, "type": type(e).__name__,
            "message": " ".join(str(e).split())[:4000], "fields": _error_fields(e),
            "traceback": traceback.format_exc()[-4000:]}


def _statistic(compared: Any) -> str:
    results = list(compared.record.results)
    return str(results[0].statistic) if results else ""


def run(order: Dict[str, Any]) -> Dict[str, Any]:
    parts: Dict[str, Tuple[Callable[..., Any], Optional[str]]] = {}
    alone = order.get("mode") == "alone"
    options = dict(order["options"])
    device = int(options.get("device", 0))
    step = "importing the reference"
    try:
        # The evaluator's own code first: it may import torch, whose names are then watched.
        parts["reference"] = _load(order["reference"])
        step = "importing the input generator"
        parts["inputs"] = _load(order["inputs"])
        # Called once, so what it imports lazily (torch, whose allclose the checks call) is
        # imported, and watched, before the candidate exists.
        step = "calling the input generator"
        parts["inputs"][0](0)
        # B11: the processes the parent found on the device before any candidate ran; one that
        # comes later (a helper the candidate starts, at import or in a call) is refused.
        tolerated = order.get("tolerated")
        if tolerated is not None:
            _core._tolerated_device_processes = [int(p) for p in tolerated]
        # B11: every checked answer goes to the evaluation's checker, a process that never
        # imports a candidate; set before the capture, so unsetting it is a replaced name too.
        if order.get("checker_fd") is not None:
            _measure._checker_link = _checker.CheckerLink(int(order["checker_fd"]))
        changes = _capture(tuple(str(getattr(parts[k][0], "__module__", "") or "")
                                 for k in ("reference", "inputs")), device)
        # B11: from here on only gpumeter's code as it is now, over main's frames, reports,
        # measures or writes a record.
        _channel_seal()
        if not alone:
            step = "importing the candidate"
            parts["candidate"] = _load(order["candidate"])
    except BaseException as e:  # noqa: BLE001  (reported: the parent names whose import failed)
        who = "candidate" if step == "importing the candidate" else "evaluator"
        return {"ok": False, "who": who, "step": step, "type": type(e).__name__,
                "message": " ".join(str(e).split())[:2000],
                "traceback": traceback.format_exc()[-4000:], "tampered": []}
    name = order["name"]
    implementations = {"reference": parts["reference"][0]}
    # Alone, the reference takes the candidate's place too: the same protocol (two
    # implementations' passes interleaved, each checked), so what differs beside a candidate is
    # the candidate's code, not the order of the work (host work reads cache and allocator state).
    implementations[name if not alone else "reference (again)"] = \
        parts["candidate"][0] if not alone else parts["reference"][0]
    result: Dict[str, Any]
    try:
        compared = _compare(implementations, fresh_inputs=parts["inputs"][0],
                            outputs=order.get("outputs"), name=order["case"], **options)
        result = {"ok": True, "record": _write_record(compared, order["out"])}
    except BaseException as e:  # noqa: BLE001  (the parent judges every outcome)
        result = _blamed(e, parts, "the comparison", name)
    # B11: the same pair end to end, by the synchronized wall clock, where the first was device
    # time: a candidate faster on the device but slower for its caller does work gpumeter does
    # not see.
    if result["ok"] and not alone and order.get("end_to_end") and \
            _statistic(compared) != "synchronized_wall_clock":
        wall = dict(options, timing="host")
        wall.pop("precision", None)
        wall.pop("max_time_s", None)
        folder = os.path.join(order["out"], "end-to-end")
        try:
            os.makedirs(folder, exist_ok=True)
            timed = _compare(implementations, fresh_inputs=parts["inputs"][0],
                             outputs=order.get("outputs"), name=order["case"], **wall)
            result["end_to_end"] = _write_record(timed, folder)
        except BaseException as e:  # noqa: BLE001
            result = _blamed(e, parts, "the end-to-end comparison", name)
    result["tampered"] = [] if alone else changes(_settings(device))
    return result


def main() -> None:
    # First: the channel's key into compiled memory, erased from the environment, before the
    # reference, the input generator or the candidate exist here.
    if not _channel_open():
        sys.stderr.write("gpumeter._evaluate_child: no report channel; gpumeter evaluate runs "
                         "this\n")
        _exit(2)
    _user_path()
    order = _wire.read_order(sys.argv[1])
    # Ends with evaluate, before any code under test runs: a run evaluate can no longer wait for
    # would hold the device beside the batch resumed after it.
    evaluator = order.get("evaluator")
    _child.end_with(evaluator if isinstance(evaluator, int) else None)
    try:
        result = run(order)
    except BaseException as e:  # noqa: BLE001
        result = {"ok": False, "who": "gpumeter", "step": "evaluate", "type": type(e).__name__,
                  "message": str(e), "tampered": []}
    # Called from this frame, as the channel requires of the one report.
    _report(_report_line(result))
    # Out now: a candidate's threads, atexit handlers and finalizers do not run after its
    # report (a non-daemon thread would otherwise hold the process until its timeout).
    sys.stdout.flush()
    sys.stderr.flush()
    _exit(0)


if __name__ == "__main__":
    main()
