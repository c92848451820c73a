"""The fresh process of gpumeter.phases(): runs one candidate from nothing and reports when each
phase ended.

It imports only the standard library (and the package's JSON module, _wire.py, by its file)
before the candidate does, so "process start" is the
interpreter's own start and this file, and "init" is the candidate's framework alone. Every phase
ends synchronized through the runtime that launched the work: an asynchronous launch is not
finished when the call returns, and a phase that stopped the clock early would move its cost into
the next one. Its only output is one JSON line on the file descriptor the parent named, in
_wire.py's format.
"""

from __future__ import annotations

import time

_START_NS = time.monotonic_ns()  # CLOCK_MONOTONIC: one clock for every process of the host

import importlib  # noqa: E402
import importlib.util  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402
from types import ModuleType  # noqa: E402
from typing import Any, Callable, Dict, List, Mapping, Optional  # noqa: E402

# Started as a script, this file's folder (the gpumeter package) leads sys.path: its modules
# would shadow a candidate's imports of the same names.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    sys.path.pop(0)


def _load_wire() -> ModuleType:
    """The package's one JSON module (_wire.py), loaded from its file alone: importing it as
    gpumeter._wire would import the package and its extension, which would count as process
    start. It imports only the standard library, and is loaded before the candidate, so the
    candidate cannot replace what writes the report."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_wire.py")
    spec = importlib.util.spec_from_file_location("_gpumeter_phase_wire", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_wire = _load_wire()


def _resolve(reference: str) -> Callable[..., Any]:
    module_name, _, attribute = reference.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"{reference!r} is not 'module:function'")
    target: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        target = getattr(target, part)
    return target  # type: ignore[no-any-return]


def _step(steps: Any, name: str) -> Optional[Callable[[], Any]]:
    fn = steps.get(name) if isinstance(steps, Mapping) else getattr(steps, name, None)
    return fn if callable(fn) else None


_current_step = ["set-up"]  # the phase running, for an error's report

# Code flags of a generator, a coroutine and an async generator function (the inspect module's
# CO_* values, read without importing it: this process imports nothing it does not need).
_LAZY_FLAGS = {0x20: "a generator function (def with yield)", 0x80: "an async def function",
               0x200: "an async generator function (async def with yield)"}


class _Lazy(Exception):
    """A step that does none of its work when called (the parent raises it as ConfigError)."""


def _lazy_definition(fn: Any) -> Optional[str]:
    for _ in range(8):  # a partial of a partial...: a few levels
        inner = getattr(fn, "func", None)  # functools.partial
        if inner is None or not callable(inner):
            break
        fn = inner
    for f in (fn, getattr(type(fn), "__call__", None)):
        code = getattr(getattr(f, "__func__", f), "__code__", None)
        flags = getattr(code, "co_flags", 0)
        for flag, words in _LAZY_FLAGS.items():
            if isinstance(flags, int) and flags & flag:
                return words
    return None


def _refuse_lazy(what: str, fn: Any) -> None:
    lazy = _lazy_definition(fn)
    if lazy is not None:
        raise _Lazy(f"{what} is {lazy}")


def _refuse_lazy_result(what: str, out: Any) -> None:
    kind = type(out).__name__
    if kind in ("generator", "coroutine", "async_generator") or hasattr(out, "__await__"):
        close = getattr(out, "close", None)
        if callable(close):
            close()
        raise _Lazy(f"{what} returned a {kind}")


def run(order: Dict[str, Any]) -> Dict[str, Any]:
    """Runs the phases in order; returns each phase's nanoseconds and the totals of N calls."""
    spawned_ns = int(order["spawned_ns"])
    phases: Dict[str, int] = {"process_start": _START_NS - spawned_ns}
    factory = _resolve(order["candidate"])
    _refuse_lazy("the candidate's function", factory)
    steps = factory(**order.get("params", {}))
    _refuse_lazy_result("the candidate's function", steps)
    for name in ("init", "compile", "convert", "build", "call", "kernel", "capture", "sync"):
        fn = _step(steps, name)
        if fn is not None:
            _refuse_lazy(f"its {name!r} step", fn)
    sync_holder: List[Callable[[], None]] = []

    def sync() -> None:
        if not sync_holder:
            declared = _step(steps, "sync")
            if declared is None:
                raise RuntimeError("the candidate gives no sync step: a fresh process cannot end "
                                   "a phase without synchronizing its runtime")
            sync_holder.append(declared)
        sync_holder[0]()

    def timed(phase: str, fn: Optional[Callable[[], Any]], synchronize: bool = True) -> None:
        if fn is None:
            return
        _current_step[0] = phase
        t = time.monotonic_ns()
        out = fn()
        if synchronize:
            sync()
        phases[phase] = time.monotonic_ns() - t
        if out is not None:  # a step that made a coroutine or a generator did no work
            _refuse_lazy_result(f"its {phase} step", out)

    # Importing the framework launches nothing: it is not synchronized (a sync would initialise
    # a CUDA context the framework may not create until its compile or first launch).
    timed("init", _step(steps, "init"), synchronize=False)
    timed(order["compile_phase"], _step(steps, "compile"))
    timed("conversion", _step(steps, "convert"))
    timed("first_build", _step(steps, "build"))
    call = _step(steps, "call")
    if call is None:
        raise RuntimeError("the candidate gives no call step")
    timed("first_launch", call)
    # The totals: the calls after the first, synchronized at each N asked for; the time from the
    # spawn to that synchronize is the total of N calls this process paid.
    totals: Dict[str, int] = {}
    _current_step[0] = "the calls of the totals"
    checkpoints = sorted(int(n) for n in order["calls"])
    done = 1
    last_sync_ns = time.monotonic_ns()  # the first launch ended synchronized
    if 1 in checkpoints:
        totals["1"] = last_sync_ns - spawned_ns
    for n in checkpoints:
        while done < n:
            call()
            done += 1
        if str(n) not in totals:
            sync()
            last_sync_ns = time.monotonic_ns()
            totals[str(n)] = last_sync_ns - spawned_ns
    # The exit that follows (context teardown, interpreter shutdown) is timed by the parent, from
    # this last synchronize to the exit it sees.
    return {"phases": phases, "totals": totals, "last_sync_ns": last_sync_ns}


def main() -> int:
    fd = int(sys.argv[1])
    order = _wire.read_order(sys.argv[2])
    try:
        result: Dict[str, Any] = {"ok": True, **run(order)}
    except _Lazy as e:
        result = {"ok": False, "type": "ConfigError", "message": str(e),
                  "step": _current_step[0], "traceback": ""}
    except BaseException as e:  # noqa: BLE001  (reported to the parent, which raises it)
        result = {"ok": False, "type": type(e).__name__, "message": str(e),
                  "step": _current_step[0], "traceback": traceback.format_exc()}
    with os.fdopen(fd, "w") as out:
        out.write(_wire.report_line(result))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
