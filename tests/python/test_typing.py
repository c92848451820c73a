"""The Python API is typed and documented as its users read it: type hints that resolve, stubs
shipped with the package, `mypy --strict` on a user's script, and docstrings with Args, Returns
and Raises for every function (help(gpumeter.measure) reads like do_bench's or Timer's)."""
import inspect
import os
import subprocess
import sys
import textwrap
import typing

import pytest

import gpumeter

HERE = os.path.dirname(os.path.abspath(__file__))
FUNCTIONS = [gpumeter.measure, gpumeter.compare, gpumeter.write_record, gpumeter.read_record,
             gpumeter.env, gpumeter.release_cupti, gpumeter.main]


@pytest.mark.parametrize("fn", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
def test_type_hints_resolve(fn):
    hints = typing.get_type_hints(fn)
    assert "return" in hints
    for name in inspect.signature(fn).parameters:
        assert name in hints, (fn.__name__, name)


def test_measure_returns_the_result_class_and_timing_is_a_literal():
    hints = typing.get_type_hints(gpumeter.measure)
    assert hints["return"] is gpumeter.Result
    assert typing.get_type_hints(gpumeter.compare)["return"] is gpumeter.CompareResult
    assert set(typing.get_args(hints["timing"])) == {"auto", "cupti", "events", "host", "kernel-records", "device-events", "host-clock"}


@pytest.mark.parametrize("fn", [gpumeter.measure, gpumeter.compare, gpumeter.write_record,
                                gpumeter.read_record, gpumeter.env],
                         ids=lambda f: f.__name__)
def test_every_argument_is_documented_with_returns_and_raises(fn):
    doc = inspect.getdoc(fn)
    for section in ("Args:", "Returns:", "Raises:"):
        assert section in doc, (fn.__name__, section)
    args = doc.split("Args:")[1].split("Returns:")[0]
    for name in inspect.signature(fn).parameters:
        assert f"\n    {name}: " in "\n" + args, (fn.__name__, name)


def test_every_class_of_the_api_is_documented():
    for name in gpumeter.__all__:
        obj = getattr(gpumeter, name)
        if isinstance(obj, type):
            assert obj.__doc__ and obj.__doc__.strip(), name


def test_the_stubs_ship_with_the_package():
    folder = os.path.dirname(gpumeter._gpumeter.__file__)
    assert os.path.exists(os.path.join(folder, "py.typed"))
    stub = os.path.join(folder, "_gpumeter.pyi")
    assert os.path.exists(stub), "_gpumeter.pyi missing: see the build log's stubgen warning"
    text = open(stub, encoding="utf-8").read()
    assert "class Result:" in text and "def device_busy(self) -> Spread:" in text


def _mypy(target, tmp_path):
    pytest.importorskip("mypy")
    args = ["-p", "gpumeter"] if target == "gpumeter" else [str(target)]
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache")] + args,
        capture_output=True, text=True, timeout=300, cwd=str(tmp_path))


def test_mypy_strict_passes_on_the_package_itself(tmp_path):
    p = _mypy("gpumeter", tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr


def test_mypy_strict_passes_on_a_users_script(tmp_path):
    p = _mypy(os.path.join(HERE, "typing_check.py"), tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr


def test_mypy_sees_the_types_and_refuses_misuse(tmp_path):
    """The other side: were the stub missing, everything would be Any and pass."""
    bad = tmp_path / "misuse.py"
    bad.write_text(textwrap.dedent('''
        import gpumeter
        r = gpumeter.measure(lambda: None, timing="sundial")
        n: str = r.n_samples
        low: float = gpumeter.compare({"a": print}).comparisons[0].low
        try:
            pass
        except gpumeter.RecordsLost as e:
            dropped: str = e.dropped
    '''))
    p = _mypy(bad, tmp_path)
    assert p.returncode == 1, p.stdout + p.stderr
    errors = [line for line in p.stdout.splitlines() if ": error:" in line]
    for line_no in (3, 4, 5, 9):
        assert any(f"misuse.py:{line_no}:" in e for e in errors), (line_no, p.stdout)


def test_the_users_script_runs():
    p = subprocess.run([sys.executable, os.path.join(HERE, "typing_check.py")],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "refused: budget" in p.stdout and "ZeroDivisionError division by zero" in p.stdout
