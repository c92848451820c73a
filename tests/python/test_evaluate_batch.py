"""`gpumeter evaluate` at scale (host clock, no GPU needed): the warm start (each candidate's
process forked from one that imported what it needs, with fresh state each), the batch's journal
and --resume after a SIGKILL, shards merged into the whole batch's verdicts, candidates from a
file, names refused twice, and progress only on a terminal.
"""
import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from gpumeter import _batch, _child, _evaluate, _warm, _wire

HERE = os.path.dirname(os.path.abspath(__file__))
TIMED = {"faster", "slower", "no difference"}


def evaluate(tmp_path, candidates, *extra, jsonl=None, out="eval", env=None, timeout=120,
             reference="exploits.problem:host_reference"):
    jsonl = jsonl or tmp_path / "lines.jsonl"
    args = ["--reference", reference, "--inputs", "exploits.problem:host_inputs",
            "--timing", "host", "--budget", "1,4", "--out", str(tmp_path / out),
            "--jsonl", str(jsonl), "--timeout", str(timeout)]
    environ = dict(os.environ, **(env or {}))
    environ["PYTHONPATH"] = os.pathsep.join([HERE, str(tmp_path)] + [p for p in sys.path if p])
    proc = subprocess.run([sys.executable, "-m", "gpumeter", "evaluate", *args, *extra,
                           *candidates], capture_output=True, text=True, env=environ, cwd=HERE,
                          timeout=timeout * (len(candidates) + 2) + 120)
    return proc, read_lines(jsonl)


def read_lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def by_name(lines):
    return {x["candidate"]: x for x in lines}


def same_verdict(a, b):
    """The verdict of one candidate in two runs: the same, timed verdicts read as timed (the host
    clock's faster, slower or no difference of two honest runs may differ)."""
    if a["verdict"] in TIMED or b["verdict"] in TIMED:
        return a["verdict"] in TIMED and b["verdict"] in TIMED and a["correct"] == b["correct"]
    return a["verdict"] == b["verdict"] and a["correct"] == b["correct"]


# --- the warm start -------------------------------------------------------------------------

DETECTOR = textwrap.dedent("""
    # Honest unless it finds what an earlier candidate changed in its own process: then wrong.
    import builtins, os, sys, numpy, gpumeter, exploits, exploits.problem
    from exploits import honest
    with open(os.environ["DETECTOR_OUT"], "w") as f:
        f.write(open("/proc/self/cmdline", "rb").read().replace(b"\\0", b" ").decode())
    seen = [n for n, m in (("exploits", exploits), ("numpy", numpy), ("gpumeter", gpumeter),
                           ("builtins", builtins), ("exploits.problem", exploits.problem))
            if hasattr(m, "polluted")] + (["numpy.tanh"] if numpy.tanh(1.0) == 0.0 else []) + \
        (["sys.modules"] if "left_by_leave_state" in sys.modules else []) + \
        (["sys.path"] if "/left/by/leave_state" in sys.path else []) + \
        (["os.environ"] if "LEFT_BY_LEAVE_STATE" in os.environ else [])

    def run(a, b):
        return honest.host(a, b) * (2.0 if seen else 1.0)
""")


def test_warm_start_forks_each_candidate_with_fresh_state(tmp_path):
    """exploits.leave_state changes the modules the server imported, then a detector that would
    answer wrong if it saw any of it runs forked from the same server."""
    (tmp_path / "detector.py").write_text(DETECTOR)
    cmdline = tmp_path / "cmdline.txt"
    proc, lines = evaluate(tmp_path, ["polluter=exploits.leave_state:host",
                                      "detector=detector:run"],
                           env={"DETECTOR_OUT": str(cmdline)})
    assert proc.returncode == 0, proc.stderr
    assert "gpumeter evaluate: warm start: each candidate's process is forked" in proc.stderr, \
        proc.stderr
    lines = by_name(lines)
    # The polluter changed gpumeter's module (and numpy.tanh, which the reference calls): its
    # own verdict, tampered.
    assert lines["polluter"]["verdict"] == "tampered", lines["polluter"]
    # The next candidate's process was forked (not started cold) and saw none of it.
    assert "gpumeter._warm" in cmdline.read_text(), cmdline.read_text()
    assert lines["detector"]["correct"] is True and lines["detector"]["verdict"] in TIMED, \
        lines["detector"]


def test_start_cold_is_said_and_judges_the_same(tmp_path):
    cmdline = tmp_path / "cmdline.txt"
    (tmp_path / "detector.py").write_text(DETECTOR)
    proc, lines = evaluate(tmp_path, ["detector=detector:run",
                                      "first_call=exploits.memo_first_call:host"],
                           "--start", "cold", env={"DETECTOR_OUT": str(cmdline)})
    assert proc.returncode == 0, proc.stderr
    assert "gpumeter evaluate: cold start (a fresh interpreter for each candidate): --start cold" \
        in proc.stderr, proc.stderr
    assert "gpumeter._evaluate_child" in cmdline.read_text()
    lines = by_name(lines)
    assert lines["detector"]["correct"] is True
    assert lines["first_call"]["verdict"] == "wrong"


THREADED_REFERENCE = textwrap.dedent("""
    import threading, time
    threading.Thread(target=time.sleep, args=(600,), daemon=True, name="sleeper").start()
    from exploits.problem import host_reference
""")


def test_warm_start_falls_back_cold_where_an_import_started_a_thread(tmp_path):
    (tmp_path / "threaded_ref.py").write_text(THREADED_REFERENCE)
    proc, lines = evaluate(tmp_path, ["honest=exploits.honest:host"],
                           reference="threaded_ref:host_reference")
    assert proc.returncode == 0, proc.stderr
    assert "cold start (a fresh interpreter for each candidate): the warm start cannot serve: an " \
        "import started a Python thread (sleeper)" in proc.stderr, proc.stderr
    assert lines[0]["correct"] is True and lines[0]["verdict"] in TIMED, lines


SERVER_KILLER = textwrap.dedent("""
    # Finds the warm start's server and kills it: the candidates after it start cold.
    import os, signal
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and b"gpumeter._warm" in open(f"/proc/{pid}/cmdline", "rb").read() \\
                    and int(pid) != os.getpid():
                os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass
    from exploits.honest import host as run
""")


def test_a_server_killed_by_a_candidate_leaves_the_next_ones_cold_and_judged(tmp_path):
    (tmp_path / "server_killer.py").write_text(SERVER_KILLER)
    (tmp_path / "detector.py").write_text(DETECTOR)
    cmdline = tmp_path / "cmdline.txt"
    proc, lines = evaluate(tmp_path, ["killer=server_killer:run", "detector=detector:run",
                                      "first_call=exploits.memo_first_call:host"],
                           env={"DETECTOR_OUT": str(cmdline)})
    assert proc.returncode == 0, proc.stderr
    assert "the warm start's server failed" in proc.stderr, proc.stderr
    assert "gpumeter._evaluate_child" in cmdline.read_text()  # started cold
    lines = by_name(lines)
    assert lines["killer"]["correct"] is True, lines["killer"]
    assert lines["detector"]["correct"] is True and lines["detector"]["verdict"] in TIMED
    assert lines["first_call"]["verdict"] == "wrong"


def test_fork_problem_names_cuda_initialized_by_an_import(monkeypatch):
    class Cuda:
        @staticmethod
        def is_initialized():
            return True

    class Torch:
        cuda = Cuda()

    assert _warm.fork_problem() == ""  # this process: no thread, no CUDA
    monkeypatch.setitem(sys.modules, "torch", Torch())
    assert _warm.fork_problem() == "PyTorch initialized CUDA when the modules were imported"


LAZY_REFERENCE = textwrap.dedent("""
    from exploits import problem

    def _helper(a, b):
        import lazydep  # imported when called, as exploits.problem imports torch
        return problem.host_reference(a, b)

    def reference(a, b):
        return _helper(a, b)

    def unused():
        import json_never_imported  # noqa: F401  (not reached from the reference: not imported)
""")


def test_lazy_imports_of_the_reference_are_read_from_its_code():
    import exploits.problem as p
    assert _warm._lazy_imports([p.host_reference, p.host_inputs]) == []
    assert _warm._lazy_imports([p.gpu_reference, p.gpu_inputs]) == ["torch"]


def test_the_warm_server_imports_what_the_reference_imports_when_called(tmp_path):
    """A module the reference imports inside its body (through a helper) is imported once by
    the server (and once by the checker, which calls the reference), never by each run."""
    imports = tmp_path / "imports.txt"
    (tmp_path / "lazydep.py").write_text(
        f"import os\nwith open({str(imports)!r}, 'a') as f:\n    f.write(f'{{os.getpid()}}\\n')\n")
    (tmp_path / "lazy_ref.py").write_text(LAZY_REFERENCE)
    proc, lines = evaluate(tmp_path, ["a=exploits.honest:host", "b=exploits.honest:host",
                                      "c=exploits.memo_first_call:host"],
                           reference="lazy_ref:reference")
    assert proc.returncode == 0, proc.stderr
    assert "warm start" in proc.stderr
    assert len(imports.read_text().split()) == 2, imports.read_text()  # the server, the checker
    assert [x["verdict"] for x in lines][2] == "wrong" and lines[0]["correct"] is True


STUB = "/usr/local/cuda/lib64/stubs/libcuda.so"


@pytest.mark.skipif(not os.path.exists(STUB), reason=f"no CUDA driver stub at {STUB}")
def test_fork_problem_reads_the_driver_without_initializing_it():
    """libcuda loaded (here the toolkit's stub, which answers CUDA_ERROR_STUB_LIBRARY): asked
    without cuInit, no context."""
    code = ("import ctypes; from gpumeter import _warm; ctypes.CDLL(%r); "
            "print(repr(_warm.fork_problem()))" % STUB)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert out.stdout.strip() == "''", out.stdout + out.stderr


# --- the journal and --resume ---------------------------------------------------------------

KILL_ONCE = textwrap.dedent("""
    # The batch's crash: the first time it is imported, it kills gpumeter evaluate (SIGKILL).
    import os, signal
    marker = os.environ["KILL_MARKER"]
    if not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getppid(), signal.SIGKILL)
    from exploits.honest import host as run
""")


@pytest.mark.parametrize("start", ["warm", "cold"])
def test_resume_after_sigkill_runs_only_what_has_no_line(tmp_path, start):
    (tmp_path / "kill_once.py").write_text(KILL_ONCE)
    env = {"KILL_MARKER": str(tmp_path / "killed")}
    names = ["c1=exploits.honest:host", "c2=exploits.memo_first_call:host",
             "c3=kill_once:run", "c4=exploits.patch_verify:host", "c5=exploits.honest:host"]
    jsonl = tmp_path / "journal.jsonl"
    proc, first = evaluate(tmp_path, names, "--start", start, jsonl=jsonl, env=env, out="one")
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert [x["candidate"] for x in first] == ["c1", "c2"], first
    # A torn line, as a kill in the middle of a write leaves it: dropped, its candidate run.
    with open(jsonl, "a") as f:
        f.write('{"candidate": "c3", "verdict": "fas')
    proc, lines = evaluate(tmp_path, names, "--start", start, "--resume", jsonl=jsonl, env=env,
                           out="two")
    assert proc.returncode == 0, proc.stderr
    assert "--resume: 2 of 5 candidates have their line" in proc.stderr, proc.stderr
    assert [x["candidate"] for x in lines] == ["c1", "c2", "c3", "c4", "c5"], lines
    assert lines[:2] == first  # the first two not run again
    # Each line says the batch it came from, which a resume compares with its own.
    assert all(x[_wire.JOURNAL_BATCH] == lines[0][_wire.JOURNAL_BATCH] for x in lines)
    assert lines[0][_wire.JOURNAL_BATCH]["timing"] == "host" and \
        lines[0][_wire.JOURNAL_BATCH]["budget_ms"] == [1.0, 4.0]
    runs = os.listdir(next((tmp_path / "two").iterdir()))
    assert not [r for r in runs if "-c1-" in r or "-c2-" in r], runs
    assert lines[2]["correct"] is True and lines[3]["verdict"] == "tampered"
    # Every candidate judged: a resume runs nothing and keeps the journal as it is.
    text = jsonl.read_text()
    proc, again = evaluate(tmp_path, names, "--start", start, "--resume", jsonl=jsonl, env=env,
                           out="three")
    assert proc.returncode == 0, proc.stderr
    assert jsonl.read_text() == text


def test_read_journal_drops_a_torn_last_line_and_refuses_a_torn_middle(tmp_path):
    path = tmp_path / "j.jsonl"
    good = '{"candidate": "a", "verdict": "wrong"}\n'
    path.write_text(good + '{"candidate": "b", "ver')
    assert [x["candidate"] for x in _batch.read_journal(str(path), repair=False)] == ["a"]
    assert path.read_text().endswith('"ver')
    _batch.read_journal(str(path), repair=True)
    assert path.read_text() == good
    # A complete last line that is no verdict is torn too (a partial write ending in a newline
    # cannot happen; a line without its verdict can): dropped.
    path.write_text(good + '{"candidate": "b"}\n')
    assert len(_batch.read_journal(str(path), repair=False)) == 1
    path.write_text('not json\n' + good)
    with pytest.raises(_batch.BatchError, match="line 1"):
        _batch.read_journal(str(path), repair=False)
    assert _batch.read_journal(str(tmp_path / "none.jsonl"), repair=True) == []


def test_a_programs_lines_are_its_own():
    lines = [{"candidate": "prog/case/a", "verdict": "wrong"},
             {"candidate": "prog/case/b", "verdict": "faster"},
             {"candidate": "program", "verdict": "crashed"}, {"candidate": "prog", "verdict": "x"}]
    assert [x["candidate"] for x in _batch.judged(lines, "prog", program=True)] == \
        ["prog/case/a", "prog/case/b", "prog"]
    assert [x["candidate"] for x in _batch.judged(lines, "prog", program=False)] == ["prog"]


def test_resume_needs_a_journal(capsys):
    rc = _evaluate.main(["--reference", "exploits.problem:host_reference", "--inputs",
                         "exploits.problem:host_inputs", "--timing", "host", "--resume",
                         "exploits.honest:host"])
    assert rc == 2 and "--resume needs --jsonl" in capsys.readouterr().err


# --- shards and their merge -----------------------------------------------------------------

BATCH = ["honest=exploits.honest:host", "slow=exploits.honest:host_slow",
         "first_call=exploits.memo_first_call:host", "patch_verify=exploits.patch_verify:host",
         "raises=exploits.broken:raises", "superbatch=exploits.superbatch:host",
         "deferred=exploits.deferred:host", "patch_allclose=exploits.patch_allclose:host"]


def test_shards_merged_are_the_whole_batch(tmp_path):
    listing = tmp_path / "batch.txt"
    listing.write_text("# the batch\n\n" + "\n".join(BATCH) + "\n")
    whole_jsonl = tmp_path / "whole.jsonl"
    proc, whole = evaluate(tmp_path, [], "--candidates", str(listing), jsonl=whole_jsonl,
                           out="whole")
    assert proc.returncode == 0, proc.stderr
    assert [x["candidate"] for x in whole] == [b.split("=")[0] for b in BATCH]
    journals = []
    for k in range(4):
        journal = tmp_path / f"shard-{k}.jsonl"
        # Shard 2 from the scheduler's variables, as a Slurm array task reads it.
        how = ["--shard", f"{k}/4"] if k != 2 else []
        env = {} if k != 2 else {"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"}
        proc, part = evaluate(tmp_path, [], "--candidates", str(listing), *how, jsonl=journal,
                              out=f"shard-{k}", env=env)
        assert proc.returncode == 0, proc.stderr
        assert f"shard {k}/4" in proc.stderr and "2 of 8 candidates" in proc.stderr, proc.stderr
        assert len(part) == 2, part
        journals.append(str(journal))
    merged_path = tmp_path / "merged.jsonl"
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([HERE] + sys.path))
    merged = subprocess.run([sys.executable, "-m", "gpumeter", "evaluate", "--merge", *journals,
                             "--candidates", str(listing), "--jsonl", str(merged_path)],
                            capture_output=True, text=True, cwd=HERE, env=environ)
    assert merged.returncode == 0, merged.stderr
    lines = read_lines(merged_path)
    assert [x["candidate"] for x in lines] == [x["candidate"] for x in whole]
    for a, b in zip(whole, lines):
        assert same_verdict(a, b), (a, b)
    # A shard missing: its candidates named, exit 1; a journal given twice: refused.
    missing = subprocess.run([sys.executable, "-m", "gpumeter", "evaluate", "--merge",
                              *journals[:3], "--candidates", str(listing)],
                             capture_output=True, text=True, cwd=HERE, env=environ)
    assert missing.returncode == 1 and "2 candidates of the batch have no line" in \
        missing.stderr, missing.stderr
    twice = subprocess.run([sys.executable, "-m", "gpumeter", "evaluate", "--merge",
                            journals[0], journals[0]], capture_output=True, text=True, cwd=HERE,
                           env=environ)
    assert twice.returncode == 2 and "not shards of one batch" in twice.stderr, twice.stderr


def test_merge_refuses_a_journal_whose_task_was_killed(tmp_path):
    path = tmp_path / "j.jsonl"
    path.write_text('{"candidate": "a", "verdict": "wrong"}\n{"cand')
    with pytest.raises(_batch.BatchError, match="torn"):
        _batch.merge([str(path)], [])


def test_shards_are_dealt_round_robin_and_read_from_the_scheduler(monkeypatch):
    names = [f"c{i}" for i in range(10)]
    assert _batch.shard(names, None) == (None, "")
    mine, said = _batch.shard(names, "1/3")
    assert mine == {1, 4, 7} and said.startswith("shard 1/3 (--shard 1/3): 3 of 10"), said
    monkeypatch.setenv("JOB_COMPLETION_INDEX", "2")
    monkeypatch.setenv("JOB_COMPLETIONS", "3")
    mine, said = _batch.shard(names, None)
    assert mine == {2, 5, 8} and "JOB_COMPLETION_INDEX=2" in said, said
    with pytest.raises(_batch.BatchError):
        _batch.shard(names, "1/2")  # the option and the scheduler disagree


# --- candidates and their names -------------------------------------------------------------


def test_candidates_file_lines(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("# comment\n\n  a=exploits.honest:host  \nexploits.honest:host_slow\n"
                    "   # indented comment\nb=" + os.path.join(HERE, "exploits", "deferred.py")
                    + ":host\n")
    specs = _evaluate._file_candidates(str(path))
    assert [s["name"] for s in specs] == ["a", "honest.host_slow", "b"]
    assert specs[2]["path"].endswith("deferred.py")
    path.write_text("a=exploits.honest:host\nnot a spec\n")
    with pytest.raises(_evaluate.UsageError, match=r"c\.txt:2: "):
        _evaluate._file_candidates(str(path))
    with pytest.raises(_batch.BatchError, match="cannot be read"):
        _batch.candidates_file(str(tmp_path / "missing.txt"))


def test_two_candidates_of_one_name_are_refused_before_anything_runs(tmp_path, capsys):
    listing = tmp_path / "c.txt"
    listing.write_text("x=exploits.honest:host_slow\n")
    rc = _evaluate.main(["--reference", "exploits.problem:host_reference", "--inputs",
                         "exploits.problem:host_inputs", "--timing", "host", "--out",
                         str(tmp_path / "eval"), "x=exploits.honest:host", "--candidates",
                         str(listing)])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "two candidates are named 'x' (exploits.honest:host and exploits.honest:host_slow)" \
        in err, err
    assert not (tmp_path / "eval").exists()
    # Default names too: a/cand.py:run and b/cand.py:run are both "cand".
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "cand.py").write_text("def run(a, b):\n    return a @ b\n")
    rc = _evaluate.main(["--reference", "exploits.problem:host_reference", "--inputs",
                         "exploits.problem:host_inputs", "--timing", "host",
                         str(tmp_path / "a" / "cand.py") + ":run",
                         str(tmp_path / "b" / "cand.py") + ":run"])
    assert rc == 2 and "two candidates are named 'cand'" in capsys.readouterr().err


# --- progress -------------------------------------------------------------------------------


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_on_a_terminal_only():
    now = [0.0]
    tty = Terminal()
    p = _batch.Progress(4, tty, clock=lambda: now[0])
    p.starting("a")
    assert "candidate 1 of 4: a" in tty.getvalue()
    now[0] = 10.0
    p.finished("a", "wrong")
    p.starting("b")
    shown = tty.getvalue().rsplit("\r", 1)[-1]
    assert "candidate 2 of 4: b | last: a wrong | 10 s elapsed, about 30 s left" in shown, shown
    pipe = io.StringIO()
    q = _batch.Progress(4, pipe)
    q.starting("a")
    q.finished("a", "wrong")
    q.clear()
    assert pipe.getvalue() == ""


def test_progress_on_a_terminal_through_evaluate(tmp_path):
    """stderr a terminal (a pseudo-terminal here): the progress line is drawn; the JSON lines
    hold none of it."""
    master, slave = os.openpty()
    jsonl = tmp_path / "lines.jsonl"
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([HERE] + [p for p in sys.path if p]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "gpumeter", "evaluate", "--reference",
         "exploits.problem:host_reference", "--inputs", "exploits.problem:host_inputs",
         "--timing", "host", "--budget", "1,4", "--out", str(tmp_path / "eval"), "--jsonl",
         str(jsonl), "a=exploits.honest:host", "b=exploits.memo_first_call:host"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave, cwd=HERE, env=environ)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    assert proc.wait(timeout=300) == 0, seen
    text = seen.decode(errors="replace")
    assert "candidate 1 of 2: a" in text and "candidate 2 of 2: b | last: a " in text, text
    assert "elapsed, about" in text, text
    assert "elapsed" not in jsonl.read_text() and "\x1b" not in jsonl.read_text()


def test_no_progress_on_a_pipe(tmp_path):
    proc, lines = evaluate(tmp_path, ["honest=exploits.honest:host"])
    assert proc.returncode == 0, proc.stderr
    assert "\r" not in proc.stderr and "\x1b" not in proc.stderr
    assert "candidate 1 of" not in proc.stderr
    assert all("progress" not in x for x in lines)


def _servers(tag):
    """The warm servers of the runs this test started (their environment holds ``tag``): other
    runs on the machine (another test, a developer's batch) are not this test's to judge."""
    found = []
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and b"gpumeter._warm" in open(f"/proc/{pid}/cmdline", "rb").read() \
                    and tag in open(f"/proc/{pid}/environ", "rb").read().split(b"\0"):
                found.append(int(pid))
        except OSError:
            pass
    return found


def test_the_warm_server_is_gone_when_evaluate_returns(tmp_path):
    tag = f"GPUMETER_TEST_TAG={os.getpid()}-{time.monotonic_ns()}"
    assert not _servers(tag.encode())
    proc, lines = evaluate(tmp_path, ["honest=exploits.honest:host"],
                           env=dict([tag.split("=", 1)]))
    assert proc.returncode == 0, proc.stderr
    assert "warm start" in proc.stderr
    assert not _servers(tag.encode())


# --- the exploit suite, cold and warm -------------------------------------------------------

EXPLOITS = ["honest=exploits.honest:host", "first_call=exploits.memo_first_call:host",
            "patch_verify=exploits.patch_verify:host",
            "patch_allclose=exploits.patch_allclose:host",
            "patch_timer=exploits.patch_timer:host", "forged_report=exploits.forged_report:host",
            "own_verdict=exploits.own_verdict:host", "gc_capture=exploits.gc_capture:host",
            "profile_hook=exploits.profile_hook:host",
            "below_allclose=exploits.below_allclose:host", "meta_path=exploits.meta_path:host",
            "builtins_patch=exploits.builtins_patch:host", "hide_report=exploits.hide_report:host",
            "forged_payload=exploits.forged_payload:host",
            "loosened_check=exploits.loosened_check:host",
            "check_elsewhere=exploits.check_elsewhere:host",
            "slow_reference=exploits.slow_reference:host", "slow_sqrt=exploits.slow_sqrt:host",
            "next_folder=exploits.next_folder:host", "delete_alone=exploits.delete_alone:host",
            "extra_file=exploits.extra_file:host", "threads=exploits.threads:host",
            "generator=exploits.lazy:host_generator", "segfault=exploits.broken:segfault"]


def test_the_exploits_are_judged_the_same_cold_and_warm(tmp_path):
    """Every exploit that attacks the candidate's process, its report or the batch, run with
    the cold start and with the warm start: the same verdict, and the same names tampered with."""
    runs = {}
    for start in ("cold", "warm"):
        proc, lines = evaluate(tmp_path, EXPLOITS, "--start", start,
                               jsonl=tmp_path / f"{start}.jsonl", out=start)
        assert proc.returncode == 0, proc.stderr
        assert f"gpumeter evaluate: {start} start" in proc.stderr, proc.stderr
        runs[start] = by_name(lines)
    assert set(runs["cold"]) == set(runs["warm"]) == {e.split("=")[0] for e in EXPLOITS}
    for name, cold in runs["cold"].items():
        warm = runs["warm"][name]
        assert same_verdict(cold, warm), (name, cold["verdict"], cold["why"], warm["verdict"],
                                          warm["why"])
        assert sorted(cold.get("tampered") or []) == sorted(warm.get("tampered") or []), name
    assert runs["warm"]["honest"]["correct"] is True
    assert runs["warm"]["patch_verify"]["verdict"] == "tampered"


def test_a_starter_that_cannot_fork_leaves_the_run_to_the_cold_start(tmp_path):
    # WarmStart.start returns None once its server failed: _child.run starts the process itself.
    asked = []
    ended = _child.run([sys.executable, "-c", "import sys; print('cold', len(sys.argv))"],
                       env=dict(os.environ), timeout_s=60, log=str(tmp_path / "log"),
                       order={"x": 1}, channel=True,
                       starter=lambda *args, **kwargs: asked.append(args) or None)
    assert len(asked) == 1
    assert ended.rc == 0
    assert (tmp_path / "log").read_text() == "cold 2\n"


# --- the warm start's server dying in the middle of a fork ----------------------------------

DIES_IN_A_FORK = textwrap.dedent("""
    # The evaluator's reference module, imported by the warm start's server: at the server's
    # DIE_AT_FORK-th fork it ends the server right after the fork, before its answer, so the run's
    # process exists (forked on, by the process between) and evaluate hears nothing of it.
    import os, sys
    from exploits.problem import host_reference  # noqa: F401

    _server, _forks = os.getpid(), [0]

    def _after():
        if os.getpid() == _server and sys.argv[0].endswith("_warm.py"):
            _forks[0] += 1
            if _forks[0] == int(os.environ.get("DIE_AT_FORK", "0")):
                os._exit(9)

    os.register_at_fork(after_in_parent=_after)
""")


def test_a_server_that_dies_in_a_fork_leaves_that_candidate_not_measured(tmp_path):
    """The server dies after it forked the first candidate's process (the reference alone was
    its first fork): that candidate is not measured, cause stated, what was forked is killed and
    its checker's account set aside (never judged, never added to a cold start's), and the batch
    goes on cold."""
    (tmp_path / "dies_in_a_fork.py").write_text(DIES_IN_A_FORK)
    proc, lines = evaluate(tmp_path, ["first=exploits.honest:host", "second=exploits.honest:host",
                                      "third=exploits.memo_first_call:host"],
                           reference="dies_in_a_fork:host_reference", env={"DIE_AT_FORK": "2"})
    assert "warm start: each candidate's process is forked" in proc.stderr, proc.stderr
    assert "the warm start's server failed" in proc.stderr and "start cold" in proc.stderr, \
        proc.stderr
    lines = by_name(lines)
    first = lines["first"]
    assert first["verdict"] == "not measured", first
    assert "the warm start's server failed while it forked this candidate's process" in \
        first["why"], first
    assert "checker" not in first, first  # its account set aside, not judged
    # A cause not its own: exit 1; the candidates after it judged, cold.
    assert proc.returncode == 1, proc.stderr
    assert lines["second"]["correct"] is True and lines["second"]["verdict"] in TIMED, \
        lines["second"]
    assert lines["third"]["verdict"] == "wrong", lines["third"]


# --- wrong values of the batch's options: one line, exit 2, nothing run ---------------------

BASE = ["--reference", "exploits.problem:host_reference", "--inputs",
        "exploits.problem:host_inputs", "--timing", "host"]


def _usage_line(capsys):
    """The one line a refused argument gives (and the pointer to --help every command adds)."""
    err = capsys.readouterr().err
    said = [x for x in err.splitlines() if x]
    assert len(said) == 2 and said[1] == "Run 'gpumeter evaluate --help' for usage.", err
    assert said[0].startswith("gpumeter evaluate: "), err
    return said[0]


def _files(tmp_path):
    (tmp_path / "dup.txt").write_text("x=exploits.honest:host\n\nx=exploits.honest:host_slow\n")
    (tmp_path / "empty.txt").write_text("# nothing yet\n\n")
    (tmp_path / "bad.txt").write_text("a=exploits.honest:host\n# fine\nnot a spec\n")
    (tmp_path / "corrupt.jsonl").write_text('not json\n{"candidate": "a", "verdict": "wrong"}\n')


@pytest.mark.parametrize("extra,said", [
    (["--shard", "4/4"], "--shard: K must be below N"),
    (["--shard", "5/4"], "--shard: K must be below N"),
    (["--shard", "a/b"], "--shard: must be K/N"),
    (["--shard", "1/0"], "--shard: the count N must be 1 to"),
    (["--shard", ""], "--shard: is empty"),
    (["--candidates", "/nonexistent"], "--candidates '/nonexistent': cannot be read"),
    (["--candidates", "{tmp}/dup.txt"], "two candidates are named 'x'"),
    (["--candidates", "{tmp}/empty.txt"], "holds no candidate"),
    (["--candidates", "{tmp}/bad.txt"], "bad.txt:3: 'not a spec': expected"),
    (["--resume", "h=exploits.honest:host"], "--resume needs --jsonl"),
    (["--merge", "{tmp}/missing.jsonl"], "--merge '{tmp}/missing.jsonl': no such file"),
    (["--merge", "{tmp}/corrupt.jsonl"],
     "--merge '{tmp}/corrupt.jsonl' line 1 is not a candidate's JSON line"),
    (["--start", "lukewarm", "h=exploits.honest:host"],
     "argument --start: invalid choice: 'lukewarm'"),
], ids=["shard-4/4", "shard-5/4", "shard-a/b", "shard-1/0", "shard-empty", "candidates-missing",
        "candidates-duplicate", "candidates-empty", "candidates-bad-line", "resume-no-jsonl",
        "merge-missing", "merge-corrupt", "start-lukewarm"])
def test_wrong_values_of_the_batch_options_are_one_line_and_exit_2(tmp_path, capsys, extra,
                                                                   said):
    _files(tmp_path)
    extra = [x.replace("{tmp}", str(tmp_path)) for x in extra]
    out = tmp_path / "eval"
    rc = _evaluate.main(BASE + ["--out", str(out)] + extra +
                        ([] if any(x.startswith("--candidates") or x == "--merge" or "=" in x
                                   for x in extra) else ["h=exploits.honest:host"]))
    line = _usage_line(capsys)
    assert rc == 2, line
    assert said.replace("{tmp}", str(tmp_path)) in line, line
    assert not out.exists()  # nothing run


def test_the_batch_options_python_api_raises_config_error(tmp_path):
    """The same refusals through the functions: gpumeter.ConfigError (the core's class of a bad
    argument, exit 2), its argument the option."""
    import gpumeter
    _files(tmp_path)
    names = [f"c{i}" for i in range(4)]
    assert _batch.shard(names, "0/4")[0] == {0}  # shards are numbered from 0
    tries = [(lambda: _batch.shard(names, "4/4"), "--shard"),
             (lambda: _batch.shard(names, "a/b"), "--shard"),
             (lambda: _batch.candidates_file("/nonexistent"), "--candidates"),
             (lambda: _batch.candidates_file(str(tmp_path / "empty.txt")), "--candidates"),
             (lambda: _batch.refuse_duplicates([("x", "a:f"), ("x", "b:f")]), "candidates"),
             (lambda: _batch.merge([str(tmp_path / "missing.jsonl")], []), "--merge"),
             (lambda: _batch.merge([str(tmp_path / "corrupt.jsonl")], []), "--merge"),
             (lambda: _batch.read_journal(str(tmp_path / "corrupt.jsonl"), repair=False),
              "--resume"),
             (lambda: _batch.check_resume("j", [{"candidate": "a", "verdict": "wrong"}], {}),
              "--resume")]
    for call, argument in tries:
        with pytest.raises(gpumeter.ConfigError) as caught:
            call()
        assert caught.value.argument == argument, (argument, caught.value)
        assert "\n" not in str(caught.value)


# --- --resume takes only lines of the same batch --------------------------------------------


def _journal_line(name, **changed):
    fields = dict(reference="exploits.problem:host_reference",
                  inputs="exploits.problem:host_inputs", outputs=None, rtol=1e-5, atol=1e-8,
                  timing="host", budget_ms=None, precision=None, max_time_s=None,
                  program_reference="reference")
    fields.update(changed)
    return {"candidate": name, "verdict": "wrong", "correct": False,
            _wire.JOURNAL_BATCH: _wire.journal_batch(**fields)}


@pytest.mark.parametrize("extra,differs", [
    (["--rtol", "1e-3"], "--rtol 0.001 in this run's, 1e-05 in its"),
    (["--atol", "1e-6"], "--atol 1e-06 in this run's, 1e-08 in its"),
    (["--reference", "exploits.honest:host_slow"],
     "--reference exploits.honest:host_slow in this run's, exploits.problem:host_reference in"),
    (["--inputs", "exploits.problem:gpu_inputs"], "--inputs exploits.problem:gpu_inputs"),
    (["--timing", "auto"], "--timing auto in this run's, host in its"),
    (["--budget", "1,4"], "--budget 1,4 in this run's, none in its"),
    (["--precision", "0.05"], "--precision 0.05 in this run's, none in its"),
], ids=["rtol", "atol", "reference", "inputs", "timing", "budget", "precision"])
def test_resume_refuses_a_journal_of_another_batch(tmp_path, capsys, extra, differs):
    jsonl = tmp_path / "journal.jsonl"
    text = "".join(_wire.jsonl_line(_journal_line(n)) for n in ("a", "b")) + '{"candid'
    jsonl.write_text(text)
    options = dict(zip(BASE[::2], BASE[1::2]))
    options.update(dict(zip(extra[::2], extra[1::2])))
    argv = [x for kv in options.items() for x in kv]
    out = tmp_path / "eval"
    rc = _evaluate.main(argv + ["--out", str(out), "--jsonl", str(jsonl), "--resume",
                                "a=exploits.honest:host", "b=exploits.honest:host",
                                "c=exploits.honest:host"])
    line = _usage_line(capsys)
    assert rc == 2, line
    assert f"--resume '{jsonl}': line 1 (candidate 'a') came from another batch: {differs}" \
        in line, line
    assert not out.exists() and jsonl.read_text() == text  # nothing run, the journal as it was


def test_resume_refuses_lines_that_do_not_say_their_batch(tmp_path, capsys):
    jsonl = tmp_path / "journal.jsonl"
    jsonl.write_text(_wire.jsonl_line(_journal_line("a")) +
                     '{"candidate": "b", "verdict": "wrong"}\n')
    rc = _evaluate.main(BASE + ["--out", str(tmp_path / "eval"), "--jsonl", str(jsonl),
                                "--resume", "a=exploits.honest:host", "b=exploits.honest:host"])
    line = _usage_line(capsys)
    assert rc == 2 and "line 2 (candidate 'b') does not say which batch it came from" in line, \
        line


def test_a_journal_that_holds_lines_is_refused_without_resume(tmp_path, capsys):
    # Lines are appended: run again without --resume, a candidate would have two verdicts in one
    # journal. Refused before anything runs, the file as it was; an empty file is a new journal.
    jsonl = tmp_path / "journal.jsonl"
    text = _wire.jsonl_line(_journal_line("a"))
    jsonl.write_text(text)
    out = tmp_path / "eval"
    rc = _evaluate.main(BASE + ["--out", str(out), "--jsonl", str(jsonl),
                                "a=exploits.honest:host"])
    line = _usage_line(capsys)
    assert rc == 2 and f"--jsonl '{jsonl}' already holds lines: --resume to go on" in line, line
    assert not out.exists() and jsonl.read_text() == text


def test_merge_refuses_shards_of_two_batches(tmp_path):
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    one.write_text(_wire.jsonl_line(_journal_line("a")))
    two.write_text(_wire.jsonl_line(_journal_line("b", atol=1e-3)))
    import gpumeter
    with pytest.raises(gpumeter.ConfigError, match=r"not a shard of the batch of .*one\.jsonl.*"
                       r"--atol 1e-08 in .*, 0\.001 in its"):
        _batch.merge([str(one), str(two)], [])
    two.write_text(_wire.jsonl_line(_journal_line("b")))
    assert [x["candidate"] for x in _batch.merge([str(one), str(two)], [])[0]] == ["a", "b"]


# --- what a forked run inherits from the server ---------------------------------------------


def test_no_channel_key_in_a_warm_runs_memory(tmp_path):
    """A candidate that reads its whole memory for a channel key (its own, or an earlier run's
    left in the server) finds none, warm or cold, and its garbage is wrong."""
    found = tmp_path / "found.txt"
    proc, lines = evaluate(tmp_path, ["key=exploits.warm_key:host"],
                           env={"WARM_KEY_OUT": str(found)})
    assert proc.returncode == 0, proc.stderr
    assert "warm start: each candidate's process is forked" in proc.stderr, proc.stderr
    assert not found.exists() or found.read_text() == "", found.read_text()
    lines = by_name(lines)
    assert lines["key"]["verdict"] == "wrong", lines


SCAN_AFTER_RECEIVE = textwrap.dedent("""
    # The server's side of one request: received and its key zeroed after the fork, as serve
    # does; then this process's writable memory is read for what is left of the key (its last 24
    # bytes: a freed small block keeps all but its first 8). The key itself comes masked on stdin,
    # unmasked into one buffer whose place is skipped, as is the buffer memory is read into.
    # With "child": the run's side, the key given to the child's compiled code (_give_channel)
    # and taken by it (evaluation_channel_open), then memory read for the key's hex text.
    import ctypes, os, socket, sys
    from gpumeter import _gpumeter, _warm
    masked = sys.stdin.buffer.read()
    needle = bytearray(200)  # not the size of a key's block: never one of them reused
    if sys.argv[1] == "child":
        key = bytearray(32)
        for i in range(32):
            key[i] = masked[i] ^ 0x5A
        _warm._give_channel(1, key)
        assert _gpumeter.evaluation_channel_open()
        for i in range(32):
            byte = masked[i] ^ 0x5A
            needle[2 * i] = b"0123456789abcdef"[byte >> 4]
            needle[2 * i + 1] = b"0123456789abcdef"[byte & 15]
        tail = memoryview(needle)[16:64]
    else:
        sock = socket.socket(fileno=int(sys.argv[1]))
        header, key, fds = _warm._receive(sock)
        key[:] = bytes(len(key))
        for fd in fds:
            os.close(fd)
        for i in range(32):
            needle[i] = masked[i] ^ 0x5A
        tail = memoryview(needle)[8:32]
    buf = bytearray(1 << 22)
    def place(b):
        return ctypes.addressof((ctypes.c_char * len(b)).from_buffer(b))
    skip = [(place(needle), place(needle) + len(needle)), (place(buf), place(buf) + len(buf))]
    found = []
    with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", buffering=0) as mem:
        regions = [line.split() for line in maps]
        for fields in regions:
            if "w" not in fields[1] or (len(fields) > 5 and fields[5].startswith("[v")):
                continue
            start, end = (int(x, 16) for x in fields[0].split("-"))
            at = start
            while at < end:
                n = min(len(buf), end - at)
                try:
                    mem.seek(at)
                    got = mem.readinto(memoryview(buf)[:n])
                except OSError:
                    break
                i = buf.find(tail, 0, got)
                while i >= 0:
                    where = at + i
                    if not any(a <= where < b for a, b in skip):
                        found.append(hex(where))
                    i = buf.find(tail, i + 1, got)
                at += n
    print(len(found))
""")


def test_the_server_keeps_no_key_of_a_run_it_forked(tmp_path):
    """What the server received for a run (the channel's key) is not left in its memory, where
    every later run would inherit it: read back from the whole of its writable memory."""
    import array
    import socket
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    script = tmp_path / "scan.py"
    script.write_text(SCAN_AFTER_RECEIVE)
    proc = subprocess.Popen([sys.executable, str(script), str(theirs.fileno())],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=False,
                            pass_fds=(theirs.fileno(),),
                            env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    theirs.close()
    key = os.urandom(32)
    head = b'{"argv": [], "env": {}, "pass_fds": []}'
    null = os.open(os.devnull, os.O_WRONLY)
    ours.sendmsg([_warm._HEAD.pack(len(head)), head, key],
                 [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [null, null]))])
    os.close(null)
    out, _ = proc.communicate(bytes(b ^ 0x5A for b in key), timeout=60)
    ours.close()
    assert proc.returncode == 0
    assert out.split() == [b"0"], out


def test_a_warm_run_keeps_no_text_of_its_key(tmp_path):
    """The run's side: the key put where the child's compiled code reads it, and read (which
    erases every copy it knows): no text of it is left in the process's memory."""
    script = tmp_path / "scan.py"
    script.write_text(SCAN_AFTER_RECEIVE)
    key = os.urandom(32)
    environ = {k: v for k, v in os.environ.items() if k != _child.CHANNEL_VARIABLE}
    done = subprocess.run([sys.executable, str(script), "child"], capture_output=True,
                          input=bytes(b ^ 0x5A for b in key), timeout=60,
                          env=dict(environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1:] == [b"0"], done.stdout


def test_the_key_exploit_finds_a_key_left_in_memory(tmp_path):
    """exploits.warm_key finds a key where one is left (here in the environment, unerased):
    the test above it can fail."""
    found = tmp_path / "found.txt"
    done = subprocess.run([sys.executable, "-c", "import exploits.warm_key"], timeout=60,
                          capture_output=True, cwd=HERE,
                          env=dict(os.environ, WARM_KEY_OUT=str(found),
                                   PYTHONPATH=os.pathsep.join([HERE] + sys.path),
                                   **{_child.CHANNEL_VARIABLE: "5:" + "ab" * 32}))
    assert done.returncode == 0, done.stderr
    assert found.read_text() == "5:" + "ab" * 32 + "\n"


KEEPS_A_LOG = textwrap.dedent("""
    # The evaluator's reference module keeps a log open on a logger (which outlives the module:
    # the server forgets the module, not the logging's handlers), one file per process.
    import logging, os
    from exploits.problem import host_reference  # noqa: F401
    logging.getLogger("keeps_a_log").addHandler(
        logging.FileHandler(os.path.join(os.environ["LOG_DIR"], f"{os.getpid()}.log")))
""")


def test_a_warm_run_writes_through_no_descriptor_of_the_servers(tmp_path):
    """A candidate that writes into every descriptor it holds reaches none the server held (here
    a log the reference's module keeps open in the server): only its own files, and its own
    channel (tampered)."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (tmp_path / "keeps_a_log.py").write_text(KEEPS_A_LOG)
    said = tmp_path / "fds.txt"
    proc, lines = evaluate(tmp_path, ["fds=exploits.warm_fds:host"],
                           reference="keeps_a_log:host_reference",
                           env={"LOG_DIR": str(logs), "WARM_FDS_OUT": str(said)})
    assert proc.returncode == 0, proc.stderr
    assert "warm start: each candidate's process is forked" in proc.stderr, proc.stderr
    own = {line.split()[1] for line in said.read_text().splitlines() if line.startswith("pid ")}
    written = {p.stem for p in logs.iterdir() if b"warm_fds" in p.read_bytes()}
    assert written <= own, (written, own, said.read_text())
    # One socket, its checker's: not the server's control socket.
    assert said.read_text().count("socket:") == 1, said.read_text()
    assert by_name(lines)["fds"]["verdict"] == "tampered", lines


# --- evaluate killed: the run in flight ends with it ----------------------------------------

SLEEPER = textwrap.dedent('''
    import os, time
    from exploits import problem

    def host(*inputs):
        with open(os.environ["SLEEPER_PID_FILE"], "a") as f:
            f.write(f"{os.getpid()}\\n")
        time.sleep(120)
        return problem.host_reference(*inputs)
''')


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


@pytest.mark.parametrize("start", ["cold", "warm"])
def test_a_run_in_flight_ends_when_evaluate_is_killed(tmp_path, start):
    # A job's time limit or an out-of-memory kill ends evaluate with SIGKILL: nothing of it can
    # kill the candidate in flight, which must then end by itself, not hold the device beside the
    # batch resumed after it.
    (tmp_path / "sleeper.py").write_text(SLEEPER)
    pids = tmp_path / "pids"
    env = dict(os.environ, SLEEPER_PID_FILE=str(pids))
    env["PYTHONPATH"] = os.pathsep.join([HERE, str(tmp_path)] + [p for p in sys.path if p])
    proc = subprocess.Popen(
        [sys.executable, "-m", "gpumeter", "evaluate", "--reference",
         "exploits.problem:host_reference", "--inputs", "exploits.problem:host_inputs",
         "--timing", "host", "--budget", "1,4", "--out", str(tmp_path / "eval"), "--jsonl",
         str(tmp_path / "lines.jsonl"), "--timeout", "300", "--start", start,
         "sleeper=sleeper:host"], env=env, cwd=HERE, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not (pids.exists() and pids.read_text().strip()) and time.monotonic() < deadline:
        assert proc.poll() is None, "evaluate ended before its candidate ran"
        time.sleep(0.05)
    candidate = [int(x) for x in pids.read_text().split()]
    assert candidate and all(_alive(p) for p in candidate)
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in candidate) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [p for p in candidate if _alive(p)]
    for p in left:  # leave the machine as found
        os.kill(p, signal.SIGKILL)
    assert not left, f"the candidate's process {left} outlived evaluate killed by SIGKILL"


# --- issue 50: what no candidate may change, held to what evaluate kept -----------------------


def test_the_journal_is_held_to_what_evaluate_wrote(tmp_path):
    """A line added, a line rewritten, the file replaced: each undone before evaluate's next
    line, and said; a file touched but unchanged says nothing."""
    path = tmp_path / "lines.jsonl"
    path.write_text('{"candidate": "a", "verdict": "faster"}\n')  # a resumed batch's line
    journal = _batch.Journal(str(path))
    try:
        assert journal.check() == ""
        journal.write('{"candidate": "b", "verdict": "wrong"}\n')
        kept = path.read_bytes()
        os.utime(path)  # touched: nothing changed
        assert journal.check() == ""
        with open(path, "a") as f:
            f.write('{"candidate": "c", "verdict": "faster"}\n')
        assert journal.check() == f"added 1 line to the journal {path}"
        assert path.read_bytes() == kept
        path.write_bytes(kept.replace(b"wrong", b"faste"))  # same size, rewritten
        assert journal.check() == f"rewrote the journal {path}"
        assert path.read_bytes() == kept
        os.unlink(path)
        path.write_bytes(kept + kept)
        assert journal.check() == f"removed or replaced the journal {path}"
        assert path.read_bytes() == kept
        journal.write('{"candidate": "d", "verdict": "slower"}\n')  # to the file put back
        assert path.read_bytes() == kept + b'{"candidate": "d", "verdict": "slower"}\n'
        assert journal.check() == ""
    finally:
        journal.close()


def test_watched_files_changed_removed_or_added_are_put_back_and_named(tmp_path):
    import pathlib
    from gpumeter import _guard
    tmp_path = pathlib.Path(os.path.realpath(tmp_path))  # as the watch names files
    package = tmp_path / "pkg"
    (package / "__pycache__").mkdir(parents=True)
    (package / "a.py").write_text("A = 1\n")
    (package / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"compiled")
    source = tmp_path / "ref.py"
    source.write_text("def f():\n    return 1\n")
    files = _guard.Files()
    files.add_folder(str(package), "gpumeter's")
    files.add(str(source), "the reference's")
    assert files.check() == []
    os.utime(source)  # touched, not changed
    assert files.check() == []
    source.write_text("def f():\n    return 2\n")
    (package / "__pycache__" / "a.cpython-311.pyc").unlink()
    (package / "b.py").write_text("evil = True\n")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "ref.cpython-311.pyc").write_bytes(b"not from the source")
    said = files.check()
    assert f"changed the reference's file {source} while it ran (put back)" in said, said
    assert f"removed gpumeter's file {package / '__pycache__' / 'a.cpython-311.pyc'} while it " \
           "ran (put back)" in said, said
    assert f"added {package / 'b.py'} to gpumeter's files while it ran (removed)" in said, said
    assert f"added {tmp_path / '__pycache__' / 'ref.cpython-311.pyc'} to the reference's files " \
           "while it ran (removed)" in said, said
    assert len(said) == 4, said
    assert source.read_text() == "def f():\n    return 1\n"
    assert (package / "__pycache__" / "a.cpython-311.pyc").read_bytes() == b"compiled"
    assert not (package / "b.py").exists()
    assert not (tmp_path / "__pycache__" / "ref.cpython-311.pyc").exists()
    assert files.check() == []


def test_the_processes_evaluate_starts_put_the_users_folders_last(tmp_path, monkeypatch):
    """gpumeter's folder alone on PYTHONPATH, the current folder never first, the user's
    folders appended by the process itself."""
    from gpumeter import _specs
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["/somewhere", HERE]))
    env = _evaluate._child_environment()
    package = os.path.dirname(os.path.dirname(os.path.abspath(_evaluate.__file__)))
    assert env["PYTHONPATH"] == package
    assert env["PYTHONSAFEPATH"] == "1" and env["PYTHONDONTWRITEBYTECODE"] == "1"
    assert env[_specs.USER_PATH_VARIABLE].split(os.pathsep) == ["/somewhere", HERE,
                                                                 str(tmp_path)]
    (tmp_path / "json.py").write_text("raise SystemExit('the current folder came first')\n")
    script = ("import sys, importlib.machinery as m, gpumeter._specs as s; s.user_path(); "
              "print(m.PathFinder.find_spec('json', sys.path).origin != sys.argv[1] + '/json.py', "
              "sys.path.index(sys.argv[1]) > max(i for i, p in enumerate(sys.path) "
              "if 'site-packages' in p or p.endswith('lib-dynload')))")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], env=env,
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.stdout.split() == ["True", "True"], done.stdout + done.stderr
