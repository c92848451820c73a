"""First contact (issue 51): bad arguments cost nothing and say what is allowed, and the default
answer check words each failure with the values."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import gpumeter

HERE = os.path.dirname(os.path.abspath(__file__))
QUICK = (1.0, 2.0)  # budgets in ms: these tests check what happens, not how fast


def evaluate(tmp_path, *args, candidates=("honest=exploits.honest:host",)):
    """`gpumeter evaluate` on the host exploits' problem with ``args`` changed or added."""
    out = tmp_path / "eval"
    base = {"--reference": "exploits.problem:host_reference",
            "--inputs": "exploits.problem:host_inputs", "--timing": "host", "--budget": "1,4",
            "--out": str(out), "--jsonl": str(tmp_path / "lines.jsonl"), "--timeout": "120"}
    given = list(args)
    for i in range(0, len(given) - 1):
        if given[i] in base:
            base.pop(given[i])
    # An option given as None is left out (the base's too).
    given = [x for i, x in enumerate(given)
             if x is not None and not (i + 1 < len(given) and given[i + 1] is None)]
    argv = [x for kv in base.items() for x in kv] + given + list(candidates)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([HERE] + [p for p in sys.path if p])
    proc = subprocess.run([sys.executable, "-m", "gpumeter", "evaluate", *argv],
                          capture_output=True, text=True, env=env, cwd=HERE, timeout=600)
    return proc, out


def assert_usage_error(proc, out, *said):
    """Exit 2, one line naming the problem (and the line pointing at --help), no usage block,
    and nothing run: no record folder, no JSON line."""
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 2, proc.stderr
    assert lines[0].startswith("gpumeter evaluate: "), proc.stderr
    assert lines[1] == "Run 'gpumeter evaluate --help' for usage.", proc.stderr
    assert "usage:" not in proc.stderr, proc.stderr
    for words in said:
        assert words in lines[0], proc.stderr
    assert proc.stdout == ""
    assert not out.exists() or not any(out.iterdir()), list(out.iterdir())


@pytest.mark.parametrize("value", ["60%", "nan", "-1", "0", "inf", "0.0001"])
def test_evaluate_refuses_a_precision_outside_its_range_before_anything_runs(tmp_path, value):
    proc, out = evaluate(tmp_path, "--budget", None, "--precision", value)
    assert_usage_error(proc, out, "--precision must be a fraction from 0.1% to 50% (0.001 to 0.5)",
                       value)


@pytest.mark.parametrize("value", ["2", "1"])
def test_evaluate_refuses_a_bare_precision_of_one_or_more_naming_the_unit(tmp_path, value):
    """`--precision 1` was 100% here and 1% in the benchmark programs: a bare 1 or more is
    refused everywhere, the unit named, exit 2, nothing run."""
    proc, out = evaluate(tmp_path, "--budget", None, "--precision", value)
    assert_usage_error(proc, out, f"--precision must be a fraction, written {value}% or "
                                  f"0.0{value}, got {value}")


@pytest.mark.parametrize("value,said", [
    ("0,100", "--budget's warm-up must be > 0 ms, got 0"),
    ("25,inf", "--budget's measurement must be a number > 0 ms, got 'inf'"),
    ("25", "--budget must be WARMUP_MS,MEASURE_MS (e.g. 25,100), got '25'"),
    ("", "--budget: is empty (give it a value, or leave it out)")])
def test_evaluate_refuses_a_budget_outside_its_range_before_anything_runs(tmp_path, value, said):
    proc, out = evaluate(tmp_path, "--budget", value)
    assert_usage_error(proc, out, said)


@pytest.mark.parametrize("value,said", [
    ("1e-9", "--timeout must be >= 1 s, got 1e-9"),
    ("0", "--timeout must be >= 1 s, got 0"),
    ("500ms", "--timeout must be >= 1 s, got 500ms"),
    ("inf", "--timeout must be a duration >= 1 s (10s, 500ms or bare seconds), got 'inf'"),
    ("nan", "--timeout must be a duration >= 1 s (10s, 500ms or bare seconds), got 'nan'"),
    ("abc", "--timeout must be a duration >= 1 s (10s, 500ms or bare seconds), got 'abc'")])
def test_evaluate_refuses_a_timeout_that_is_no_limit_or_too_short(tmp_path, value, said):
    proc, out = evaluate(tmp_path, "--timeout", value)
    assert_usage_error(proc, out, said)
    if value == "inf":
        assert "there is no unlimited value" in proc.stderr


@pytest.mark.parametrize("args,said", [
    (("--rtol", "nan"), "--rtol nan is not a finite number >= 0"),
    (("--atol", "inf"), "--atol inf is not a finite number >= 0"),
    (("--device", "-1"), "--device must be >= 0, got -1"),
    (("--budget", None, "--precision", "1%", "--max-time", "2h"),
     "--max-time must be a duration >= 0.1 s (10s, 500ms or bare seconds), got '2h'"),
    (("--flops", "-3"), "--flops must be >= 0, got -3"),
    (("--bytes", "inf"), "--bytes must be a number >= 0, got inf"),
    (("--max-time", "5"), "--max-time caps a run to a target precision")])
def test_evaluate_refuses_other_values_by_their_rules(tmp_path, args, said):
    proc, out = evaluate(tmp_path, *args)
    assert_usage_error(proc, out, said)


def test_evaluate_takes_work_per_call_by_the_cores_rule():
    # --flops/--bytes by the rule measure(flops=) and the programs' Setup::flops use (finite,
    # >= 0): evaluate once refused 0, which the core takes as a call that computes nothing.
    from gpumeter import _evaluate, _evaluate_args
    args = _evaluate._parser().parse_args(["--flops", "0", "--bytes", "0", "a=m:f"])
    _evaluate_args.check_options(args)
    assert args.flops == 0 and args.bytes == 0


@pytest.mark.parametrize("args", [("--precision", "abc"), ("--bogus",), ("--rtol",),
                                  ("--timing", "cuda")])
def test_evaluate_argparse_errors_are_one_line_not_the_usage_block(tmp_path, args):
    proc, out = evaluate(tmp_path, *args)
    assert_usage_error(proc, out)


@pytest.mark.parametrize("args,candidate,said", [
    ((), "exploits/honest.py:nosuchfn",
     "candidate 'exploits/honest.py:nosuchfn': no function 'nosuchfn' in "),
    ((), "exploits.honest:hots", "no function 'hots' in "),
    ((), "exploits.honset:host", "no module 'exploits.honset'"),
    ((), "nosuchmodule:host", "no module 'nosuchmodule' where "),
    (("--reference", "exploits.problem:host_referense"), "exploits.honest:host",
     "--reference 'exploits.problem:host_referense': no function 'host_referense' in"),
    (("--inputs", "exploits.problm:host_inputs"), "exploits.honest:host",
     "--inputs 'exploits.problm:host_inputs': no module 'exploits.problm'"),
])
def test_evaluate_a_name_that_is_not_there_is_a_bad_argument_not_a_crash(tmp_path, args,
                                                                         candidate, said):
    """A typo'd candidate was judged `crashed` and the run exited 0 (a CI job passed); a typo'd
    reference marked every candidate "not measured" (exit 1)."""
    proc, out = evaluate(tmp_path, *args, candidates=(candidate,))
    assert_usage_error(proc, out, said, "nothing was run")


def test_evaluate_a_typo_says_the_closest_name(tmp_path):
    proc, out = evaluate(tmp_path, candidates=("exploits.honest:hots",))
    assert_usage_error(proc, out, "did you mean 'host'?")


def test_evaluate_finds_names_without_running_the_candidates_code(tmp_path):
    """The names are found in the source's syntax tree: no candidate code runs before the
    reference is measured alone (guarantee 13), not even to find a typo."""
    marker = tmp_path / "imported"
    candidate = tmp_path / "noisy.py"
    candidate.write_text(f"open({str(marker)!r}, 'w').close()\n\ndef run(a, b):\n    return a\n")
    proc, out = evaluate(tmp_path, candidates=(f"{candidate}:runn",))
    assert_usage_error(proc, out, "no function 'runn'", "did you mean 'run'?")
    assert not marker.exists()


def test_evaluate_a_name_made_at_run_time_is_left_to_the_run(tmp_path):
    """What the syntax tree cannot show (a name bound through globals()) is not refused: the run
    imports it and judges it."""
    candidate = tmp_path / "made.py"
    candidate.write_text("from exploits.honest import host as _host\n"
                         "globals()['fast'] = _host\n")
    proc, out = evaluate(tmp_path, candidates=(f"made={candidate}:fast",))
    assert proc.returncode == 0, proc.stderr
    line = json.loads((tmp_path / "lines.jsonl").read_text().splitlines()[0])
    assert line["candidate"] == "made" and line["correct"] is True, line


@pytest.mark.parametrize("candidate", ["bad@name=exploits.honest:host",
                                       "exploits.honest:no-such", "exploits.honest"])
def test_evaluate_a_malformed_candidate_names_the_allowed_characters(tmp_path, candidate):
    proc, out = evaluate(tmp_path, candidates=(candidate,))
    assert_usage_error(proc, out, "NAME of letters, digits and _ . + - (the first a letter, a "
                                  "digit or _), FUNCTION a Python name")


# --- the default answer check -------------------------------------------------------------


def compare(wrong, right=lambda: np.ones(4)):
    return gpumeter.compare({"right": right, "wrong": wrong}, timing="host", budget=QUICK)


@pytest.mark.parametrize("answer,kind", [(None, "None"), ("abc", "a str"),
                                         (b"abc", "a bytes")])
def test_the_default_check_names_the_kinds_of_a_non_numeric_answer(answer, kind):
    """An answer of None or a string was a TypeError of numpy's, blamed on the user's code."""
    with pytest.raises(gpumeter.VerificationFailed) as e:
        compare(lambda: answer)
    assert str(e.value).startswith(
        f"wrong: the answer is {kind}, the first implementation's a numpy.ndarray of float64, "
        "shape (4,): the default check compares numbers"), str(e.value)


def test_the_default_check_gives_both_values_of_a_wrong_scalar():
    """A wrong scalar read "shape () vs ()", no values."""
    with pytest.raises(gpumeter.VerificationFailed) as e:
        compare(lambda: 3.0, right=lambda: 2.0)
    assert "output differs from the first implementation's: 3.0 against 2.0 (absolute " \
           "difference 1; rtol 1e-05, atol 1e-08)" in str(e.value), str(e.value)


def test_the_default_check_names_the_largest_differing_element():
    def wrong():
        a = np.ones((3, 4))
        a[1, 2], a[2, 0] = 1.5, 9.0
        return a

    with pytest.raises(gpumeter.VerificationFailed) as e:
        compare(wrong, right=lambda: np.ones((3, 4)))
    assert "element [2, 0] is 9.0 against 1.0 (absolute difference 8; 2 of 12 elements " \
           "differ" in str(e.value), str(e.value)
    with pytest.raises(gpumeter.VerificationFailed, match=r"shape \(4,\) against \(3,\)"):
        compare(lambda: np.ones(4), right=lambda: np.ones(3))


def test_the_default_check_passes_what_matches():
    c = gpumeter.compare({"a": lambda: (np.ones(2), np.ones(3)),
                          "b": lambda: (np.ones(2), np.ones(3) + 1e-12)},
                         timing="host", budget=QUICK)
    assert set(c.results) == {"a", "b"}


def test_a_source_folder_that_shadows_the_package_is_named(tmp_path):
    """`python -c "import gpumeter"` in the clone's python/ folder said "circular import": the
    source folder, without the compiled extension, shadows the installed package."""
    import shutil
    source = tmp_path / "python" / "gpumeter"
    package = os.path.dirname(gpumeter.__file__)
    shutil.copytree(package, source, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    env = dict(os.environ, PYTHONPATH=os.path.dirname(package))
    proc = subprocess.run([sys.executable, "-c", "import gpumeter"], cwd=source.parent, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert "circular import" not in proc.stderr, proc.stderr
    assert last == (f"ImportError: gpumeter was imported from {source}, a source folder without "
                    "the compiled extension (_gpumeter): it shadows the installed package at "
                    f"{package}; run Python from a folder other than {source.parent} (`pip "
                    "install .` in the clone installs the package with its extension)"), last


# --- pages and tables within 120 columns ---------------------------------------------------

DATA = os.path.join(HERE, "..", "data")


def test_compares_not_measured_lines_are_within_120_columns(tmp_path):
    """A case not measured was one line of up to 286 columns."""
    record = json.load(open(os.path.join(DATA, "record_v6.json")))
    for f in record["failures"]:
        f["message"] = ("the callable raised ValueError: " + "a long reason, " * 20).strip()
    paths = []
    for i, run_id in enumerate(("20261129T112650Z-4242-0badcafe",
                                "20261129T112650Z-4243-0badcafe")):
        record["run_id"] = run_id
        paths.append(tmp_path / f"r{i}.json")
        paths[-1].write_text(json.dumps(record))
    rc, out, err = gpumeter._gpumeter.cli(["compare", str(paths[0]), str(paths[1])])
    assert "Cases not measured (4):" in out, out
    part = out.split("Cases not measured")[1]
    assert max(len(line) for line in part.splitlines()) <= 120, part
    assert "a long reason, a long reason" in " ".join(part.split()), part


def test_the_phases_and_totals_tables_are_within_120_columns():
    """gpumeter report's phases table was 169 columns (180 from gpumeter.phases), its total(N)
    table 136."""
    rc, out, err = gpumeter._gpumeter.cli(["report", os.path.join(DATA, "record_v6.json")])
    assert rc == 0, err
    part = out[out.index("Phases ("):]
    assert max(len(line) for line in part.splitlines()) <= 120, part
    assert "measured (to exit): not measured in any row" in part, part
    assert "Setting fresh_cached, every phase by synchronized_wall_clock" in part, part
    assert "Against the first candidate:" in part, part
