"""Candidates for tests/python/test_phases.py: host work of known least durations (sleeps), a
kernel cache emulated in CUPY_CACHE_DIR, and a log of what each process's compile found, so the
cold and cached settings can be checked without a GPU."""

import os
import time
from typing import Any, Callable, Dict

LOG = "GPUMETER_TEST_PHASE_LOG"


def _log(line: str) -> None:
    with open(os.environ[LOG], "a") as f:
        f.write(line + "\n")


def sleeper(init_ms: float = 40, compile_ms: float = 60, load_ms: float = 5,
            call_ms: float = 1, build: bool = False) -> Dict[str, Callable[[], Any]]:
    def compile_() -> None:
        # The measuring process's own set-up (untimed) runs with the user's environment.
        cache = os.environ.get("CUPY_CACHE_DIR")
        if cache is None:
            return
        marker = os.path.join(cache, "compiled")
        if os.path.exists(marker):
            _log(f"cached {os.getpid()}")
            time.sleep(load_ms / 1e3)
        else:
            _log(f"cold {os.getpid()}")
            time.sleep(compile_ms / 1e3)
            with open(marker, "w") as f:
                f.write("1")

    steps: Dict[str, Callable[[], Any]] = {
        "init": lambda: time.sleep(init_ms / 1e3),
        "compile": compile_,
        "convert": lambda: time.sleep(0.002),
        "call": lambda: time.sleep(call_ms / 1e3),
        "kernel": lambda: time.sleep(call_ms / 2e3),
        "sync": lambda: None,
        "result": lambda: [1.0, 2.0],
    }
    if build:
        steps["build"] = lambda: time.sleep(0.003)
    return steps


def slow_exit(exit_ms: float = 150, **kw: Any) -> Dict[str, Callable[[], Any]]:
    """The sleeper whose process takes exit_ms to exit after its work (a runtime's teardown)."""
    import atexit
    atexit.register(time.sleep, exit_ms / 1e3)
    return sleeper(init_ms=5, compile_ms=5, load_ms=1, call_ms=1, **kw)


def fast(**kw: Any) -> Dict[str, Callable[[], Any]]:
    return sleeper(init_ms=5, compile_ms=10, load_ms=1, call_ms=2, **kw)


def raises() -> Dict[str, Callable[[], Any]]:
    def init() -> None:
        raise ValueError("the framework is not installed")
    return {"init": init, "call": lambda: None, "sync": lambda: None}


def wrong_result() -> Dict[str, Callable[[], Any]]:
    s = sleeper(init_ms=1, compile_ms=1, load_ms=1)
    s["result"] = lambda: [1.0, 3.0]
    return s


def async_call() -> Dict[str, Callable[[], Any]]:
    """A candidate whose call is an async def function: calling it runs none of its body."""
    async def call() -> None:
        time.sleep(0.001)
    s = sleeper(init_ms=1, compile_ms=1, load_ms=1)
    s["call"] = call
    return s


def coroutine_call() -> Dict[str, Callable[[], Any]]:
    """A call that returns a coroutine from a plain function (no definition says so)."""
    async def work() -> None:
        time.sleep(0.001)
    s = sleeper(init_ms=1, compile_ms=1, load_ms=1)
    s["call"] = lambda: work()
    return s


def zero_result() -> Dict[str, Callable[[], Any]]:
    """A candidate whose answer is all zeros: a tolerance that passes it passes anything."""
    s = sleeper(init_ms=1, compile_ms=1, load_ms=1)
    s["result"] = lambda: [0.0, 0.0]
    return s


def refit_raises() -> Dict[str, Callable[[], Any]]:
    """A candidate whose warm refit raises (never called in its fresh processes)."""
    def refit() -> None:
        raise RuntimeError("the structure is gone")
    s = sleeper(init_ms=1, compile_ms=1, load_ms=1)
    s["refit"] = refit
    return s
