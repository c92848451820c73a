"""One wording: every sentence Python shows about a result is the C++ core's, the same that
`gpumeter report` prints, and Python's reports are the CLI's. Runs on the host clock (no GPU);
asserts no timing verdict, only that each sentence, whatever it says, reads the same in both."""
import gpumeter
from gpumeter import _gpumeter

QUICK = (1.0, 2.0)  # budgets in ms


def spin(n=2000):
    x = 0.0
    for i in range(n):
        x += i * 0.5
    return x


def report(path, *flags):
    rc, out, err = _gpumeter.cli(["report", *flags, str(path)])
    assert rc == 0, err
    return out


def test_python_sentences_are_the_reports(tmp_path):
    # b's "scaled" does 1x the work for 4x: its null test is evaluated (whatever it finds), and a
    # row whose null test failed is worded as the table's note words it.
    c = gpumeter.compare({"a": spin, "b": spin, "c": spin}, scaled={"b": lambda k: spin()},
                         timing="host", budget=QUICK, verify=False)
    path = gpumeter.write_record(c, tmp_path)
    wide = report(path, "--wide")
    lines = wide.splitlines()
    assert c.comparisons, "compare() of three implementations compares two pairs"
    for comparison in c.comparisons:
        # The comparisons list names each by its case: "- case: SENTENCE".
        assert any(line.startswith("- ") and line.endswith(": " + str(comparison))
                   for line in lines), (str(comparison), wide)
        assert comparison.text == str(comparison)
    b = c.results["b"]
    assert b.null_test is not None
    assert any(line.endswith(" / b: " + b.null_test) for line in lines), (b.null_test, wide)
    if b.null_test_failed:
        # Result's line is the row's note under the table, after its name.
        name, _, rest = str(b).partition(": ")
        assert name == "b"
        assert rest.startswith("FAILED its null test: " + b.null_test)
        assert any(line.endswith(" / b: " + rest) for line in lines), (rest, wide)
    # The device as the report's sources name it (a host record has no uuid to add).
    device = c.record.device
    label = device.label
    assert label.startswith(device.name + " (" if device.name else device.kind)
    if not device.uuid:
        assert f"device {label}, uuid" in wide


def test_python_reports_are_the_cli_reports(tmp_path):
    r = gpumeter.measure(spin, timing="host", budget=QUICK)
    path = gpumeter.write_record(r, tmp_path)
    assert r.record.markdown() == report(path)
    assert r.record.markdown(wide=True) == report(path, "--wide")
    assert r.record.csv() == report(path, "--csv")


def test_no_wording_is_reimplemented_in_python():
    # The sentences live in the C++ core; the Python package words nothing about results.
    import inspect
    source = inspect.getsource(gpumeter)
    for phrase in ("null test", "no measured difference", "not measured", "above the measured",
                   "interval", "gpu_workload_bytes"):
        code = [line for line in source.splitlines()
                if phrase in line and not line.strip().startswith(("#", '"', "'"))
                and '"""' not in line and "``" not in line]
        assert not [line for line in code if ("f\"" in line or "+ \"" in line)], (phrase, code)
