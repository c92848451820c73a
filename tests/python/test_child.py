"""The package's one runner of its own processes (gpumeter/_child.py), on the CPU: the report
line, the timeout, the session's kill, the output kept or logged, and a start that fails."""

import os
import subprocess
import sys
import time

import pytest

from gpumeter import _child

# A child that reports its order back on the descriptor it was given (argv[-2]).
REPORTER = ("import json, os, sys\n"
            "order = json.loads(sys.argv[-1])\n"
            "print('hello from the child')\n"
            "os.write(int(sys.argv[-2]), (json.dumps({'ok': True, 'got': order}) + '\\n').encode())\n")


def _python(code):
    return [sys.executable, "-c", code]


def test_a_report_line_comes_back_with_the_exit_and_the_output():
    ended = _child.run(_python(REPORTER), env=os.environ, timeout_s=60, order={"n": 3})
    assert ended.rc == 0
    assert ended.report == {"ok": True, "got": {"n": 3}}
    assert "hello from the child" in ended.output
    assert ended.seconds > 0 and ended.exited_ns > 0


def test_output_goes_to_the_log_when_one_is_given(tmp_path):
    log = tmp_path / "output.log"
    ended = _child.run(_python(REPORTER), env=os.environ, timeout_s=60, log=str(log), order={})
    assert ended.rc == 0 and ended.output == ""
    assert "hello from the child" in log.read_text()


def test_no_report_or_one_that_is_not_an_object_is_none():
    silent = _child.run(_python("pass"), env=os.environ, timeout_s=60, order={})
    assert silent.rc == 0 and silent.report is None
    listed = _child.run(_python("import os, sys; os.write(int(sys.argv[-2]), b'[1, 2]\\n')"),
                        env=os.environ, timeout_s=60, order={})
    assert listed.rc == 0 and listed.report is None
    crashed = _child.run(_python("import os; os.abort()"), env=os.environ, timeout_s=60, order={})
    assert crashed.rc is not None and crashed.rc < 0 and crashed.report is None


def test_the_timeout_kills_and_says_so():
    start = time.monotonic()
    ended = _child.run(_python("import time; time.sleep(60)"), env=os.environ, timeout_s=0.5)
    assert ended.rc is None
    assert time.monotonic() - start < 30


def test_a_session_of_its_own_takes_what_it_started_with_it(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    code = ("import subprocess, sys\n"
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
            f"open({str(pid_file)!r}, 'w').write(str(p.pid))\n")
    ended = _child.run(_python(code), env=os.environ, timeout_s=60, new_session=True)
    assert ended.rc == 0
    grandchild = int(pid_file.read_text())
    # Killed with the session: gone, or a zombie waiting for init to reap it.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{grandchild}/stat") as f:
                if f.read().split(")")[-1].split()[0] == "Z":
                    break
        except FileNotFoundError:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the grandchild {grandchild} outlived its session")


def test_a_process_that_cannot_start_raises_and_leaks_no_descriptor(tmp_path):
    before = set(os.listdir("/proc/self/fd"))
    with pytest.raises(OSError):
        _child.run([str(tmp_path / "no-such-program")], env=os.environ, timeout_s=5,
                   log=str(tmp_path / "log"), order={})
    assert set(os.listdir("/proc/self/fd")) == before


# --- issue 50: nothing a run started outlives it, and its memory is bounded -------------------

# A parent made the reaper of its orphans (as `gpumeter evaluate` is), in a process of its own so
# this one stays as it is: it runs a child whose own child leaves the session, with a process of
# its own kept, and prints what was left alive.
REAPER = """
import os, subprocess, sys, time
from gpumeter import _child
assert _child.become_subreaper() is None
kept = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
pid_file = sys.argv[1]
code = ("import os, subprocess, sys\\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import os, sys, time; os.setsid(); "
        "open(sys.argv[1], \\"w\\").write(str(os.getpid())); time.sleep(60)', sys.argv[1]])\\n"
        "while not os.path.exists(sys.argv[1]): pass\\n")
ended = _child.run([sys.executable, "-c", code, pid_file], env=os.environ, timeout_s=60,
                   new_session=True, reap_orphans=True, keep={kept.pid})
left = int(open(pid_file).read())
alive = lambda pid: os.path.exists(f"/proc/{pid}") and open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
print(ended.rc, alive(left), alive(kept.pid))
kept.kill()
kept.wait()
"""


def test_reaping_kills_what_left_the_session_and_keeps_what_it_is_told(tmp_path):
    pid_file = tmp_path / "left.pid"
    out = subprocess.run([sys.executable, "-c", REAPER, str(pid_file)], capture_output=True,
                         text=True, timeout=120, env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                             p for p in sys.path if p)))
    assert out.returncode == 0, out.stderr
    # The run exited 0; what its child started in a session of its own is dead; the kept lives.
    assert out.stdout.split() == ["0", "False", "True"], out.stdout


def _killed_over_100_mib(code):
    """Runs ``code`` in a session of its own under a 100 MiB limit; it must be killed over it,
    well before its 60 s sleep ends. Returns how it ended."""
    start = time.monotonic()
    ended = _child.run(_python(code), env=os.environ, timeout_s=60, new_session=True,
                       memory_limit=100 << 20)
    assert ended.over_memory is not None and ended.over_memory > 100 << 20, ended
    assert ended.rc is not None and ended.rc < 0, ended
    assert time.monotonic() - start < 30
    return ended


def test_a_run_over_its_memory_limit_is_killed_whole():
    code = ("import subprocess, sys, time\n"
            "subprocess.Popen([sys.executable, '-c', 'b = bytearray(200 << 20); "
            "import time; time.sleep(60)'])\n"
            "time.sleep(60)\n")
    # The memory is its child's: summed over the run's processes, over the limit, all killed.
    _killed_over_100_mib(code)


@pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="no memfd_create on this platform")
def test_memory_held_in_an_unmapped_memfd_counts_toward_the_limit():
    # 200 MiB written into a memfd and never mapped: in no process's VmRSS, still the run's.
    code = ("import os, time\n"
            "fd = os.memfd_create('hoard')\n"
            "for _ in range(200): os.write(fd, b'x' * (1 << 20))\n"
            "time.sleep(60)\n")
    assert _killed_over_100_mib(code).over_memory > 150 << 20


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="no /dev/shm on this machine")
def test_memory_left_in_dev_shm_by_a_process_that_ended_counts_toward_the_limit(tmp_path):
    # A helper writes 200 MiB into /dev/shm, closes it and exits: no process of the run holds it,
    # and the run (still sleeping) is over its limit all the same.
    name = f"/dev/shm/gpumeter-test-{os.getpid()}"
    # Written a MiB at a time: the writer's own resident memory stays small.
    writer = (f"f = open({name!r}, 'wb')\n"
              "for _ in range(200): f.write(b'x' * (1 << 20))\n")
    code = ("import subprocess, sys, time\n"
            f"subprocess.run([sys.executable, '-c', {writer!r}])\n"
            "time.sleep(60)\n")
    try:
        _killed_over_100_mib(code)
    finally:
        if os.path.exists(name):
            os.unlink(name)


def test_a_run_under_its_memory_limit_ends_as_it_would():
    ended = _child.run(_python("print('small')"), env=os.environ, timeout_s=60,
                       memory_limit=1 << 30, order={})
    assert ended.rc == 0 and ended.over_memory is None and "small" in ended.output
