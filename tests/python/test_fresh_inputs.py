"""B11 through Python on the host clock (CI has no GPU): fresh inputs for every call, answers
checked while timed against the reference on the same inputs, poisoned output buffers, and the
ledger a record keeps. Asserts verdicts and counts, never a CPU timing ratio."""
import numpy as np
import pytest

import gpumeter

QUICK = (1.0, 4.0)  # budgets in ms: these tests check what happens, not how fast
N = 256


def make_inputs(seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(N), rng.standard_normal(N))


def reference(a, b):
    return np.tanh(a) * b


def honest(a, b):
    return b * np.tanh(a)


def test_honest_candidate_on_fresh_inputs_is_checked_every_cheap_iteration():
    c = gpumeter.compare({"reference": reference, "honest": honest}, fresh_inputs=make_inputs,
                         timing="host", budget=QUICK)
    ref, cand = c.results["reference"], c.results["honest"]
    # The reference is checked too, against itself run again on the same inputs: what its checks
    # cost is what a check costs with no other implementation's work in it (issue 38).
    assert ref.checked_iterations >= 6
    # Every iteration of every phase got fresh inputs, the reference's too.
    assert cand.ledger.fresh_inputs == cand.ledger.iterations > cand.n_samples
    assert ref.ledger.fresh_inputs == ref.ledger.iterations
    # At least one check a phase (2 passes of 3 phases); checks this cheap run every iteration
    # unless the host stalled, so most of them.
    assert cand.checked_iterations >= 6
    assert cand.ledger.unaccounted_records == 0
    d = c.record.to_dict()["results"][1]["ledger"]
    assert d["checked_iterations"] == cand.checked_iterations
    assert d["fresh_inputs"] == cand.ledger.fresh_inputs


def test_a_memoized_answer_fails_on_fresh_inputs_naming_the_iteration():
    """Memoization by pointer: the answer of the first call, returned whenever an input of the
    same address comes again (freed arrays' addresses are reused)."""
    seen = {}

    def by_pointer(a, b):
        key = a.__array_interface__["data"][0]
        if key not in seen:
            seen[key] = reference(a, b)
        return seen[key]

    with pytest.raises(gpumeter.VerificationFailed, match=r"iteration \d+ of \d+"):
        gpumeter.compare({"reference": reference, "memo": by_pointer},
                         fresh_inputs=make_inputs, timing="host", budget=QUICK)


def test_an_answer_right_only_on_the_untimed_call_fails_while_timed():
    calls = [0]

    def lazy(a, b):
        calls[0] += 1
        return reference(a, b) if calls[0] == 1 else np.zeros_like(a)

    with pytest.raises(gpumeter.VerificationFailed, match="checked while timed"):
        gpumeter.compare({"reference": reference, "lazy": lazy}, fresh_inputs=make_inputs,
                         timing="host", budget=QUICK)


def test_output_buffers_are_poisoned_before_every_call():
    def with_out(seed):
        a, b = make_inputs(seed)
        return (a, b, np.empty(N))

    def ref_into(a, b, out):
        np.multiply(np.tanh(a), b, out=out)

    skipped = [0]

    def writes_once(a, b, out):  # writes its output on the first call only
        skipped[0] += 1
        if skipped[0] == 1:
            ref_into(a, b, out)

    c = gpumeter.compare({"reference": ref_into, "honest": ref_into}, fresh_inputs=with_out,
                         outputs=[2], timing="host", budget=QUICK)
    assert c.results["honest"].checked_iterations >= 6
    with pytest.raises(gpumeter.VerificationFailed):
        gpumeter.compare({"reference": ref_into, "once": writes_once}, fresh_inputs=with_out,
                         outputs=[2], timing="host", budget=QUICK)


def test_fresh_inputs_must_be_a_pure_function_of_the_seed_that_renews_them():
    rng = np.random.default_rng(0)
    with pytest.raises(gpumeter.ConfigError, match="same seed gave different") as e:
        gpumeter.compare({"r": reference, "h": honest},
                         fresh_inputs=lambda seed: (rng.standard_normal(N), np.ones(N)),
                         timing="host", budget=QUICK)
    assert e.value.argument == "fresh_inputs"
    fixed = make_inputs(7)
    with pytest.raises(gpumeter.ConfigError, match="different seeds gave the same"):
        gpumeter.compare({"r": reference, "h": honest}, fresh_inputs=lambda seed: fixed,
                         timing="host", budget=QUICK)
    with pytest.raises(gpumeter.ConfigError, match="tuple or list"):
        gpumeter.compare({"r": reference, "h": honest}, fresh_inputs=lambda seed: seed,
                         timing="host", budget=QUICK)
    with pytest.raises(gpumeter.ConfigError, match="needs fresh_inputs") as e:
        gpumeter.compare({"r": reference}, outputs=[0], timing="host", budget=QUICK)
    assert e.value.argument == "outputs"


def test_measure_takes_fresh_inputs_too():
    seeds = []

    def gen(seed):
        seeds.append(seed)
        return make_inputs(seed)

    r = gpumeter.measure(honest, fresh_inputs=gen, timing="host", budget=QUICK)
    assert r.ledger.fresh_inputs == r.ledger.iterations
    assert len(set(seeds[3:])) == len(seeds[3:])  # after the purity check, every seed is new
    assert r.checked_iterations == 0
