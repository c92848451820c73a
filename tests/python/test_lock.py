"""The device lock (P1) from Python on the host clock: measure() and compare() hold it for the
call (its file in a temporary folder through GPU_LOCK), wait for another holder, and record
what they could not check or that they did not lock. Asserts order and outcome, never speed."""
import os
import subprocess
import sys
import time

import pytest

import gpumeter

QUICK = (1.0, 2.0)


@pytest.fixture
def lock_file(tmp_path, monkeypatch):
    path = tmp_path / "gpu.lock"
    monkeypatch.setenv("GPU_LOCK", str(path))
    # No NVML: the idle check cannot be made, whatever this machine has.
    monkeypatch.setenv("GPUMETER_NVML_LIBRARY", str(tmp_path / "no-libnvidia-ml.so.1"))
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")  # the same answers on a GPU machine
    monkeypatch.delenv("GPUMETER_LOCK_HELD", raising=False)
    monkeypatch.delenv("GPUMETER_LOCK_NOTE", raising=False)
    return path


def test_measure_holds_the_lock_and_records_the_check_it_could_not_make(lock_file):
    r = gpumeter.measure(lambda: sum(range(100)), timing="host", budget=QUICK)
    deviations = r.record.deviations
    assert any(d.startswith("device lock taken without the idle check: NVML not loaded")
               for d in deviations), deviations
    assert lock_file.exists() and lock_file.read_text() == ""  # released, holder cleared


def test_lock_false_is_recorded(lock_file):
    c = gpumeter.compare({"a": lambda: None, "b": lambda: None}, timing="host", budget=QUICK,
                         verify=False, lock=False)
    assert any(d.startswith("device lock not taken (lock=False)")
               for d in c.record.deviations), c.record.deviations
    assert not lock_file.exists()


def test_a_held_lock_is_waited_for(lock_file):
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl, os, sys, time\n"
         f"f = open({str(lock_file)!r}, 'a+')\n"
         "fcntl.flock(f, fcntl.LOCK_EX)\n"
         "f.truncate(0); f.write(f'{os.getpid()}\\nholder\\n'); f.flush()\n"
         "print('held', flush=True)\n"
         "time.sleep(1.0)\n"
         "print(time.monotonic(), flush=True)\n"  # then exits, which releases the lock
         ],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        gpumeter.measure(lambda: None, timing="host", budget=QUICK)
        measured_by = time.monotonic()  # one clock for every process on Linux
        released_at = float(holder.stdout.readline())
        assert measured_by >= released_at  # it waited for the holder, however loaded the machine
    finally:
        holder.wait(timeout=30)


def test_device_busy_is_a_gpumeter_error():
    assert issubclass(gpumeter.DeviceBusy, gpumeter.Error)
    assert "DeviceBusy" in gpumeter.__all__
