"""gpumeter.phases() on a GPU, against known answers: a kernel that spins 200 us on the device's
own timer, an init that sleeps 50 ms, a compile through NVRTC. The warm call's device time is
the spin's within 2%; every wall-clock phase holds at least what it is known to hold; the total
of N calls holds N spins."""

import os
import sys

import pytest

import gpumeter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def test_known_answer_phases_of_a_200us_spin(gpu):
    pytest.importorskip("cupy")
    import gpu_phase_candidates as c

    r = gpumeter.phases({"spin": "gpu_phase_candidates:spinner"}, name="spin", processes=2,
                        calls=(1, 10))
    busy = r.record.results[0].device_busy.median_ns
    assert abs(busy - c.SPIN_NS) <= 0.02 * c.SPIN_NS, busy
    got = {(p.phase, p.setting): p for p in r.record.phases}
    assert min(got[("init", "fresh_cold")].samples_ns) >= c.INIT_S * 1e9
    assert min(got[("first_launch", "fresh_cached")].samples_ns) >= c.SPIN_NS
    assert min(got[("end_to_end", "warm_process")].samples_ns) >= c.SPIN_NS
    cold = got[("cold_compile", "fresh_cold")].spread.median_ns
    cached = got[("cached_load", "fresh_cached")].spread.median_ns
    totals = {(t.calls, t.setting): t for t in r.record.totals}
    assert min(totals[(10, "fresh_cached")].samples_ns) >= 10 * c.SPIN_NS
    print(f"KNOWN-ANSWER phases of a 200 us spin: warm call device_busy {busy:.0f} ns; public "
          f"call {got[('end_to_end', 'warm_process')].spread.median_ns:.0f} ns wall; NVRTC cold "
          f"compile {cold / 1e6:.1f} ms, cached load {cached / 1e6:.2f} ms; total of 10 calls "
          f"{totals[(10, 'fresh_cached')].median_ns / 1e6:.0f} ms from the spawn")
