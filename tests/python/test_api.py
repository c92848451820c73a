"""The Python API on the host clock (CI has no GPU): measure, compare, every error by its
cause, records that `gpumeter report` reads back. Asserts the plumbing, never a CPU timing
ratio (CI machines are shared and loaded)."""
import ast
import functools
import json
import os
import pickle
import re
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

import gpumeter

QUICK = (1.0, 2.0)  # budgets in ms: these tests check what happens, not how fast


def spin(n=2000):
    x = 0.0
    for i in range(n):
        x += i * 0.5
    return x


def test_measure_returns_a_typed_result_from_the_core():
    r = gpumeter.measure(spin, timing="host", budget=QUICK, flops=2000, bytes=16000)
    assert isinstance(r, gpumeter.Result)
    assert r.method == "host-clock" and r.statistic == "synchronized_wall_clock"
    assert r.n_samples == len(r.samples) == sum(r.pass_sizes) >= 10
    assert len(r.pass_sizes) == 6  # a lone implementation runs A A, 3 rounds on the host clock
    assert 0 < r.device_busy.p10_ns <= r.device_busy.median_ns <= r.device_busy.p90_ns
    assert r.max_n_kernels is None  # a host clock counts no kernels
    assert r.tflops is not None and r.tbs is not None
    # A percent of peak only against ceilings timed as the row was: none without a device; with
    # one, the host clock is the synchronized wall clock and the ceilings are timed by it too.
    ceilings = r.record.to_dict()["ceilings"]
    if ceilings["bytes_per_s"] is None:
        assert r.pct_of_peak_bandwidth is None and r.above_bandwidth_ceiling is None
    else:
        assert ceilings["timing_method"] == r.record.to_dict()["results"][0]["timing_method"]
        assert r.pct_of_peak_bandwidth is not None and r.above_bandwidth_ceiling is not None
    assert isinstance(r.record, gpumeter.Record) and r.record.results[0].name == r.name
    assert r.record.to_dict()["schema"] == "gpumeter.record"
    assert r.summary.n_samples == r.n_samples and r.summary.method == "host-clock"
    assert [s.device_busy_ns for s in r.samples] == [
        s.device_busy_ns for s in r.record.results[0].samples]
    assert "samples" in str(r)


def test_reset_runs_before_every_call_and_is_not_timed():
    order = []
    gpumeter.measure(lambda: order.append("c"), reset=lambda: (order.append("r"), time.sleep(0.002)),
                     timing="host", budget=QUICK)
    assert order[0] == "r" and all(a == "r" and b == "c" for a, b in zip(order[::2], order[1::2]))


def test_compare_verifies_outputs_then_states_the_rule():
    x = np.arange(1000, dtype=np.float64)
    c = gpumeter.compare({"sum": lambda: np.array([x.sum()]), "loop": lambda: np.array([sum(x)])},
                         timing="host", budget=QUICK, inputs=[x])
    assert set(c.results) == {"sum", "loop"}
    assert len(c.comparisons) == 1
    cmp = c.comparisons[0]
    assert cmp.baseline == "sum" and cmp.candidate == "loop"
    assert cmp.rule == "resolution_1.5x"  # wall clock: the 1.5x resolution
    # "loop is 30x slower than sum (...)", or under 1.5x, where no direction is worded, "no
    # measured difference at this precision between loop and sum (...)": the host clock decides.
    assert ("than sum (" in cmp.text or "between loop and sum (" in cmp.text)
    assert "rule: 1.5x resolution" in cmp.text
    assert str(cmp) == cmp.text
    assert c.record.comparisons[0].rule == "resolution_1.5x"
    assert c.record.to_dict()["comparisons"][0]["rule"] == "resolution_1.5x"


def test_compare_refuses_a_wrong_output_before_timing():
    with pytest.raises(gpumeter.VerificationFailed, match="differs from the first"):
        gpumeter.compare({"right": lambda: np.ones(4), "wrong": lambda: np.zeros(4)},
                         timing="host", budget=QUICK)


def test_verify_true_means_the_allclose_check():
    # As the type hint says: True is the default check, not a callable.
    c = gpumeter.compare({"a": lambda: np.ones(4), "b": lambda: np.ones(4) + 1e-9},
                         verify=True, timing="host", budget=QUICK)
    assert set(c.results) == {"a", "b"}
    with pytest.raises(gpumeter.VerificationFailed, match="differs from the first"):
        gpumeter.compare({"right": lambda: np.ones(4), "wrong": lambda: np.zeros(4)},
                         verify=True, timing="host", budget=QUICK)
    # rtol and atol are the check's
    with pytest.raises(gpumeter.VerificationFailed, match="rtol 1e-12"):
        gpumeter.compare({"a": lambda: np.ones(4), "b": lambda: np.ones(4) * (1 + 1e-9)},
                         verify=True, rtol=1e-12, atol=0.0, timing="host", budget=QUICK)
    with pytest.raises(gpumeter.ConfigError, match="verify: must be True, False, None or a"):
        gpumeter.compare({"a": lambda: 1}, verify="yes", timing="host", budget=QUICK)


def test_compare_refuses_modified_shared_inputs():
    x = np.ones(4)

    def writes():
        x[0] += 1
        return None

    with pytest.raises(gpumeter.InputsModified, match="changed the case's shared inputs"):
        gpumeter.compare({"reads": lambda: None, "writes": writes}, timing="host", budget=QUICK,
                         inputs=[x], verify=False)


def test_errors_are_named_by_cause_under_one_base():
    for name in ["RecordsLost", "OffThreadLaunch", "AttributionError", "CuptiUnavailable",
                 "InputsModified", "VerificationFailed", "MixedTimingMethods", "WrongDevice",
                 "DeviceError", "InvalidRecord", "ConfigError", "TimestampUnitMismatch",
                 "UserCodeError", "CollectionStopped", "UnaccountedWork"]:
        assert issubclass(getattr(gpumeter, name), gpumeter.Error), name
    assert issubclass(gpumeter.Error, Exception)
    with pytest.raises(gpumeter.ConfigError, match="timing: must be"):
        gpumeter.measure(spin, timing="sundial")
    with pytest.raises(gpumeter.ConfigError, match="budget"):
        gpumeter.measure(spin, timing="host", budget=(0, 1))
    with pytest.raises(gpumeter.ConfigError, match="no implementations"):
        gpumeter.compare({})


def test_an_exception_a_call_raises_is_user_code_error_with_it_as_the_cause():
    def boom():
        raise ValueError("nope")
    with pytest.raises(gpumeter.UserCodeError) as caught:
        gpumeter.measure(boom, timing="host", budget=QUICK)
    assert isinstance(caught.value, gpumeter.Error)
    cause = caught.value.__cause__
    assert isinstance(cause, ValueError) and str(cause) == "nope"
    assert cause.__traceback__ is not None  # it points into the user's code
    assert str(caught.value).startswith("implementation 'boom', its untimed call before timing "
                                        "threw ValueError: nope; "), str(caught.value)


def test_an_exception_in_a_timed_call_names_its_iteration():
    calls = []

    def fifth_fails():
        calls.append(1)
        if len(calls) == 5:
            raise KeyError("fifth")

    with pytest.raises(gpumeter.UserCodeError, match=r"iteration \d+, the measured call threw "
                                                     r"KeyError: 'fifth'") as caught:
        gpumeter.measure(fifth_fails, timing="host", budget=QUICK)
    assert isinstance(caught.value.__cause__, KeyError)


def test_an_exception_of_the_users_own_class_is_named_with_its_module():
    class Boom(Exception):
        pass

    def check(name, out, ref):
        raise Boom("the check broke")

    with pytest.raises(gpumeter.UserCodeError) as caught:
        gpumeter.compare({"a": lambda: 1, "b": lambda: 1}, verify=check, timing="host",
                         budget=QUICK)
    assert isinstance(caught.value.__cause__, Boom)
    # As Python's traceback names it: module, then qualified name.
    assert (f"implementation 'b', its output check threw {__name__}."
            f"{Boom.__qualname__}: the check broke" in str(caught.value)), str(caught.value)


def test_a_gpumeter_error_raised_in_a_callable_keeps_its_cause():
    def check(name, out, ref):
        raise gpumeter.VerificationFailed(f"{name}: not what I wanted")

    with pytest.raises(gpumeter.VerificationFailed, match="b: not what I wanted"):
        gpumeter.compare({"a": lambda: 1, "b": lambda: 1}, verify=check, timing="host",
                         budget=QUICK)


# Every error of the catalogue that a message alone makes comes back through the core as itself,
# not as the generic Error: the list is the catalogue's, not a hand-kept one.
@pytest.mark.parametrize("name", [e.name for e in gpumeter._gpumeter.error_catalogue()
                                  if not e.fields])
def test_a_fieldless_gpumeter_error_raised_in_a_check_comes_back_as_itself(name):
    cls = getattr(gpumeter, name)

    def check(impl, out, ref):
        raise cls(f"{impl}: raised by the check")

    with pytest.raises(cls, match="b: raised by the check") as caught:
        gpumeter.compare({"a": lambda: 1, "b": lambda: 1}, verify=check, timing="host",
                         budget=QUICK)
    assert type(caught.value) is cls, type(caught.value)


def test_ctrl_c_in_a_callable_is_itself():
    def interrupted():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        gpumeter.measure(interrupted, timing="host", budget=QUICK)


def test_a_fingerprint_that_raises_is_user_code_error():
    class Unreadable:
        def copy(self):
            return self

        def __array__(self, *args, **kwargs):
            raise RuntimeError("cannot read me")

    with pytest.raises(gpumeter.UserCodeError, match="fingerprint of the shared inputs") as caught:
        gpumeter.compare({"a": lambda: None}, inputs=[Unreadable()], verify=False, timing="host",
                         budget=QUICK)
    assert isinstance(caught.value.__cause__, RuntimeError)


def test_record_round_trip_through_gpumeter_report(tmp_path):
    r = gpumeter.measure(spin, timing="host", budget=QUICK, name="spin")
    path = gpumeter.write_record(r, tmp_path)
    assert os.path.basename(path) == f"gpumeter-{r.record.run_id}.json"
    back = gpumeter.read_record(path)
    assert isinstance(back, gpumeter.Record) and back.run_id == r.record.run_id
    assert back.to_dict()["results"][0]["samples"] == r.record.to_dict()["results"][0]["samples"]
    assert [s.latency_ns for s in back.results[0].samples] == [s.latency_ns for s in r.samples]
    assert back.results[0].device_busy.median_ns == r.device_busy.median_ns
    # The command, from the module (the same code as the gpumeter executable).
    out = subprocess.run([sys.executable, "-m", "gpumeter", "report", path], capture_output=True,
                         text=True, check=True).stdout
    assert "| spin " in out and "host-clock" in out
    # Records are never overwritten.
    with pytest.raises(gpumeter.Error, match="already exists"):
        gpumeter.write_record(r, tmp_path)


def test_an_altered_record_is_refused(tmp_path):
    r = gpumeter.measure(spin, timing="host", budget=QUICK)
    record = r.record.to_dict()
    record["results"][0]["summary"]["device_busy_ms"]["median"] *= 0.5
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record))
    with pytest.raises(gpumeter.InvalidRecord, match="does not describe the raw samples"):
        gpumeter.read_record(str(bad))
    p = subprocess.run([sys.executable, "-m", "gpumeter", "report", str(bad)], capture_output=True,
                       text=True)
    assert p.returncode == 2 and p.stdout == "" and "bad.json" in p.stderr


def test_a_rows_flags_are_read_from_its_record_and_a_tampered_flag_is_refused(tmp_path):
    r = gpumeter.measure(spin, timing="host", budget=QUICK)
    record = r.record.to_dict()
    stored = record["results"][0]["flags"]
    # The binding reads what the record holds (decided once, where it was finished).
    flags = r.flags
    assert isinstance(flags, gpumeter.RowFlags)
    assert {name: getattr(flags, name) for name in stored} == stored
    assert r.measures_call_overhead == flags.call_overhead
    assert r.record.results[0].flags.low_clock == stored["low_clock"]
    # A flag its row's numbers do not give refuses the record, as any derived value does.
    record["results"][0]["flags"]["low_clock"] = not stored["low_clock"]
    bad = tmp_path / "bad-flag.json"
    bad.write_text(json.dumps(record))
    with pytest.raises(gpumeter.InvalidRecord, match=r"results\[0\]\.flags\.low_clock is"):
        gpumeter.read_record(str(bad))


def test_read_record_is_linear_in_keys_and_reads_files_as_report_does(tmp_path):
    r = gpumeter.measure(spin, timing="host", budget=QUICK)
    record = r.record.to_dict()
    # 200,000 keys no version has: ignored, and read in time linear in them (they took 21.6 s).
    record.update({f"k{i}": 0 for i in range(200_000)})
    many = tmp_path / "many-keys.json"
    many.write_text(json.dumps(record))
    start = time.process_time()
    back = gpumeter.read_record(str(many)).to_dict()
    assert time.process_time() - start < 2.0
    assert back["results"][0]["samples"] == record["results"][0]["samples"]
    assert "k0" not in back
    # Bytes after the record (behind a NUL, which JSON text never holds) refuse it.
    tail = tmp_path / "tail.json"
    tail.write_bytes(r.record.to_json().encode() + b"\0" + os.urandom(1000))
    with pytest.raises(gpumeter.InvalidRecord, match="a NUL byte"):
        gpumeter.read_record(tail)
    # A FIFO is refused at once, not waited on (a plain open() would block without a writer).
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(gpumeter.InvalidRecord, match="not a regular file"):
        gpumeter.read_record(fifo)


def test_env_without_a_gpu_says_not_available():
    e = gpumeter.env()
    assert "host" in e and "device_state" in e
    if e["device"] is None:
        assert e["device_unavailable"]


def test_cuda_timing_needs_a_device_or_says_why():
    if gpumeter._gpumeter.has_cuda() and gpumeter.env()["device"] is not None:
        pytest.skip("a GPU is present: covered by the GPU tests")
    with pytest.raises(gpumeter.Error):
        gpumeter.measure(spin, timing="cupti", budget=QUICK)


def test_the_null_test_hook_scales_the_work_and_reports_beside_the_timing(tmp_path):
    ks = []

    def scaled(k):
        ks.append(k)
        spin(2000 * k)

    r = gpumeter.measure(spin, scaled=scaled, timing="host", budget=QUICK)
    assert ks and set(ks) == {4}  # the call itself is `fn`; the hook runs only scaled
    assert r.null_test is not None
    import re
    # The core's one sentence for it (the same as `gpumeter report` prints).
    assert re.fullmatch(r"4x the work took [0-9.e+-]+x the time: "
                        r"(pass|FAIL \(the harness may not be timing the work\))", r.null_test)
    # Whether it passed is a timing verdict, not asserted; that the result carries the record's is.
    assert r.record.to_dict()["results"][0]["null_test"]["pass"] == (not r.null_test_failed)
    outcome = r.null_test_outcome
    assert outcome is not None and outcome.scale == 4 and outcome.text == r.null_test
    assert outcome.failed == r.null_test_failed and outcome.observed_ratio is not None
    assert r.record.null_tests[0].text == r.null_test
    assert gpumeter.read_record(gpumeter.write_record(r, tmp_path)).results[0].null_test == \
        r.null_test
    plain = gpumeter.measure(spin, timing="host", budget=QUICK)
    assert plain.null_test is None and not plain.null_test_failed


def test_a_failed_null_test_is_compared_with_nothing():
    c = gpumeter.compare({"a": spin, "b": spin}, scaled={"b": lambda k: spin()},
                         timing="host", budget=QUICK, verify=False)
    b = c.results["b"]
    assert c.results["a"].null_test is None and b.null_test is not None
    cmp = c.comparisons[0]
    # Whether the host clock made it fail is the machine's business; what follows is not.
    assert (cmp.refusal != "") == b.null_test_failed
    if b.null_test_failed:
        assert "null test failed" in cmp.text
    else:
        assert "null test failed" not in cmp.text


def test_memory_and_clock_state_per_result_never_zero_for_unknown():
    r = gpumeter.measure(spin, timing="host", budget=QUICK)
    assert r.host_peak_rss_bytes is not None and r.host_peak_rss_bytes > 0
    if gpumeter._gpumeter.has_cuda() and gpumeter.env()["device"] is not None:
        # The host clock synchronizes a present GPU, and reads it: memory and clocks are known.
        assert r.gpu_workload_bytes is not None and r.median_sm_clock_mhz is not None
        assert r.min_sm_clock_mhz <= r.median_sm_clock_mhz <= r.max_sm_clock_mhz
        assert set(r.throttle_reason_samples) == {
            "sw_power_cap", "hw_slowdown", "sw_thermal", "hw_thermal", "hw_power_brake"}
        return
    assert r.gpu_workload_bytes is None  # no device: not available, not 0
    assert r.median_sm_clock_mhz is None and r.clock_flagged_samples is None
    assert r.min_sm_clock_mhz is None and r.max_sm_clock_mhz is None
    assert r.clock_below_reference_samples is None and r.throttle_reason_samples is None


def test_numpy_loaded_first_then_a_measurement_with_the_lock():
    """numpy (like torch) loads the system libstdc++ before gpumeter; the module must keep any
    C++ runtime it was linked with to itself. A fresh process: the import order is the test."""
    code = ("import numpy, gpumeter\n"
            "r = gpumeter.measure(lambda: sum(range(100)), timing='host', budget=(1.0, 2.0))\n"
            "print('MEASURED', r.method)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "MEASURED" in p.stdout, (p.returncode, p.stdout, p.stderr[-2000:])


def test_release_cupti_is_safe_anywhere():
    gpumeter.release_cupti()  # before any measurement: nothing held, nothing to give back
    r = gpumeter.measure(spin, timing="host", budget=QUICK)
    gpumeter.release_cupti()
    assert r.n_samples > 0
    assert "release_cupti" in gpumeter.__all__


# --- every bad argument is a ConfigError naming it, before anything runs ----------------------

def _never_called():
    raise AssertionError("called although an argument was bad")


BAD_ARGUMENTS = [
    # (what is called, the argument it must name)
    (lambda: gpumeter.measure(spin, timing="host", budget=(1, float("inf"))), "budget"),
    (lambda: gpumeter.measure(spin, timing="host", budget=(float("nan"), 1)), "budget"),
    (lambda: gpumeter.measure(spin, timing="host", budget=(1, 1e300)), "budget"),
    (lambda: gpumeter.measure(spin, timing="host", budget="25"), "budget"),
    (lambda: gpumeter.measure(spin, timing="host", budget=b"25,100"), "budget"),
    (lambda: gpumeter.measure(spin, timing="host", budget=(1, 2, 3)), "budget"),
    (lambda: gpumeter.measure(spin, timing="host", budget=("1", "2")), "budget"),
    (lambda: gpumeter.measure(spin, timing="host", flops="many"), "flops"),
    (lambda: gpumeter.measure(spin, timing="host", flops=-5), "flops"),
    (lambda: gpumeter.measure(spin, timing="host", flops=float("inf")), "flops"),
    (lambda: gpumeter.measure(spin, timing="host", bytes=-1.0), "bytes"),
    (lambda: gpumeter.measure(spin, timing="host", bytes=True), "bytes"),
    (lambda: gpumeter.measure(spin, timing="host", name=5), "name"),
    (lambda: gpumeter.measure(spin, timing="host", name=""), "name"),
    # Too large for a float, too long for a record: named, never a raw OverflowError or None.
    (lambda: gpumeter.measure(spin, timing="host", flops=10**400), "flops"),
    (lambda: gpumeter.measure(spin, timing="host", bytes=-10**400), "bytes"),
    (lambda: gpumeter.measure(spin, timing="host", name="x" * 10**6), "name"),
    (lambda: gpumeter.compare({"x" * 300: _never_called}, timing="host"), "implementations"),
    (lambda: gpumeter.measure(spin, timing="host", device=-1), "device"),
    (lambda: gpumeter.measure(spin, timing="host", device=1.5), "device"),
    (lambda: gpumeter.measure(spin, timing="host", device="0"), "device"),
    (lambda: gpumeter.measure(spin, timing="host", device=True), "device"),
    (lambda: gpumeter.measure(spin, timing="host", device=2**40), "device"),
    (lambda: gpumeter.measure(spin, timing="sundial"), "timing"),
    (lambda: gpumeter.measure(spin, timing=3), "timing"),
    (lambda: gpumeter.measure(spin, timing="host", lock="yes"), "lock"),
    (lambda: gpumeter.measure(spin, timing="host", count_copies=1), "count_copies"),
    (lambda: gpumeter.measure(spin, timing="host", allow_contended=None), "allow_contended"),
    (lambda: gpumeter.measure(5, timing="host"), "fn"),
    (lambda: gpumeter.measure(spin, timing="host", reset=3), "reset"),
    (lambda: gpumeter.measure(spin, timing="host", scaled="4x"), "scaled"),
    (lambda: gpumeter.compare([_never_called, _never_called], timing="host"), "implementations"),
    (lambda: gpumeter.compare({1: _never_called}, timing="host"), "implementations"),
    (lambda: gpumeter.compare({"a": 5}, timing="host"), "implementations['a']"),
    (lambda: gpumeter.compare({"a": _never_called}, timing="host", reset={"typo": spin}),
     "reset"),
    (lambda: gpumeter.compare({"a": _never_called}, timing="host", scaled={"typo": spin}),
     "scaled"),
    (lambda: gpumeter.compare({"a": _never_called}, timing="host", scaled=spin), "scaled"),
    (lambda: gpumeter.compare({"a": _never_called}, timing="host", inputs=[object()]),
     "inputs[0]"),
    (lambda: gpumeter.compare({"a": _never_called}, timing="host", inputs="xyz"), "inputs"),
    (lambda: gpumeter.compare({"a": _never_called}, timing="host", rtol="tight"), "rtol"),
    (lambda: gpumeter.compare({"a": _never_called}, timing="host", flops=-1), "flops"),
    (lambda: gpumeter.write_record(42), "result"),
    (lambda: gpumeter.write_record({"schema": "gpumeter.record"}, directory=5), "directory"),
    (lambda: gpumeter.read_record(5), "path"),
    (lambda: gpumeter.env(device="0"), "device"),
]


@pytest.mark.parametrize("call,argument", BAD_ARGUMENTS,
                         ids=[f"{i}-{a}" for i, (_, a) in enumerate(BAD_ARGUMENTS)])
def test_every_bad_argument_is_a_config_error_naming_it(call, argument):
    with pytest.raises(gpumeter.ConfigError) as caught:
        call()
    assert caught.value.argument == argument, str(caught.value)
    assert str(caught.value).startswith(argument + ":"), str(caught.value)


def test_a_bad_argument_fails_before_anything_is_measured(tmp_path):
    called = []
    with pytest.raises(gpumeter.ConfigError):
        gpumeter.measure(lambda: called.append(1), timing="host", budget=(1, float("inf")))
    assert called == []  # no negative budget ran, nothing reached write_record


def test_read_record_names_the_file_it_cannot_read(tmp_path):
    not_utf8 = tmp_path / "latin1.json"
    not_utf8.write_bytes(b'{"schema": "gpumeter.record", "run_id": "caf\xe9"}')
    with pytest.raises(gpumeter.InvalidRecord) as caught:
        gpumeter.read_record(not_utf8)  # a path object, as open() takes
    assert caught.value.path == str(not_utf8) and str(not_utf8) in str(caught.value)
    assert caught.value.problem and caught.value.problem in str(caught.value)
    missing = tmp_path / "missing.json"
    with pytest.raises(gpumeter.InvalidRecord) as caught:
        gpumeter.read_record(str(missing))
    assert caught.value.path == str(missing)


# --- errors carry their fields ------------------------------------------------------------------

def test_user_code_error_carries_its_step_and_the_exception():
    def boom():
        raise ValueError("nope")
    with pytest.raises(gpumeter.UserCodeError) as caught:
        gpumeter.measure(boom, timing="host", budget=QUICK)
    e = caught.value
    assert e.step == "implementation 'boom', its untimed call before timing"
    assert e.exception_type == "ValueError" and e.exception_message == "nope"
    assert isinstance(e.__cause__, ValueError)


def test_every_core_error_reaches_python_with_its_fields():
    expected = {
        "RecordsLost": {"dropped": 7, "attempts": 3},
        "OffThreadLaunch": {"n_kernels": 2, "example_kernel": "void axpy<float>(int, float*)",
                            "loss_ruled_out": True},
        "AttributionError": {"iteration": 5, "why": "no kernel was attributed",
                             "loss_ruled_out": False},
        "WrongDevice": {"iteration": 4, "kernel": "copy_kernel", "ran_on": 1, "measured": 0},
        "InvalidRecord": {"path": "run.json", "problem": "truncated"},
        "ConfigError": {"argument": "budget"},
        "UserCodeError": {"step": "iteration 3, the measured call", "exception_type": "KeyError",
                          "exception_message": "'k'"},
        "DeviceBusy": {},
        "OtherProcessOnDevice": {"own_session": True},
        "Error": {},
    }
    for name, fields in expected.items():
        with pytest.raises(getattr(gpumeter, name)) as caught:
            gpumeter._gpumeter.raise_example_error(name)
        e = caught.value
        assert type(e) is getattr(gpumeter, name), (name, type(e))
        assert {k: getattr(e, k) for k in fields} == fields, name
        for value in fields.values():
            if isinstance(value, str):
                assert value in str(e), (name, str(e))


# Every error of the core's catalogue, raised in C++ with known fields (raise_example_error), as
# its Python class: the whole list, so an error added to the catalogue without its way into Python
# fails here.
CATALOGUE_EXAMPLES = {
    "VerificationFailed": {}, "InputsModified": {},
    "OffThreadLaunch": {"n_kernels": 2, "example_kernel": "void axpy<float>(int, float*)",
                        "loss_ruled_out": True},
    "AttributionError": {"iteration": 5, "why": "no kernel was attributed",
                         "loss_ruled_out": False},
    "WrongDevice": {"iteration": 4, "kernel": "copy_kernel", "ran_on": 1, "measured": 0},
    "CollectionStopped": {}, "UnaccountedWork": {}, "AnswerNotPlain": {},
    "OtherProcessOnDevice": {"own_session": True},
    "RecordsLost": {"dropped": 7, "attempts": 3},
    "CuptiUnavailable": {}, "TimestampUnitMismatch": {}, "DeviceBusy": {},
    "MixedTimingMethods": {}, "IncomparableStatistics": {},
    "InvalidRecord": {"path": "run.json", "problem": "truncated"},
    "CollectorRecordsLost": {"records": "range and launch events", "dropped": 12},
    "CorruptTrace": {},
    "LaunchNotFound": {"correlation_id": 41, "kernel": "gemm_kernel", "n_activities": 3},
    "KernelRecordsMissing": {}, "PartsMissing": {},
    "UserCodeError": {"step": "iteration 3, the measured call", "exception_type": "KeyError",
                      "exception_message": "'k'"},
    "DeviceError": {},
    "ConfigError": {"argument": "budget"},
    "MergeRefused": {"record": 1},
    "RangeNotOpen": {"thread": 77, "domain": "app", "process_wide": True, "id": 9},
    "RangeLeftOpen": {"name": "forward", "domain": "", "thread": 78, "process_wide": False,
                      "n_open": 2},
    "NoRangesFound": {}, "ProgramRunsDiffer": {},
    "ProgramProcessError": {"pid": 4242, "cause": "CorruptTrace"},
}
_PYTHON_TYPES = {"int": int, "str": str, "bool": bool, "Optional[int]": (int, type(None)),
                 "Optional[str]": (str, type(None))}


def test_every_error_of_the_catalogue_reaches_python_as_its_class_with_its_fields():
    catalogue = gpumeter._gpumeter.error_catalogue()
    names = [entry.name for entry in catalogue]
    assert len(names) == len(set(names)) and set(names) == set(CATALOGUE_EXAMPLES), names
    for entry in catalogue:
        name = entry.name
        cls = getattr(gpumeter, name)
        assert name in gpumeter.__all__ and cls.__module__ == "gpumeter._errors", name
        assert issubclass(cls, getattr(gpumeter, entry.base)), name
        # Its class and exit code are the catalogue's, as the core reads them.
        assert cls.error_class == entry.error_class == gpumeter._gpumeter.error_class(name)
        assert cls.exit_code == entry.exit_code == gpumeter._gpumeter.exit_code_of_error(name)
        assert cls.__doc__ == entry.doc and len(cls.__doc__) > 40, name
        with pytest.raises(cls) as caught:
            gpumeter._gpumeter.raise_example_error(name)
        e = caught.value
        assert type(e) is cls, (name, type(e))
        fields = CATALOGUE_EXAMPLES[name]
        assert [n for n, _ in entry.fields] == list(fields), name
        assert {k: getattr(e, k) for k in fields} == fields, name
        for field, kind in entry.fields:
            assert isinstance(getattr(e, field), _PYTHON_TYPES[kind]), (name, field, kind)
        assert str(e), name
        back = pickle.loads(pickle.dumps(e))
        assert type(back) is cls and {k: getattr(back, k) for k in fields} == fields, name


def test_the_exit_codes_of_errors_are_the_catalogues():
    core = gpumeter._gpumeter
    assert core.exit_code_of_error("ConfigError") == core.EXIT_USAGE
    assert core.exit_code_of_error("NoRangesFound") == core.EXIT_USAGE
    # Input that cannot be read or merged: a usage error, as `gpumeter compare` says.
    assert core.exit_code_of_error("InvalidRecord") == core.EXIT_USAGE
    assert gpumeter.InvalidRecord.exit_code == gpumeter.MergeRefused.exit_code == core.EXIT_USAGE
    assert core.exit_code_of_error("DeviceBusy") == core.EXIT_BUSY
    assert core.exit_code_of_error("VerificationFailed") == core.EXIT_FAILED
    assert core.exit_code_of_error("Error") == core.EXIT_FAILED
    # The base class's are the catalogue's fallback, read from it, not written again.
    assert (gpumeter.Error.error_class, gpumeter.Error.exit_code) == (
        core.error_class("Error"), core.exit_code_of_error("Error"))
    assert core.error_class("NoSuchError") == gpumeter.Error.error_class
    assert core.exit_code_of_error("std::exception") == core.EXIT_INTERNAL


def test_the_package_exports_every_error_from_the_catalogue_without_naming_one():
    # A new error is written in the catalogue only: __init__.py re-exports _errors.__all__, and
    # _errors.pyi (written from the catalogue) lists the names for type checkers.
    names = [e.name for e in gpumeter._gpumeter.error_catalogue()]
    for name in names + ["Error", "GpumeterWarning", "FallbackWarning"]:
        assert name in gpumeter.__all__ and getattr(gpumeter, name) is getattr(gpumeter._errors, name)
    # Its code (the docstring aside, which may mention an error): imports, names and strings.
    tree = ast.parse(open(gpumeter.__file__, encoding="utf-8").read())
    words = set()
    for node in ast.walk(ast.Module(body=tree.body[1:], type_ignores=[])):
        if isinstance(node, ast.alias):
            words.add(node.name)
        elif isinstance(node, ast.Name):
            words.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            words.add(node.value)
    named = [n for n in names if n in words]
    assert not named, f"__init__.py names {named}: take them from _errors.__all__"
    assert gpumeter.Error.exit_code == gpumeter._gpumeter.exit_code_of_error("Error")


def test_a_name_is_refused_past_the_cores_longest_name_and_not_before():
    # The limit is the core's kMaxNameBytes, exported, not a copy of it.
    from gpumeter import _checks
    limit = gpumeter._gpumeter.MAX_NAME_BYTES
    assert _checks._MAX_NAME_BYTES == limit
    assert _checks._text("name", "n" * limit) == "n" * limit
    with pytest.raises(gpumeter.ConfigError, match=f"at most {limit} bytes"):
        _checks._text("name", "n" * (limit + 1))


def test_the_docs_error_table_has_a_row_for_every_error_of_the_catalogue():
    # docs/methodology.md's table is written by hand: a new error needs its row (MergeRefused and
    # ProgramProcessError were once named nowhere in the docs).
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "docs", "methodology.md"), encoding="utf-8") as f:
        text = f.read()
    table = text.split("| error | raised when | what to do |\n", 1)[1].split("\n\n", 1)[0]
    rows = {line.split("|")[1].strip().strip("`") for line in table.splitlines()[1:]}
    missing = [e.name for e in gpumeter._gpumeter.error_catalogue() if e.name not in rows]
    assert not missing, f"docs/methodology.md's error table has no row for {missing}"


def test_an_error_class_takes_its_fields_by_name_and_only_those():
    assert gpumeter.ConfigError("bad").argument is None
    assert gpumeter.OtherProcessOnDevice("held").own_session is False
    with pytest.raises(TypeError):
        gpumeter.RecordsLost("lost", dropped=1)  # attempts missing
    with pytest.raises(TypeError):
        gpumeter.VerificationFailed("differs", iteration=3)  # no such field


def test_errors_keep_their_fields_through_pickle():
    with pytest.raises(gpumeter.WrongDevice) as caught:
        gpumeter._gpumeter.raise_example_error("WrongDevice")
    back = pickle.loads(pickle.dumps(caught.value))
    assert type(back) is gpumeter.WrongDevice and str(back) == str(caught.value)
    assert (back.iteration, back.kernel, back.ran_on, back.measured) == (4, "copy_kernel", 1, 0)
    plain = pickle.loads(pickle.dumps(gpumeter.VerificationFailed("differs")))
    assert type(plain) is gpumeter.VerificationFailed and str(plain) == "differs"


def test_every_exception_and_warning_class_is_documented():
    for name in gpumeter.__all__:
        obj = getattr(gpumeter, name)
        if isinstance(obj, type) and issubclass(obj, (gpumeter.Error, gpumeter.GpumeterWarning)):
            assert obj.__doc__ and len(obj.__doc__.strip()) > 40, name
    assert issubclass(gpumeter.FallbackWarning, gpumeter.GpumeterWarning)
    assert issubclass(gpumeter.GpumeterWarning, UserWarning)


# --- a fallback says so where the user looks ------------------------------------------------------

def test_the_host_clock_fallback_warns():
    if gpumeter._gpumeter.has_cuda() and gpumeter.env()["device"] is not None:
        pytest.skip("a GPU is present: timing='auto' takes it (tests/python/test_gpu.py)")
    with pytest.warns(gpumeter.FallbackWarning, match="measured with the host clock") as caught:
        r = gpumeter.measure(spin, budget=QUICK)
    assert caught[0].filename == __file__  # pointing at the caller, not into gpumeter
    assert r.method == "host-clock"
    assert any(d.startswith("host backend") for d in r.record.deviations)
    with pytest.warns(gpumeter.FallbackWarning):
        gpumeter.compare({"a": spin, "b": spin}, budget=QUICK, verify=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # asking for the host clock is not a fallback
        gpumeter.measure(spin, timing="host", budget=QUICK)


# --- typed results, their sentences from the core ---------------------------------------------

def test_a_name_holding_a_newline_keeps_each_comparison_with_its_sentence():
    c = gpumeter.compare({"first\nline": spin, "b": spin, "c": spin}, timing="host",
                         budget=QUICK, verify=False)
    assert [(x.baseline, x.candidate) for x in c.comparisons] == [("first\nline", "b"),
                                                                   ("first\nline", "c")]
    for x in c.comparisons:
        # "b is 2.0x slower than first\nline (...)", or under 1.5x "no measured difference at
        # this precision between b and first\nline (...)": each sentence names its own pair.
        assert x.candidate + " " in x.text and x.baseline in x.text and str(x) == x.text
        assert x.ratio is not None and x.ratio.wording in x.text
    assert list(c.results) == ["first\nline", "b", "c"]
    assert str(c).endswith("\n" + c.comparisons[-1].text)


def test_the_record_is_typed_and_json_only_for_files(tmp_path):
    r = gpumeter.measure(spin, timing="host", budget=QUICK, name="spin", bytes=8000)
    rec = r.record
    assert rec.schema_version >= 4 and rec.results[0].case_name == "spin"
    assert rec.device.kind in ("host", "cuda") and rec.host.hostname
    assert rec.config.budget.warmup_ns == 1_000_000 and rec.config.budget.measure_ns == 2_000_000
    assert rec.failures == [] and rec.comparisons == []
    assert r.flops is None and r.bytes == 8000 and r.row.case_name == "spin"
    assert r.gap_ns == pytest.approx(r.latency.median_ns - r.device_busy.median_ns)
    again = gpumeter.Record.from_json(rec.to_json(), "(test)")
    assert again.run_id == rec.run_id
    assert again.results[0].device_busy.median_ns == r.device_busy.median_ns
    assert "| spin " in rec.markdown() and rec.csv().startswith("case,")
    with pytest.raises(gpumeter.InvalidRecord) as caught:
        gpumeter.Record.from_json("{", "pasted")
    assert caught.value.path == "pasted"
    # A dict record is read as strictly as a file before it is written.
    path = gpumeter.write_record(rec.to_dict(), tmp_path / "from-dict")
    assert gpumeter.read_record(path).run_id == rec.run_id


def test_gpu_workload_bytes_is_the_cores_figure():
    r = gpumeter.measure(spin, timing="host", budget=QUICK)
    assert r.gpu_workload_bytes == r.memory.gpu_workload_bytes
    floor, after = r.memory.gpu_context_floor_bytes, r.memory.gpu_after_case_bytes
    if floor is not None and after is not None:
        assert r.gpu_workload_bytes == after - floor


def test_a_failed_call_leaves_nothing_behind():
    """The objects handed to the core hold Python callables where the garbage collector cannot
    see them; a failed measurement must not leave a cycle through them (nanobind names any
    instance alive at exit)."""
    code = ("import gpumeter, numpy as np\n"
            "def boom():\n    raise ValueError('x')\n"
            "def ctrl_c():\n    raise KeyboardInterrupt\n"
            "for fn, err in ((boom, gpumeter.UserCodeError), (ctrl_c, KeyboardInterrupt)):\n"
            "    try:\n        gpumeter.measure(fn, timing='host', budget=(1.0, 2.0))\n"
            "    except err:\n        pass\n"
            "try:\n"
            "    gpumeter.compare({'a': lambda: np.ones(2), 'b': lambda: np.zeros(2)},\n"
            "                     timing='host', budget=(1.0, 2.0))\n"
            "except gpumeter.VerificationFailed:\n    pass\n"
            "print('DONE')\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "DONE" in p.stdout, p.stderr[-2000:]
    assert "leaked" not in p.stderr, p.stderr[-2000:]


def test_a_callable_without_a_name_is_measured_as_fn():
    r = gpumeter.measure(functools.partial(spin, 100), timing="host", budget=QUICK)
    assert r.name == "fn" and r.case_name == "measure"


def test_a_target_precision_is_recorded_with_why_it_stopped():
    # A lone call to a loose target: whatever this loaded machine's spread, the run stops for a
    # stated reason, in whole rounds, and the record reads back with the same outcome.
    r = gpumeter.measure(spin, timing="host", precision=0.5, max_time_s=2.0)
    p = r.precision
    assert isinstance(p, gpumeter.PrecisionOutcome)
    assert p.target == 0.5 and p.max_time_s == 2.0
    assert p.stopped in ("target_reached", "time_cap", "pass_cap")
    assert p.passes >= 2 and p.passes % 2 == 0 and len(r.pass_sizes) == p.passes
    assert p.target_met == (p.reached <= p.target)
    assert (p.stopped == "target_reached") == p.target_met
    assert str(p).startswith("target 50% ")
    back = gpumeter.Record.from_json(r.record.to_json(), "the record just made")
    assert back.results[0].precision.reached == p.reached
    # Without a target nothing is said about one.
    assert gpumeter.measure(spin, timing="host", budget=QUICK).precision is None
    c = gpumeter.compare({"a": spin, "b": spin}, verify=False, timing="host", precision=0.5,
                         max_time_s=2.0)
    assert all(res.precision is not None for res in c.results.values())
    assert "target 50%" in str(c.comparisons[0])


@pytest.mark.parametrize("kwargs, argument", [
    ({"precision": 0.9}, "precision"),
    ({"precision": 0.0001}, "precision"),
    ({"precision": "2"}, "precision"),
    ({"precision": 2}, "precision"),
    ({"precision": "1%%"}, "precision"),
    ({"precision": 0.01, "max_time_s": 0.01}, "max_time_s"),
    ({"precision": 0.01, "max_time_s": "10x"}, "max_time_s"),
    ({"precision": 0.01, "max_time_s": "50ms"}, "max_time_s"),
    ({"precision": 0.01, "budget": QUICK}, "precision"),
    # A cap given alone is refused as the benchmark programs refuse --max-time alone, also at
    # the value that is the core's default.
    ({"max_time_s": 10.0}, "max_time_s"),
    ({"max_time_s": 2.0, "budget": QUICK}, "max_time_s"),
])
def test_a_bad_precision_is_named(kwargs, argument):
    with pytest.raises(gpumeter.ConfigError) as e:
        gpumeter.measure(spin, timing="host", **kwargs)
    assert e.value.argument == argument
    if argument == "max_time_s" and "precision" not in kwargs:
        assert "caps a run to a target precision: give precision too" in str(e.value)
    with pytest.raises(gpumeter.ConfigError) as e:
        gpumeter.compare({"a": spin, "b": spin}, verify=False, timing="host", **kwargs)
    assert e.value.argument == argument


def test_a_precision_means_what_it_means_on_the_command_line():
    """precision=0.05 is 5%, as `--precision 0.05` and `--precision 5%` are; "5%" is read by the
    same reader, and a bare 1 or more is refused with the unit named."""
    assert gpumeter._core._options(None, None, "host", False, False, True, False,
                                   precision="5%").precision == 0.05
    with pytest.raises(gpumeter.ConfigError,
                       match=r"^precision: must be a fraction, written 2% or 0.02, not 2$"):
        gpumeter._gpumeter.Options(precision=2.0)
    with pytest.raises(gpumeter.ConfigError,
                       match=r"^precision: must be a fraction, written 2% or 0.02, not str '2'$"):
        gpumeter.measure(spin, timing="host", precision="2")


def test_keywords_take_the_text_their_options_take():
    """max_time_s= takes "10s" and "500ms" as --max-time does, budget= takes "25,100" as --budget
    does: the same text, read by the core's reader, with its words for a bad one."""
    def options(**kwargs):
        return gpumeter._core._options(None, kwargs.pop("budget", None), "host", False, False,
                                       True, False, **kwargs)
    assert options(precision="5%", max_time_s="10s").max_time_s == 10.0
    assert options(precision="5%", max_time_s="500ms").max_time_s == 0.5
    assert options(precision="5%", max_time_s="2").max_time_s == 2.0
    assert options(budget="25,100").budget_ms == (25.0, 100.0)
    with pytest.raises(gpumeter.ConfigError) as e:
        options(precision="5%", max_time_s="2h")
    assert e.value.argument == "max_time_s"
    assert str(e.value) == ("max_time_s: must be a duration >= 0.1 s (10s, 500ms or bare "
                            "seconds), not str '2h'")
    with pytest.raises(gpumeter.ConfigError) as e:
        options(budget="25,x")
    assert e.value.argument == "budget"
    assert str(e.value) == "budget: " + gpumeter._gpumeter.budget_problem("the text", "25,x")[2]
    assert str(e.value) == "budget: the text's measurement must be a number > 0 ms, got 'x'"


def test_a_cap_not_given_reads_as_none():
    assert gpumeter._gpumeter.Options(precision=0.5).max_time_s is None
    assert gpumeter._gpumeter.Options(precision=0.5, max_time_s=2.0).max_time_s == 2.0


@pytest.mark.parametrize("threshold", [-0.05, 101.0, float("nan"), float("inf")])
def test_the_gates_bindings_refuse_a_threshold_it_cannot_judge_by(tmp_path, threshold):
    """The core's rule of a threshold (a fraction, 0 to 100) holds for every binding that takes
    one, not only for the plugin's option: a negative or NaN threshold would pass or fail every
    row."""
    with pytest.raises(gpumeter.ConfigError, match="fail_on_regression must be a fraction"):
        gpumeter._gpumeter.conclude_missing("a row", threshold, False)
    with pytest.raises(gpumeter.ConfigError, match="fail_on_regression must be a fraction"):
        gpumeter._gpumeter.conclude_unreadable("a record", threshold, False)
    missing = str(tmp_path / "none.json")
    with pytest.raises(gpumeter.ConfigError, match="fail_on_regression must be a fraction"):
        gpumeter._gpumeter.compare_record_files(missing, missing, threshold, False)


def test_the_gates_threshold_is_read_by_the_one_fraction_rule():
    """--gpumeter-fail-on-regression's text through the binding, as the plugin reads it: 10% and
    0.1 are one value, a bare 10 is refused naming both spellings."""
    g = gpumeter._gpumeter
    assert g.read_number("10%", "gate_threshold") == g.read_number("0.1", "gate_threshold")
    assert g.read_number("10%", "gate_threshold")[0] == 0.1
    assert g.number_option_problem("--x", "10", "gate_threshold") == \
        "--x must be a fraction, written 10% or 0.1, got 10"
    assert g.gate_threshold_text(g.read_number("0.1", "gate_threshold")[0]) == "10%"


# --- what a result reads as ------------------------------------------------------------------

def test_summary_and_compare_result_read_as_what_they_are():
    r = gpumeter.measure(spin, timing="host", budget=QUICK)
    text = repr(r.summary)
    assert "object at 0x" not in text
    # A host row's reading is labelled a wall clock, never device time.
    assert text.startswith("Summary(host-clock: wall clock median "), text
    assert "device_busy" not in text
    # Two amounts of work, so two answers: no output check.
    c = gpumeter.compare({"a": spin, "b": lambda: spin(4000)}, timing="host", budget=QUICK,
                         verify=False)
    text = repr(c)
    # (repr quotes a sentence holding an apostrophe, "the passes' ...", with double quotes.) Which
    # verdict is the host clock's on this machine now (a busy one resolves no difference): only the
    # sentence's shape is asserted, never a CPU timing ratio.
    assert text.startswith(("CompareResult(results=['a', 'b'], comparisons=['",
                            "CompareResult(results=['a', 'b'], comparisons=[\"")), text
    assert re.search(r"^\[['\"](b is |no difference )", text[text.index("comparisons=") + 12:]), text
    assert "object at 0x" not in text
    # The sentence's factor is the medians'; estimate is the passes' relative difference, and
    # each is named so beside the sentence.
    cmp = c.comparisons[0]
    assert cmp.median_ratio is not None
    assert "median_ratio=" in repr(cmp)
    if cmp.estimate is not None:
        assert "(relative difference of the passes)" in repr(cmp)
    b, a = c.results["b"].summary.device_busy.median_ns, c.results["a"].summary.device_busy.median_ns
    assert cmp.median_ratio == pytest.approx(b / a, rel=1e-9)


def test_a_host_row_reads_as_a_wall_clock():
    r = gpumeter.measure(spin, timing="host", budget=QUICK)
    assert r.statistic == "synchronized_wall_clock"
    assert r.wall_clock is not None and r.wall_clock.median_ns == r.time.median_ns
    assert r.time.median_ns == r.device_busy.median_ns  # the same numbers, by their name


def test_deviations_are_added_to_a_record_as_a_typed_operation():
    """Issue 37: a record gains deviations through the core (each once, in order, read back as
    strictly as a file), not by a dict edited in Python and parsed again."""
    r = gpumeter.measure(spin, timing="host", budget=QUICK).record
    said = list(r.deviations)
    again = gpumeter._gpumeter.with_deviations(r, ["the lock found x", "the lock found x"] + said)
    assert list(again.deviations) == said + ["the lock found x"]
    assert list(gpumeter._gpumeter.with_deviations(again, said).deviations) == \
        list(again.deviations)
    # Text beyond what a reader accepts is cut by the writer, as any record's, saying so.
    long = gpumeter._gpumeter.with_deviations(r, ["x" * 10_000_000])
    assert len(long.deviations) > len(said)
    assert all(len(d) < 1_000_000 for d in long.deviations)


def test_phases_join_a_record_as_typed_readings():
    """Issue 37: phases() puts its readings in a record as typed values through the core, read
    back as strictly as a file (no dict made in Python and parsed again): a phase taken where it
    cannot be is refused as a file's would be, and a name the core does not know is refused by
    argument."""
    g = gpumeter._gpumeter
    r = gpumeter.measure(spin, timing="host", budget=QUICK, name="m").record
    x = r.results[0]
    params = dict(x.params)
    init = g.PhaseReading(x.case_name, params, x.name, "init", "synchronized_wall_clock",
                          "fresh_cold", [1000, 1200, 1100])
    capture = g.PhaseReading(x.case_name, params, x.name, "graph_capture",
                             "synchronized_wall_clock", "warm_process", [50, 60], 2)
    total = g.MeasuredTotal(x.case_name, params, x.name, 10, "fresh_cached", [9000, 9100])
    again = g.with_phases(r, [init, capture], [total])
    assert [(p.phase, p.setting, list(p.samples_ns), p.recaptures) for p in again.phases] == \
        [("init", "fresh_cold", [1000, 1200, 1100], None),
         ("graph_capture", "warm_process", [50, 60], 2)]
    assert [(t.calls, t.setting, list(t.samples_ns)) for t in again.totals] == \
        [(10, "fresh_cached", [9000, 9100])]
    assert again.results[0].time.median_ns == x.time.median_ns  # the rest as it was
    # init is a fresh process's phase: the reader refuses it in a warm one.
    warm_init = g.PhaseReading(x.case_name, params, x.name, "init", "synchronized_wall_clock",
                               "warm_process", [1000])
    with pytest.raises(gpumeter.InvalidRecord):
        g.with_phases(r, [warm_init], [])
    with pytest.raises(gpumeter.ConfigError, match="phase"):
        g.PhaseReading(x.case_name, params, x.name, "lunch", "synchronized_wall_clock",
                       "warm_process", [1])
    with pytest.raises(gpumeter.ConfigError, match="setting"):
        g.MeasuredTotal(x.case_name, params, x.name, 10, "lukewarm", [1])


def test_runtimes_join_a_record_as_a_typed_operation():
    """Issue 37: each candidate's runtime joins its record through the core, read back strictly:
    a runtime for an implementation the record does not hold is refused as a file's would be."""
    r = gpumeter.measure(spin, timing="host", budget=QUICK, name="m").record
    impl = r.results[0].name
    rt = gpumeter._gpumeter.CandidateRuntime(impl, "torch", "2.9", "cuda:0", "sm_90",
                                             "torch", ["a note"])
    again = gpumeter._gpumeter.with_runtimes(r, [rt])
    assert [(x.implementation, x.runtime, x.version, list(x.notes)) for x in again.runtimes] == \
        [(impl, "torch", "2.9", ["a note"])]
    with pytest.raises(gpumeter.InvalidRecord):
        gpumeter._gpumeter.with_runtimes(r, [gpumeter._gpumeter.CandidateRuntime("nobody", "torch")])


def test_the_timing_names_are_the_sessions_wherever_python_lists_them():
    """Issue 37: the session lists the timing names once (kTimingNames). Python's type, its
    message for a timing that is not a string and evaluate's --timing choices (which its parser
    holds itself: its help is printed without the extension) are checked against that list."""
    import typing
    from gpumeter import _evaluate
    names = tuple(gpumeter._gpumeter.timing_names())
    assert names == ("auto", "cupti", "events", "host", "kernel-records", "device-events",
                     "host-clock")
    assert typing.get_args(gpumeter.Timing) == names
    timing = next(a for a in _evaluate._parser()._actions if a.dest == "timing")
    assert tuple(timing.choices) == names
    with pytest.raises(gpumeter.ConfigError, match="'auto', 'cupti', 'events', 'host', 'kernel-records', 'device-events' or 'host-clock'"):
        gpumeter.measure(spin, timing=3, budget=QUICK)


def test_evaluate_refuses_a_time_cap_without_a_precision_before_any_candidate_runs():
    """`gpumeter evaluate --max-time` alone was refused only inside each candidate's process, as
    a failure of its comparison. Its options are now checked when they are read, by the core's
    rule (run_target_conflict) in evaluate's own names: a usage error, as the benchmark
    programs' --max-time alone is."""
    from gpumeter import _evaluate, _evaluate_args
    parser = _evaluate._parser()
    alone = parser.parse_args(["--max-time", "5", "--program", "true"])
    with pytest.raises(_evaluate.UsageError,
                       match="^--max-time caps a run to a target precision: give --precision too$"):
        _evaluate_args.check_options(alone)
    both = parser.parse_args(["--budget", "5,20", "--precision", "0.01", "--program", "true"])
    with pytest.raises(_evaluate.UsageError, match="^--budget and --precision exclude each other"):
        _evaluate_args.check_options(both)
    capped = parser.parse_args(["--precision", "1%", "--max-time", "500ms", "--program", "true"])
    _evaluate_args.check_options(capped)
    assert _evaluate._options(capped)["max_time_s"] == 0.5
    assert _evaluate._options(capped)["precision"] == 0.01


def test_evaluates_device_and_out_are_the_shared_specs():
    """--device and --out come from the core's shared specs, as the benchmark programs' and the
    main job's: --device's text is read by the device index rule, in the words every program
    uses (argparse's int() said "invalid int value: '1.5'"), and --out defaults to evaluate's
    own folder, the spec leaving it to each front end."""
    from gpumeter import _evaluate, _evaluate_args
    parser = _evaluate._parser()
    given = parser.parse_args(["--device", "3", "--program", "true"])
    _evaluate_args.check_options(given)
    assert given.device == 3 and isinstance(given.device, int)
    assert _evaluate._options(given)["device"] == 3
    default = parser.parse_args(["--program", "true"])
    _evaluate_args.check_options(default)
    assert default.device == 0 and default.out == "gpumeter-evaluate"
    for text, says in (("1.5", "--device must be an integer >= 0, got '1.5'"),
                       ("-1", "--device must be >= 0, got -1")):
        wrong = parser.parse_args([f"--device={text}", "--program", "true"])
        with pytest.raises(_evaluate.UsageError, match=f"^{re.escape(says)}$"):
            _evaluate_args.check_options(wrong)


def test_a_comparisons_finding_is_the_cores_reading_of_its_rule():
    # Comparison.found and .finding are what front ends read (the sweep's reversed order, plot's
    # colours) in place of the interval's ends or the sentence's words: they agree with the
    # sentence the core writes.
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                        "sweep_crossing.json")
    record = gpumeter.read_record(path)
    findings = [c.finding for c in record.comparisons]
    assert "slower" in findings and "faster" in findings
    for c in record.comparisons:
        assert c.found == (c.finding in ("slower", "faster"))
        assert f" {c.finding} than " in str(c)


def test_every_default_tolerance_is_the_cores():
    # rtol/atol defaults are the core's (default_tolerance.hpp), read through the binding: a
    # signature or evaluate option with a value of its own fails here.
    import inspect
    from gpumeter import _evaluate, _gpumeter, _phases, _sweep
    core = {"rtol": _gpumeter.DEFAULT_RTOL, "atol": _gpumeter.DEFAULT_ATOL}
    for fn in (gpumeter.compare, _sweep.sweep, _phases.phases):
        params = inspect.signature(fn).parameters
        assert {k: params[k].default for k in core} == core, fn.__name__
    actions = {a.dest: a for a in _evaluate._parser()._actions}
    assert {k: actions[k].default for k in core} == core
    for k in core:
        assert f"(default {core[k]:g})" in actions[k].help


def test_a_records_software_versions_are_named_not_fields_of_a_vendor():
    """Issue 53: DeviceState held cuda_driver_version, cuda_runtime_version and cupti_version,
    fields a second vendor would need others beside. The versions are named by the backend that
    read them, and the record's keys are their names."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                        "record_v12.json")
    state = gpumeter.read_record(path).device_state
    assert state.software_versions == {"cuda_driver_version": 12040,
                                       "cuda_runtime_version": 12030, "cupti_version": 21}
    assert not hasattr(state, "cupti_version")
