"""gpumeter.sweep() split across the tasks of an array job (B10) on the host clock: shard="K/N"
and the scheduler's variables dealt by the core as a benchmark program's --shard deals cases,
each shard's record with its shard section, their merge the whole sweep in its order, an empty
shard measuring nothing, and each row's board."""
import time

import pytest

import gpumeter
from gpumeter import _gpumeter

SIZES = [10, 20, 30, 40, 50]
SCHEDULER = ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN",
             "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP", "JOB_COMPLETION_INDEX",
             "JOB_COMPLETIONS")


@pytest.fixture(autouse=True)
def no_scheduler(monkeypatch):
    """No scheduler of the machine the tests run on deals these sweeps."""
    for name in SCHEDULER:
        monkeypatch.delenv(name, raising=False)


def busy(n):
    """A call that spins n microseconds on the host."""
    def call():
        end = time.perf_counter() + n * 1e-6
        while time.perf_counter() < end:
            pass
        return [1.0]
    return call


def run(shard=None, sizes=SIZES, **kwargs):
    return gpumeter.sweep({"a": busy, "b": busy}, sizes, axis="us", timing="host", lock=False,
                          budget=(0.5, 1), reverse_when_close=False, shard=shard, **kwargs)


def rows(record):
    return [(r.row.case_name, r.row.implementation, dict(r.row.params)) for r in record.results]


def test_the_shards_of_a_sweep_merge_into_the_whole_in_its_order(tmp_path):
    whole = run()
    parts = [run(shard=f"{k}/2") for k in (1, 0)]
    for k, part in zip((1, 0), parts):
        assert part.shard is not None and part.shard.shard.index == k
        assert part.record.shard is not None and part.record.shard.shard.count == 2
        assert part.record.shard.own_cases == (3 if k == 0 else 2)
        # Dealt round robin in the sizes' order: shard 0 holds 10, 30, 50.
        want = SIZES[k::2]
        assert sorted({int(r.row.params["us"]) for r in part.record.results}) == want
        assert "one shard of a sweep: shard %d of 2 (--shard %d/2)" % (k, k) in str(part)
    files = [gpumeter.write_record(p, tmp_path / f"s{k}") for k, p in zip((1, 0), parts)]
    out = str(tmp_path / "merged.json")
    rc, _, err = _gpumeter.cli(["merge", *files, "-o", out])
    assert rc == 0, err
    merged = gpumeter.read_record(out)
    assert merged.shard is None
    assert rows(merged) == rows(whole.record)


def test_reversed_rows_of_a_shard_stay_their_size_s_case():
    # The same work twice lands close and is measured again in reversed order: those rows carry
    # order=reversed, and the record still reads as the shard's (its rows are its sizes' cases).
    r = gpumeter.sweep({"a": busy, "b": busy}, [100, 300, 1000], axis="us", timing="host",
                       lock=False, budget=(1, 5), shard="0/2")
    assert r.record.shard.shard.index == 0
    sizes = {r.row.params["us"] for r in r.record.results}
    assert sizes == {"100", "1000"}
    reread = gpumeter.Record.from_json(r.record.to_json(), "(test)")
    assert reread.shard is not None


def test_the_scheduler_s_index_deals_the_sweep(monkeypatch):
    monkeypatch.setenv("SLURM_ARRAY_TASK_ID", "1")
    monkeypatch.setenv("SLURM_ARRAY_TASK_COUNT", "2")
    r = run()
    assert r.shard.shard.source == "slurm"
    assert sorted({int(x.row.params["us"]) for x in r.record.results}) == [20, 40]
    # shard="all" measures every size, whatever the scheduler says.
    everything = run(shard="all")
    assert everything.shard is None and everything.record.shard is None
    assert len({x.row.params["us"] for x in everything.record.results}) == len(SIZES)
    # The option and the scheduler disagreeing: refused, both named.
    with pytest.raises(gpumeter.ConfigError) as e:
        run(shard="0/2")
    assert "SLURM_ARRAY_TASK_ID=1" in str(e.value)


def test_a_shard_dealt_no_size_measures_nothing(tmp_path):
    r = run(shard="3/4", sizes=[10, 20])
    assert r.record is None and r.shard.own_cases == 0
    assert "nothing was measured" in str(r)
    with pytest.raises(gpumeter.ConfigError):
        gpumeter.write_record(r, tmp_path)
    with pytest.raises(gpumeter.ConfigError):
        r.analysis  # noqa: B018


def test_bad_shards_are_refused():
    with pytest.raises(gpumeter.ConfigError) as e:
        run(shard="")  # an unset variable in a job script
    assert "is empty" in str(e.value)
    for bad in ("2/2", "1", "x"):
        with pytest.raises(gpumeter.ConfigError):
            run(shard=bad)
    with pytest.raises(gpumeter.ConfigError) as e:
        run(shard=1)  # type: ignore[arg-type]
    assert e.value.argument == "shard"


def test_every_row_names_its_board():
    r = run(shard="all", sizes=[10])
    for row in r.record.results:
        assert row.board.name == r.record.device.name
        assert row.board.uuid == r.record.device.uuid
        # The name, and the uuid where the device has one (a GPU's; the host CPU has none).
        uuid = r.record.device.uuid
        assert row.board.label == r.record.device.name + (f" {uuid}" if uuid else "")


def test_stand_in_devices_are_refused_outside_the_host_clock(monkeypatch):
    monkeypatch.setenv("GPUMETER_STAND_IN_DEVICES", "2")
    with pytest.raises(gpumeter.ConfigError) as e:
        gpumeter.measure(busy(1), timing="cupti" if _gpumeter.has_cuda() else "auto",
                         lock=False, budget=(0.5, 1))
    assert "GPUMETER_STAND_IN_DEVICES" in str(e.value)
