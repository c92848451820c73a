"""The host-clock rule as Python reads it: the core's one rule through the binding, never a copy.

A claim only where the passes' interval excludes no difference, the medians differ by 1.5x or
more and the means agree; otherwise "no difference this machine can resolve now" with the spread.
"""
import pytest

import gpumeter

rule = gpumeter._gpumeter.compare_host_passes


def passes(levels, n=20):
    return [[level * (1 + 0.002 * (i % 5)) for i in range(n)] for level in levels]


def test_a_spread_wider_than_the_difference_claims_nothing():
    v = rule(passes([100, 400, 100, 400, 100, 400]), passes([160, 640, 160, 640, 160, 640]),
             load_average=6.9)
    assert not v.claimed
    assert v.label.startswith("no difference this machine can resolve now (")
    assert "passes spread 4.0x" in v.label and "load average 6.9" in v.label
    assert "slower" not in v.wording and "faster" not in v.wording
    assert v.spread == pytest.approx(3.0)
    assert v.by_passes


def test_three_times_slower_is_claimed():
    v = rule(passes([100, 130, 110, 125, 95, 120]), passes([300, 330, 290, 360, 310, 280]))
    assert v.claimed
    assert v.wording.endswith("slower")


def test_the_means_beside_decide_against_the_medians():
    # Medians 3.3x apart one way, means the other: the "fast 27.7 us, reference 21.9 us".
    fast = [6600.0] * 8 + [100000.0, 120000.0]
    v = rule([[21900.0] * 3, [21900.0] * 2], [fast, fast])
    assert not v.claimed
    assert "faster" not in v.wording
    assert "the means per call point the other way" in v.label


def test_passes_no_number_bounds_are_unresolved_not_an_error():
    v = rule(passes([1, 1e15, 1]), passes([1e15, 1, 1e15]), tick_ns=1000)
    assert not v.claimed
    assert "the passes bound no interval" in v.label


def test_a_side_with_nothing_is_a_value_error():
    with pytest.raises(ValueError):
        rule([], [[1.0]])
    with pytest.raises(ValueError):
        rule([[0.0]], [[1.0]])


QUICK = (1.0, 2.0)  # budgets in ms: what is flagged, not how fast


def spin(n=2000):
    x = 0.0
    for i in range(n):
        x += i * 0.5
    return x


def test_a_call_that_runs_nothing_measures_the_calls_overhead():
    # The README's "a call that ran nothing": on the host clock no kernel says so, and what it
    # reads is the path into the call (about 0.3 us); the row is flagged, not passed as work.
    r = gpumeter.measure(lambda: None, timing="host", budget=QUICK)
    assert r.measures_call_overhead
    assert "measures the call's overhead, not work (median " in str(r)
    # Two such calls are never said to differ, whatever their medians (the reason is named where
    # they read 1.5x apart or more: tests/unit/test_host_clock.cpp).
    c = gpumeter.compare({"none": lambda: None, "args": lambda *a: None}, timing="host",
                         budget=QUICK)
    (comparison,) = c.comparisons
    assert comparison.ratio is not None and not comparison.ratio.claimed
    assert all(x.measures_call_overhead for x in c.results.values())
    assert all("measures the call's overhead, not work" in str(x) for x in c.results.values())


def test_work_well_above_the_floor_is_not_flagged():
    # 2000 interpreter steps read tens of microseconds, far above the 1 us floor.
    r = gpumeter.measure(spin, timing="host", budget=QUICK)
    assert not r.measures_call_overhead
    assert "overhead" not in str(r)
