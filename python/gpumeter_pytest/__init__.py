"""gpumeter's pytest plugin, as pytest loads it (the ``pytest11`` entry point ``gpumeter``).

Only the options, the fixture's name and the hooks live here; the work is in
``gpumeter.pytest_plugin``. gpumeter itself (a C++ extension that loads CUDA's libraries, and
turns JAX's preallocation off) is imported only when a test asks for the ``gpumeter`` fixture or
a ``--gpumeter-*`` option is given: having gpumeter installed changes no other pytest run.
``-p no:gpumeter`` turns the plugin off.
"""
from __future__ import annotations

from typing import Any, Generator, Optional

import pytest

# The helps of the options shared with gpumeter's other front ends: the core's, written into this
# package when it is built (a plain module: importing gpumeter here would load CUDA's libraries).
from ._option_help import HELP

_ATTRIBUTE = "_gpumeter_session"


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("gpumeter", "performance tests measured by gpumeter")
    group.addoption(
        "--gpumeter-dir", default=".gpumeter", metavar="DIR",
        help="where records go: each run's in DIR/runs/<run id>/, baselines in "
             "DIR/baselines/<name>/ (default: .gpumeter in pytest's rootdir)")
    group.addoption(
        "--gpumeter-save", default=None, metavar="NAME",
        help="keep this run's records as the baseline NAME (replacing one of that name)")
    group.addoption(
        "--gpumeter-compare", default=None, metavar="NAME",
        help="compare every measurement with the same test's in the baseline NAME (a name "
             "saved with --gpumeter-save, or a baseline folder's path)")
    group.addoption(
        "--gpumeter-fail-on-regression", default=None, metavar="FRACTION",
        help="with --gpumeter-compare, each test: " + _pytest_help("--fail-on-regression"))
    group.addoption(
        "--gpumeter-allow-missing", action="store_true", default=False,
        help=_pytest_help("--allow-missing"))
    group.addoption(
        "--gpumeter-allow-contended", action="store_true", default=False,
        help=_pytest_help("--allow-contended"))


def _pytest_help(name: str) -> str:
    """The core's help of option `name`, as pytest shows one: lower case first, % escaped."""
    text = HELP[name]
    return (text[:1].lower() + text[1:]).replace("%", "%%")


def _session(config: Any, create: bool) -> Optional[Any]:
    s = getattr(config, _ATTRIBUTE, None)
    if s is None and create:
        from gpumeter.pytest_plugin import PytestSession  # noqa: PLC0415 (only when used)
        s = PytestSession(config)
        setattr(config, _ATTRIBUTE, s)
    return s


def _asked(config: Any) -> bool:
    # --gpumeter-allow-missing too: given alone it is refused (the core's gate_options) before any
    # test runs, not when a test first measures.
    return any(config.getoption(o) for o in (
        "gpumeter_save", "gpumeter_compare", "gpumeter_fail_on_regression",
        "gpumeter_allow_missing"))


def pytest_configure(config: Any) -> None:
    # Options are checked (and a baseline found) before any test runs.
    if _asked(config):
        _session(config, True)


@pytest.fixture
def gpumeter(request: Any) -> Any:
    """Measures a callable (``gpumeter(fn)``, ``gpumeter.measure(fn)``) or compares
    implementations (``gpumeter.compare({...})``) by gpumeter's rules, records each measurement
    in this run's folder, and judges it against the baseline of ``--gpumeter-compare``. Takes
    the arguments of ``gpumeter.measure`` and ``gpumeter.compare``; returns their results.
    ``timing="host"`` times host work on the host clock; any other timing is GPU work, skipped
    where no GPU is usable."""
    return _session(request.config, True).fixture(request)  # type: ignore[union-attr]


def pytest_deselected(items: Any) -> None:
    for item in items:
        s = _session(item.config, False)
        if s is not None:
            s.deselected.add(item.nodeid)


def pytest_collection_finish(session: Any) -> None:
    s = _session(session.config, False)
    if s is not None:
        s.collected.update(i.nodeid for i in session.items)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Generator[None, Any, None]:
    outcome = yield
    s = _session(item.config, False)
    if s is not None:
        s.judge(item, outcome.get_result())


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    s = _session(session.config, False)
    if s is not None:
        s.finish(session)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: Any) -> None:
    s = _session(config, False)
    if s is not None:
        s.summary(terminalreporter)


def pytest_unconfigure(config: Any) -> None:
    s = _session(config, False)
    if s is not None:
        s.release()
