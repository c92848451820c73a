"""Callables that do none of their work when called (issue 36): a generator function, an ``async
def`` function, an async generator function, and a plain function returning a coroutine, a
generator or an awaitable. Calling one only makes the object that would do the work, so timing it
times that (0.33 us) and a comparison blames the user's code for its output. Each is refused
before timing, as a ConfigError naming the argument, in measure, compare, phases, sweep and
evaluate. Host clock only: nothing here needs a GPU."""
import asyncio
import functools
import os
import sys
import warnings

import pytest

import gpumeter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_exploits import evaluate  # noqa: E402  (the same `gpumeter evaluate` harness)

HOST = dict(timing="host", budget=(1, 2))


async def async_work():
    return 1.0


def generator_work():
    yield 1.0


async def async_generator_work():
    yield 1.0


class AsyncCallable:
    async def __call__(self):
        return 1.0


def returns_coroutine():
    return async_work()


def returns_generator():
    return generator_work()


def returns_future():
    loop = asyncio.new_event_loop()
    try:
        return loop.create_future()
    finally:
        loop.close()


def plain_work():
    return 1.0


LAZY_DEFINITIONS = {
    "async def": (async_work, "an async def function"),
    "generator": (generator_work, "a generator function"),
    "async generator": (async_generator_work, "an async generator function"),
    "partial of async def": (functools.partial(async_work), "an async def function"),
    "callable object": (AsyncCallable(), "an async def function"),
}
LAZY_RESULTS = {
    "coroutine": (returns_coroutine, "it returned a coroutine"),
    "generator": (returns_generator, "it returned a generator"),
    "awaitable": (returns_future, "it returned an awaitable (Future)"),
}


def refused(call, argument, words):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "coroutine was never awaited" left behind
        with pytest.raises(gpumeter.ConfigError) as e:
            call()
    assert e.value.argument == argument, e.value
    assert words in str(e.value), str(e.value)
    assert str(e.value).startswith(argument + ": "), str(e.value)
    assert "does the work when called" in str(e.value), str(e.value)
    return e.value


@pytest.mark.parametrize("kind", sorted(LAZY_DEFINITIONS))
def test_measure_refuses_a_lazy_definition(kind):
    fn, words = LAZY_DEFINITIONS[kind]
    refused(lambda: gpumeter.measure(fn, **HOST), "fn", words)


@pytest.mark.parametrize("kind", sorted(LAZY_RESULTS))
def test_measure_refuses_a_lazy_result(kind):
    fn, words = LAZY_RESULTS[kind]
    refused(lambda: gpumeter.measure(fn, **HOST), "fn", words)


def test_measure_refuses_a_lazy_reset():
    refused(lambda: gpumeter.measure(plain_work, reset=async_work, **HOST), "reset",
            "an async def function")
    refused(lambda: gpumeter.measure(plain_work, reset=returns_coroutine, **HOST), "reset",
            "it returned a coroutine")


@pytest.mark.parametrize("kind", sorted(LAZY_DEFINITIONS))
def test_compare_refuses_a_lazy_definition(kind):
    fn, words = LAZY_DEFINITIONS[kind]
    refused(lambda: gpumeter.compare({"a": plain_work, "b": fn}, **HOST),
            "implementations['b']", words)


@pytest.mark.parametrize("kind", sorted(LAZY_RESULTS))
def test_compare_refuses_a_lazy_result_not_as_user_code_error(kind):
    # Before: the output check failed, as UserCodeError blaming the user's code.
    fn, words = LAZY_RESULTS[kind]
    refused(lambda: gpumeter.compare({"a": plain_work, "b": fn}, **HOST),
            "implementations['b']", words)


def test_compare_with_fresh_inputs_refuses_a_lazy_result():
    refused(lambda: gpumeter.compare({"a": lambda x: x, "b": lambda x: async_work()},
                                     fresh_inputs=lambda seed: (float(seed),), **HOST),
            "implementations['b']", "it returned a coroutine")


def test_sweep_refuses_a_lazy_call():
    refused(lambda: gpumeter.sweep({"s": lambda n: async_work}, [1, 2, 3], axis="n", **HOST),
            "implementations['s'](1)", "an async def function")
    refused(lambda: gpumeter.sweep({"s": lambda n: returns_coroutine}, [1, 2, 3], axis="n",
                                   verify=False, **HOST),
            "implementations['s'](1)", "it returned a coroutine")
    refused(lambda: gpumeter.sweep({"s": lambda n: returns_generator}, [1, 2, 3], axis="n",
                                   **HOST),
            "implementations['s'](1)", "it returned a generator")


def test_sweep_refuses_a_lazy_factory():
    async def factory(n):
        return plain_work
    refused(lambda: gpumeter.sweep({"s": factory}, [1, 2, 3], axis="n", **HOST),
            "implementations['s']", "an async def function")


@pytest.fixture
def log(tmp_path, monkeypatch):
    path = tmp_path / "log"
    path.write_text("")
    monkeypatch.setenv("GPUMETER_TEST_PHASE_LOG", str(path))
    return path


@pytest.mark.parametrize("candidate,words", [
    ("phase_candidates:async_call", "its 'call' step is an async def function"),
    ("phase_candidates:coroutine_call", "its first_launch step returned a coroutine"),
])
def test_phases_refuses_a_lazy_step(log, candidate, words):
    e = refused(lambda: gpumeter.phases({"lazy": candidate}, timing="host", lock=False,
                                        processes=1, calls=(1, 2)),
                "candidates", words)
    assert candidate in str(e)


def test_evaluate_refuses_lazy_candidates_as_theirs(tmp_path):
    proc, lines = evaluate(tmp_path, ["async=exploits.lazy:host_async",
                                      "generator=exploits.lazy:host_generator",
                                      "coroutine=exploits.lazy:host_returns_coroutine",
                                      "honest=exploits.honest:host"])
    # Every candidate has a verdict: refused is the candidate's own, not "not measured".
    assert proc.returncode == 0, proc.stderr
    for name, words in (("async", "an async def function"),
                        ("generator", "a generator function"),
                        ("coroutine", "it returned a coroutine")):
        line = lines[name]
        assert line["verdict"] == "refused" and line["correct"] is False, line
        assert f"implementations['{name}']" in line["why"] and words in line["why"], line
    assert lines["honest"]["correct"] is True


def test_a_plain_callable_still_measures():
    r = gpumeter.measure(plain_work, **HOST)
    assert r.n_samples > 0
