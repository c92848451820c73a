"""The Python API on the host clock (CI has no GPU): measure, compare, every error by its
cause, records that `gpumeter report` reads back. Asserts the plumbing, never a CPU timing
ratio (CI machines are shared and loaded)."""
import json
import os
import subprocess
import sys
import time

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
    assert r.method == "host-wall" and r.statistic == "synchronized_wall_clock"
    assert r.n_samples == len(r.samples) == sum(r.pass_sizes) >= 10
    assert len(r.pass_sizes) == 2  # a lone implementation runs A A
    assert 0 < r.device_busy.p10_ns <= r.device_busy.median_ns <= r.device_busy.p90_ns
    assert r.max_n_kernels is None  # a host clock counts no kernels
    assert r.tflops is not None and r.tbs is not None
    # No device, no ceilings: no percent of peak, and no mark of one.
    assert r.pct_of_peak_bandwidth is None and r.above_bandwidth_ceiling is None
    assert r.record["schema"] == "gpumeter.record" and r.record["results"][0]["summary"]
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
    assert c.record["comparisons"][0]["rule"] == "resolution_1.5x"


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
    with pytest.raises(gpumeter.ConfigError, match="verify must be True, False, None or a"):
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
                 "UserCodeError"]:
        assert issubclass(getattr(gpumeter, name), gpumeter.Error), name
    assert issubclass(gpumeter.Error, Exception)
    with pytest.raises(gpumeter.ConfigError, match="timing must be"):
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
    assert os.path.basename(path) == f"gpumeter-{r.record['run_id']}.json"
    back = gpumeter.read_record(path)
    assert back["results"][0]["samples"] == r.record["results"][0]["samples"]
    # The command, from the module (the same code as the gpumeter executable).
    out = subprocess.run([sys.executable, "-m", "gpumeter", "report", path], capture_output=True,
                         text=True, check=True).stdout
    assert "| spin " in out and "host-wall" in out
    # Records are never overwritten.
    with pytest.raises(gpumeter.Error, match="already exists"):
        gpumeter.write_record(r, tmp_path)


def test_an_altered_record_is_refused(tmp_path):
    r = gpumeter.measure(spin, timing="host", budget=QUICK)
    record = json.loads(json.dumps(r.record))
    record["results"][0]["summary"]["device_busy_ms"]["median"] *= 0.5
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record))
    with pytest.raises(gpumeter.InvalidRecord, match="does not describe the raw samples"):
        gpumeter.read_record(str(bad))
    p = subprocess.run([sys.executable, "-m", "gpumeter", "report", str(bad)], capture_output=True,
                       text=True)
    assert p.returncode == 2 and p.stdout == "" and "bad.json" in p.stderr


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


def test_the_null_test_hook_scales_the_work_and_reports_beside_the_timing():
    ks = []

    def scaled(k):
        ks.append(k)
        spin(2000 * k)

    r = gpumeter.measure(spin, scaled=scaled, timing="host", budget=QUICK)
    assert ks and set(ks) == {4}  # the call itself is `fn`; the hook runs only scaled
    assert r.null_test is not None
    import re
    assert re.fullmatch(r"4x the work took [0-9.e+-]+x the time: (pass|FAIL)", r.null_test)
    # Whether it passed is a timing verdict, not asserted; that the result carries the record's is.
    assert r.record["results"][0]["null_test"]["pass"] == (not r.null_test_failed)
    assert r.record["results"][0]["null_test"]["scale"] == 4
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
