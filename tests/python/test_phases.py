"""gpumeter.phases() and gpumeter.sweep() on the host clock: fresh processes, cold and cached
caches, the record's phases and totals, and the refusals. Timing ratios are not asserted (the
machine may be loaded); sleeps give least durations, which hold on any machine."""

import os
import sys
import time

import pytest

import gpumeter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def busy(n):
    """A call that spins n microseconds on the host."""
    def call():
        end = time.perf_counter() + n * 1e-6
        while time.perf_counter() < end:
            pass
        return [1.0]
    return call


@pytest.fixture
def log(tmp_path, monkeypatch):
    path = tmp_path / "log"
    path.write_text("")
    monkeypatch.setenv("GPUMETER_TEST_PHASE_LOG", str(path))
    return path


def run(candidates, **kw):
    kw.setdefault("processes", 2)
    kw.setdefault("calls", (1, 10))
    return gpumeter.phases(candidates, timing="host", lock=False, **kw)


def test_phases_fresh_processes_cold_then_cached(log):
    r = run({"slow": "phase_candidates:sleeper", "fast": "phase_candidates:fast"},
            name="sleep", params={"build": True})
    # Each candidate: 2 cold processes that found an empty cache, then 2 cached that found it.
    lines = log.read_text().split()
    assert lines.count("cold") == 4 and lines.count("cached") == 4
    got = {(p.row.implementation, p.phase, p.setting): p for p in r.record.phases}
    for c in ("slow", "fast"):
        for phase in ("process_start", "init", "conversion", "first_build", "first_launch"):
            assert len(got[(c, phase, "fresh_cold")].samples_ns) == 2
            assert len(got[(c, phase, "fresh_cached")].samples_ns) == 2
        assert (c, "cold_compile", "fresh_cold") in got
        assert (c, "cached_load", "fresh_cached") in got
        assert (c, "cold_compile", "fresh_cached") not in got
        for phase in ("kernel_call", "end_to_end", "warm_build"):
            assert got[(c, phase, "warm_process")].statistic == "synchronized_wall_clock"
            assert len(got[(c, phase, "warm_process")].samples_ns) >= 10
    # Least durations: the sleeps.
    assert min(got[("slow", "init", "fresh_cold")].samples_ns) >= 40e6
    assert min(got[("slow", "cold_compile", "fresh_cold")].samples_ns) >= 60e6
    assert min(got[("slow", "cached_load", "fresh_cached")].samples_ns) >= 5e6
    assert all(p.row.params == {"build": "True"} for p in r.record.phases)
    # Totals of 1 and 10 calls per setting, one sample per process; 10 calls of >= 1 ms each.
    totals = {(t.row.implementation, t.calls, t.setting): t for t in r.record.totals}
    assert len(totals) == 2 * 2 * 2
    assert all(len(t.samples_ns) == 2 for t in totals.values())
    assert (min(totals[("slow", 10, "fresh_cached")].samples_ns)
            >= 40e6 + 5e6 + 10 * 1e6)
    # The warm calls are the record's results, one per candidate.
    assert sorted(x.row.implementation for x in r.record.results) == ["fast", "slow"]
    # total(N): cached and cold decompositions, each predicting from the medians.
    t = {(x.row.implementation, x.setting): x for x in r.total_n()}
    cached = t[("slow", "fresh_cached")]
    assert [a.calls for a in cached.at][:2] == [1, 10]
    assert all(a.measured_ns is not None for a in cached.at if a.calls in (1, 10))
    assert all(a.predicted_ns is not None for a in cached.at)
    assert ("slow", "fresh_cold") in t
    # The record reads back from its file as it was made.
    text = r.record.to_json()
    back = gpumeter.Record.from_json(text, "(test)")
    assert len(back.phases) == len(r.record.phases)
    assert "total(N)" in str(r)
    # One read-back makes the bytes the three it replaced made (phases, then runtimes, then
    # deviations, each read back in turn): the fields keep their order.
    _gm = gpumeter._gpumeter
    runtimes = [_gm.CandidateRuntime("slow", "torch", "2.5.1", "cuda:0", "sm_90",
                                     "torch.cuda.synchronize()", ["a note"])]
    notes = [r.record.deviations[0], "one more deviation"]
    rec, phases, totals = r.record, list(r.record.phases), list(r.record.totals)
    once = _gm.with_phases(rec, phases, totals, runtimes, notes)
    thrice = _gm.with_deviations(_gm.with_runtimes(_gm.with_phases(rec, phases, totals),
                                                   runtimes), notes)
    assert once.to_json() == thrice.to_json()
    assert list(once.deviations) == list(rec.deviations) + ["one more deviation"]
    assert [x.runtime for x in once.runtimes] == ["torch"]


def test_phases_refuses_bad_arguments():
    with pytest.raises(gpumeter.ConfigError) as e:
        gpumeter.phases({"a": "no_colon"})
    assert e.value.argument == "candidates"
    with pytest.raises(gpumeter.ConfigError) as e:
        gpumeter.phases({"a": "m:f"}, processes=0)
    assert e.value.argument == "processes"
    with pytest.raises(gpumeter.ConfigError) as e:
        gpumeter.phases({"a": "m:f"}, calls=[0])
    assert e.value.argument == "calls"


@pytest.mark.parametrize("timeout_s", [float("inf"), float("nan"), 0.5, 1e8])
def test_phases_timeout_by_the_rule_evaluate_reads_its_timeout_by(timeout_s):
    # One rule of a process's time limit (the core's kProcessLimitSeconds): phases() once took
    # anything > 0, inf and nan included, where `gpumeter evaluate --timeout` refuses them.
    with pytest.raises(gpumeter.ConfigError) as e:
        gpumeter.phases({"a": "m:f"}, timeout_s=timeout_s)
    assert e.value.argument == "timeout_s"
    # In the core's words, as evaluate says them of --timeout.
    assert str(e.value).startswith("timeout_s must be ") and " s" in str(e.value)


def test_phases_and_evaluate_take_one_default_time_limit():
    import inspect
    from gpumeter import _evaluate, _gpumeter
    default = _gpumeter.PROCESS_LIMIT_DEFAULT_SECONDS
    assert inspect.signature(gpumeter.phases).parameters["timeout_s"].default == default
    assert float(_evaluate._parser().get_default("timeout")) == default


def test_a_candidate_that_raises_in_its_fresh_process_is_named(log):
    with pytest.raises(gpumeter.UserCodeError) as e:
        run({"bad": "phase_candidates:raises"}, processes=1)
    assert "the framework is not installed" in str(e.value)


def test_candidates_that_disagree_are_refused_before_warm_timing(log):
    with pytest.raises(gpumeter.VerificationFailed):
        run({"a": "phase_candidates:fast", "b": "phase_candidates:wrong_result"}, processes=1)


def test_an_atol_that_passes_an_all_zero_answer_is_refused_as_compare_refuses_it(log):
    # atol 1e9 against answers of size 2 would pass an all-zero answer: phases() refuses it by
    # the core's rule, in compare()'s words, before any warm timing.
    with pytest.raises(gpumeter.ConfigError) as by_phases:
        run({"a": "phase_candidates:fast", "b": "phase_candidates:zero_result"}, processes=1,
            atol=1e9)
    with pytest.raises(gpumeter.ConfigError) as by_compare:
        gpumeter.compare({"a": lambda: [1.0, 2.0], "b": lambda: [0.0, 0.0]}, timing="host",
                         lock=False, atol=1e9)
    assert by_phases.value.argument == by_compare.value.argument == "atol"
    assert str(by_phases.value) and str(by_phases.value) in str(by_compare.value)
    # A tolerance no answer can make a verdict with is refused before any process starts.
    with pytest.raises(gpumeter.ConfigError) as e:
        gpumeter.phases({"a": "m:f"}, rtol=-1)
    assert e.value.argument == "rtol"


def test_a_warm_call_that_raises_is_a_user_code_error(log):
    # The warm calls run in the core's driver: a candidate's exception there is raised as
    # measure() raises one, its own exception the cause.
    with pytest.raises(gpumeter.UserCodeError) as e:
        run({"a": "phase_candidates:refit_raises"}, processes=1)
    assert isinstance(e.value.__cause__, RuntimeError)
    assert "the structure is gone" in str(e.value.__cause__)


def test_a_hung_fresh_process_is_killed_and_named(log):
    with pytest.raises(gpumeter.Error) as e:
        # The shortest limit the core's rule takes (1 s), and a process that sleeps past it.
        run({"slow": "phase_candidates:sleeper"}, processes=1, timeout_s=1,
            params={"init_ms": 5000})
    assert "did not finish" in str(e.value)


def test_sweep_records_each_size_and_reads_growth():
    r = gpumeter.sweep({"spin": busy}, [100, 300, 1000, 3000], axis="us", timing="host",
                       lock=False, budget=(1, 5))
    params = sorted(int(x.row.params["us"]) for x in r.record.results)
    assert params == [100, 300, 1000, 3000]
    g = r.analysis.growth
    assert len(g) == 1 and g[0].axis == "us" and g[0].row.implementation == "spin"
    assert len(g[0].sizes) == 4
    # print() of a sweep reads as the terminal report does: the growth sentence has no markdown
    # escape ("time \\~ us^1.0"), and its exponent two decimals, as the plot labels the fit.
    text = str(r)
    assert "\\~" not in text and "time grows as us^" in text, text
    exponent = text.split("time grows as us^", 1)[1].split(" ", 1)[0]
    assert len(exponent.split(".")[1]) == 2, exponent


def test_sweep_refuses_bad_arguments():
    with pytest.raises(gpumeter.ConfigError) as e:
        gpumeter.sweep({"a": lambda n: (lambda: None)}, [1, 1])
    assert e.value.argument == "sizes"
    with pytest.raises(gpumeter.ConfigError) as e:
        gpumeter.sweep({"a": lambda n: (lambda: None)}, [1, 2], axis="order")
    assert e.value.argument == "axis"


def test_sweep_measures_close_sizes_again_in_reversed_order():
    # The same work twice: under the 1.5x rule of the host clock, never apart.
    r = gpumeter.sweep({"a": busy, "b": busy}, [100, 300, 1000], axis="us", timing="host",
                       lock=False, budget=(1, 5))
    assert r.reversed_sizes, "identical implementations should land close"
    rows = [(x.row.implementation, x.row.params.get("order"), x.row.params["us"])
            for x in r.record.results]
    for size in r.reversed_sizes:
        assert ("a", "reversed", str(size)) in rows and ("b", "reversed", str(size)) in rows
    # The growth fit leaves the re-measurement out: one growth per implementation, 3 sizes each.
    growth = r.analysis.growth
    assert sorted(g.row.implementation for g in growth) == ["a", "b"]
    assert all(len(g.sizes) == 3 for g in growth)


def test_process_exit_is_a_phase_and_total_n_reaches_it(log):
    # The exit (from the last synchronize to the exit this parent saw) is each fresh process's
    # phase; total(N) predicts it and the measured total reaches it, the synchronize beside it.
    r = run({"exits": "phase_candidates:slow_exit", "fast": "phase_candidates:fast"},
            name="exit", params={})
    got = {(p.row.implementation, p.phase, p.setting): p for p in r.record.phases}
    for setting in ("fresh_cold", "fresh_cached"):
        slow = got[("exits", "process_exit", setting)]
        assert slow.statistic == "synchronized_wall_clock" and len(slow.samples_ns) == 2
        assert min(slow.samples_ns) >= 150e6  # its atexit sleep
        assert max(got[("fast", "process_exit", setting)].samples_ns) < 150e6
    t = {(x.row.implementation, x.setting): x for x in r.total_n()}
    cached = t[("exits", "fresh_cached")]
    exit_term = [term for term in cached.fixed if term.phase == "process_exit"]
    assert len(exit_term) == 1 and exit_term[0].median_ns >= 150e6
    at10 = [a for a in cached.at if a.calls == 10][0]
    assert at10.measured_to_exit_ns == at10.measured_ns + exit_term[0].median_ns
    assert at10.measured_over_predicted is not None

