"""The package's one runner of its own processes (gpumeter/_child.py), on the CPU: the report
line, the timeout, the session's kill, the output kept or logged, and a start that fails."""

import os
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
