"""The checks of the arguments of gpumeter's functions: every bad one is a ConfigError naming it.

Python's types are checked here; the values (a budget's range, flops >= 0, a device index, a
timing's name) by the C++ core's rules when the options are made. A callable that does no work
when called (a generator or ``async def`` function, or one whose call returned a generator, a
coroutine or an awaitable) is refused here too.
"""

from __future__ import annotations

import inspect
import numbers
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple

from . import _gpumeter
from ._errors import ConfigError


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


def _number_text(argument: str, value: object, rule: str, expected: str) -> Optional[float]:
    """A number option that also takes its command line's text, read by the core's reader under
    `rule` as the option is everywhere; a number's range is the core's to check."""
    if isinstance(value, str):
        number, must = _gpumeter.read_number(value, rule)
        if number is None:
            raise _bad(argument, must, value)
        return number
    return _optional_real(argument, value, expected)


def _fraction(argument: str, value: object) -> Optional[float]:
    """A fraction option (``precision=``): a number (0.02) or its text ("2%", "0.02"), as
    ``--precision`` takes it."""
    return _number_text(argument, value, argument, "a fraction, 0.01 or '1%', or None")


def _duration(argument: str, value: object, rule: str) -> Optional[float]:
    """A duration option (``max_time_s=``): a number of seconds or its text ("10s", "500ms",
    "10"), as ``--max-time`` takes it."""
    return _number_text(argument, value, rule, "a number of seconds, '10s' or '500ms', or None")


def _integer(argument: str, value: object, expected: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise _bad(argument, expected, value)
    return int(value)


def _flag(argument: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise _bad(argument, "True or False", value)
    return value


# The longest name a record holds, in UTF-8 bytes: the core's kMaxNameBytes (record.hpp).
_MAX_NAME_BYTES: int = _gpumeter.MAX_NAME_BYTES


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
    """A budget (``budget=``): a pair (warm-up ms, measure ms) or its text ("25,100"), the text
    read by the core's rule as ``--budget`` is everywhere; a pair's range is the core's to
    check."""
    expected = "a pair (warm-up ms, measure ms) such as (25, 100), or its text '25,100'"
    if value is None:
        return None
    if isinstance(value, str):
        warmup, measure, problem = _gpumeter.budget_problem("the text", value)
        if problem:  # "budget: ...", as every argument's refusal here begins
            raise ConfigError(f"budget: {problem}", argument="budget")
        return (warmup, measure)
    if isinstance(value, bytes) or not isinstance(value, Sequence) or len(value) != 2:
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
