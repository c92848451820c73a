"""``gpumeter evaluate``: judges candidates against a reference, each in a process of its own,
with fresh inputs and checked answers, and writes one JSON line per candidate.

    gpumeter evaluate --reference ops.py:gelu_mm --inputs ops.py:make_inputs \\
        cand/a.py:run cand/b.py:run --program './bench_gelu --case gelu'

A Python candidate (``module:function`` or ``path/to/file.py:function``) runs in a fresh
interpreter (``gpumeter._evaluate_child``) that compares it with the reference by
``gpumeter.compare(..., fresh_inputs=...)`` and writes the record into a folder this process
chose. A program candidate is a command that writes a gpumeter record when given ``--out DIR``
(a benchmark built with GPUMETER_MAIN whose case holds an implementation named ``reference``):
it runs as it is, and its record is judged. Either way the verdict is made here, in a process
no candidate ran in, from the record read back by the strict reader (every derived number
recomputed from the raw samples). A crash, a hang or a nonzero exit is that candidate's verdict,
never the batch's.

Candidates run one after another: on one GPU the device lock serializes measurements, so running
them in parallel would only make them wait (there is no --jobs).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import sys
import tempfile
import time
import traceback
from typing import Any, Dict, FrozenSet, List, NamedTuple, NoReturn, Optional, Sequence, TextIO, \
    Tuple

# gpumeter (the extension) is imported inside the functions that use it, not here: this file's
# parser must load without the extension, so `gpumeter evaluate --help` can be printed where the
# module is not installed (tests/python/test_cli_help.py keeps the C++ command's copy of it).

# Which verdict an error or a run's end gives is the core's (error_class.hpp,
# candidate_verdict.hpp): one table for records, reports and this command, which spells none.
_WHOSE = {"candidate": "candidate", "gpumeter": "gpumeter", "reference": "evaluator",
          "inputs": "evaluator", "evaluator": "evaluator", "internal": "evaluator"}

# The exit codes are the command line's (exit_codes.hpp), read from the core where used: 0 when
# every candidate has a verdict (wrong, crashed or tampered ones included), 1 when a candidate was
# not measured for a cause not its own, 2 for bad arguments, 5 for GPU timing without a GPU.


class UsageError(Exception):
    """A bad argument: one line naming it (exit 2), nothing run."""


class _Parser(argparse.ArgumentParser):
    """argparse's own errors (a value that is not a number, an unknown option) in one line, as
    every other command's, not its usage block."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message}")


# --- what was asked -------------------------------------------------------------------------

_NAME = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.+-]*)=(.+)$")
_FUNCTION = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
#: What a NAME= may hold (names become folder names and table cells) and what a FUNCTION may be,
#: said in every error about either.
_SPEC_RULE = ("[NAME=]MODULE:FUNCTION or [NAME=]path/to/file.py:FUNCTION; NAME of letters, digits "
              "and _ . + - (the first a letter, a digit or _), FUNCTION a Python name (letters, "
              "digits and _), dotted for Class.method")


def parse_python_spec(text: str) -> Dict[str, str]:
    """``[NAME=]module:function`` or ``[NAME=]path/to/file.py:function`` (the function may be
    dotted: ``mod:Class.method``)."""
    name = ""
    m = _NAME.match(text)
    spec = text
    if m and ":" not in m.group(1):
        name, spec = m.group(1), m.group(2)
    elif re.match(r"^[^:/=]*=", text):
        raise UsageError(f"{text!r}: the name {text.split('=', 1)[0]!r} holds a character a "
                         f"name may not: expected {_SPEC_RULE}")
    target, sep, attribute = spec.rpartition(":")
    if not sep or not target or not attribute or not _FUNCTION.fullmatch(attribute):
        raise UsageError(f"{text!r}: expected {_SPEC_RULE}")
    out = {"text": spec, "attribute": attribute}
    if target.endswith(".py") or os.sep in target:
        if not os.path.isfile(target):
            raise UsageError(f"{text!r}: no file {target!r}")
        out["path"] = os.path.abspath(target)
        default = os.path.splitext(os.path.basename(target))[0]
    else:
        if not _FUNCTION.fullmatch(target):
            raise UsageError(f"{text!r}: {target!r} is not a module name (dotted Python names) "
                             f"or a .py file: expected {_SPEC_RULE}")
        out["module"] = target
        default = target.rsplit(".", 1)[-1]
    out["name"] = name or (default if attribute in ("run", "candidate", "forward", "main")
                           else f"{default}.{attribute}")
    return out


def parse_program(text: str) -> Dict[str, Any]:
    """``[NAME=]command args...``: the command is run without a shell, with ``--out DIR``
    added."""
    name = ""
    m = _NAME.match(text)
    command = text
    if m and "/" not in m.group(1):
        name, command = m.group(1), m.group(2)
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise UsageError(f"--program {text!r}: {e}") from None
    if not argv:
        raise UsageError(f"--program {text!r}: no command")
    return {"name": name or os.path.basename(argv[0]), "argv": argv, "text": command}


def _file_candidates(path: Optional[str]) -> List[Dict[str, str]]:
    """``--candidates FILE``: its candidates, each error naming its file and line."""
    from gpumeter import _batch  # with the extension, as every use of gpumeter here
    out = []
    for where, text in (_batch.candidates_file(path) if path else []):
        try:
            out.append(parse_python_spec(text))
        except UsageError as e:
            raise UsageError(f"{where}: {e}") from None
    return out


def _plan_batch(args: argparse.Namespace, python_candidates: List[Dict[str, str]],
                programs: List[Dict[str, Any]], batch: Dict[str, Any]
                ) -> Tuple[List[Dict[str, Any]], List[str]]:
    """Which of the batch's candidates this run runs (``python_candidates`` and ``programs`` cut
    to them, in place): this task's shard, less those with a line in the journal (``--resume``,
    whose every line must be of this ``batch``). Returns the journal's lines of this shard's
    candidates (they stand) and what to say."""
    from gpumeter import _batch  # with the extension, as every use of gpumeter here
    both: List[Dict[str, Any]] = list(python_candidates) + list(programs)
    mine, said = _batch.shard([c["name"] for c in both], args.shard)
    notes = [said] if said else []
    if mine is not None:
        both = [c for i, c in enumerate(both) if i in mine]
    previous: List[Dict[str, Any]] = []
    if args.jsonl and not args.resume:
        _batch.check_new_journal(args.jsonl)
    if args.resume:
        if not args.jsonl:
            raise UsageError("--resume needs --jsonl FILE: the journal of the batch it resumes")
        # Every line of this batch, checked before anything runs (exit 2) and before a torn last
        # line is cut: a journal refused is left as it was.
        _batch.check_resume(args.jsonl, _batch.read_journal(args.jsonl, repair=False), batch)
        journal = _batch.read_journal(args.jsonl, repair=True)
        left = []
        for c in both:
            lines = _batch.judged(journal, c["name"], program="argv" in c)
            previous += lines
            if not lines:
                left.append(c)
        notes.append(f"--resume: {len(both) - len(left)} of {len(both)} candidates have their "
                     f"line in {args.jsonl}; {len(left)} run")
        both = left
    python_candidates[:] = [c for c in both if "argv" not in c]
    programs[:] = [c for c in both if "argv" in c]
    return previous, notes


def _folder_name(index: int, name: str) -> str:
    return f"{index:03d}-" + re.sub(r"[^A-Za-z0-9_.+-]", "_", name)[:60]


def _evaluation_root(out: str) -> str:
    """This evaluation's folder, ``evaluate-<UTC time>-<pid>``, or that name with a random suffix
    where it is taken: a folder that exists never stops the batch."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    name = f"evaluate-{stamp}-{os.getpid()}"
    try:
        os.makedirs(os.path.join(out, name))
        return os.path.join(out, name)
    except FileExistsError:
        return tempfile.mkdtemp(prefix=name + "-", dir=out)


def _candidate_folder(root: str, index: int, name: str) -> str:
    """A new folder for one candidate, ``NNN-name-<random>``, made by mkdtemp (a random suffix,
    created exclusively, another tried while one is taken): no candidate can make or fill the
    folder of a later one before it exists, and a name already taken never stops the batch."""
    os.makedirs(root, exist_ok=True)  # a candidate that removed the root stops none but itself
    return tempfile.mkdtemp(prefix=_folder_name(index, name) + "-", dir=root)


# --- what every run is held to --------------------------------------------------------------


class RunLimits(NamedTuple):
    """What each candidate's process (and each program's) is held to, made once by ``_main`` and
    passed to every run: the resident memory its processes may hold, whether every process left
    under this one is killed when it ends, and the processes of gpumeter's own that are not a
    candidate's leftovers."""

    memory: Optional[int] = None
    reap: bool = False
    keep: FrozenSet[int] = frozenset()
    warm: Optional[Any] = None  # the warm start's server that forks each run; None: cold

    def of_run(self) -> Dict[str, Any]:
        """The keyword arguments of ``_child.run`` that hold a run to these limits."""
        keep = self.keep
        if self.warm is not None and self.warm.ready and self.warm.process is not None:
            # gpumeter's own while it serves; once it failed or closed, its pid may be anyone's.
            keep = keep | {self.warm.process.pid}
        return {"memory_limit": self.memory, "reap_orphans": self.reap, "keep": keep}


def _hold_runs(memory: Optional[int]) -> None:
    """B11: nothing a candidate starts outlives its run, whatever session it left for: this
    process becomes the reaper of its orphans, so each run can end by killing every process left
    under it (``RunLimits.reap``); and no candidate holds more than ``memory`` bytes of host
    memory."""
    from gpumeter import _child  # with the extension, as every use of gpumeter here
    note = _child.become_subreaper()
    if note:
        sys.stderr.write(f"gpumeter evaluate: {note}\n")


def _memory_limit(text: Optional[str]) -> Optional[int]:
    """``--memory``: bytes, read by the core's size rule (``8G``, ``500M``, bare bytes; its
    units and minimum are the core's, number_rule.hpp); by default half of this machine's
    physical memory (None, no limit, where that cannot be read)."""
    if text is None:
        try:
            return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
        except (ValueError, OSError):
            return None
    from gpumeter import _evaluate_args  # it imports this module
    return int(_evaluate_args._number("--memory", text, "memory_limit"))


def _size(n: int) -> str:
    return f"{n / (1 << 30):.1f} GiB" if n >= 1 << 30 else f"{n / (1 << 20):.0f} MiB"


def _over_memory(held: int, limits: RunLimits) -> str:
    """The account of a run killed over ``--memory``: it ended without a report (crashed)."""
    return (f"its processes held {_size(held)} of host memory, over --memory "
            f"{_size(limits.memory or 0)}, and were killed")


# --- judging a record -----------------------------------------------------------------------


def _read(record: Any) -> Any:
    """A Record as it is, or the record at a path, read by the strict reader."""
    import gpumeter
    return gpumeter.read_record(record) if isinstance(record, (str, os.PathLike)) else record


def judge_record(path: Any, candidate: str, reference: str = "reference",
                 case: Optional[str] = None, require_checks: bool = True,
                 reference_alone: Any = None, end_to_end: Any = None) -> Dict[str, Any]:
    """The verdict of ``candidate`` (in ``case``, or in any) in the record at ``path``, read
    strictly here and judged by the core's rule (judge_candidate): against the reference measured
    alone and the pair timed end to end, where their records are given. Each is a path or a Record
    already read: the reference alone is read once, right after it was measured, so no candidate
    can change what later ones are held to by changing its file."""
    import gpumeter
    try:
        record = _read(path)
        alone = _read(reference_alone)
        wall = _read(end_to_end)
    except (gpumeter.Error, OSError) as e:
        return _run_ended("record_unreadable", f"its record cannot be read: {e}")
    return _verdict_line(gpumeter._gpumeter.judge_candidate(
        record, candidate, reference, case, require_checks, alone, wall))


def _verdict_line(v: Any) -> Dict[str, Any]:
    """A CandidateVerdict of the core's as the fields of a JSON line."""
    line: Dict[str, Any] = {"verdict": v.verdict, "correct": v.correct, "why": v.why}
    if v.checked_iterations is not None:
        line["checked_iterations"] = v.checked_iterations
    if v.ledger is not None:
        line["ledger"] = {k: getattr(v.ledger, k) for k in _LEDGER_FIELDS}
    if v.sentence:
        line["sentence"] = v.sentence
    if v.speedup is not None:
        line["speedup"] = v.speedup
        line["interval"] = list(v.interval) if v.interval is not None else None
    if v.end_to_end_speedup is not None:
        line["end_to_end_speedup"] = v.end_to_end_speedup
        line["end_to_end_sentence"] = v.end_to_end_sentence
    if v.device_speedup is not None:
        line["device_speedup"] = v.device_speedup
    if v.reference_alone_ns is not None:
        line["reference_alone_ns"] = v.reference_alone_ns
        line["reference_beside_ns"] = v.reference_beside_ns
    return line


_LEDGER_FIELDS = ("iteration_records", "harness_records", "unaccounted_records",
                  "canaries_launched", "canaries_seen", "iterations", "fresh_inputs",
                  "checked_iterations", "inputs_records", "inputs_busy_ns", "reset_records",
                  "reset_busy_ns", "check_records", "check_busy_ns")


def _run_ended(end: str, why: str) -> Dict[str, Any]:
    """The verdict of a run that ended where no record of it can be judged (``end`` names a
    RunEnd): the core's table, with ``why`` as its account."""
    import gpumeter
    v = gpumeter._gpumeter.verdict_of_run_end(getattr(gpumeter._gpumeter.RunEnd, end), why)
    return {"verdict": v.verdict, "correct": v.correct, "why": v.why}


def _from_error(error_type: str, who: str) -> Tuple[str, bool]:
    """The verdict of an error, and who raised it: the candidate, gpumeter, or the evaluator's
    own code (the reference, the input generator, their imports)."""
    import gpumeter
    verdict = gpumeter._gpumeter.verdict_of_error(error_type, _WHOSE.get(who, "candidate"))
    return verdict, False


# --- running one candidate ------------------------------------------------------------------


def _tail(path: str, n: int = 400) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - n))
            return " ".join(f.read().decode(errors="replace").split())
    except OSError:
        return ""


def _child_environment() -> Dict[str, str]:
    """The environment of every process evaluate starts (its checker, its warm server, each run,
    the locate script): gpumeter's own folder first, then the interpreter's standard library and
    installed packages, and only then the user's folders (PYTHONPATH's entries, the current
    folder), so no file a candidate writes stands in for gpumeter or a framework (B11)."""
    import gpumeter
    from gpumeter import _specs
    package = os.path.dirname(os.path.dirname(os.path.abspath(gpumeter.__file__)))
    users = os.environ.get("PYTHONPATH", "").split(os.pathsep) + [os.getcwd()]
    return _specs.process_environment(os.environ, package, users)


def _user_folders_last() -> None:
    """This process's own path as its children's: the current folder (``python -m`` puts it
    first) moved after the standard library and the installed packages, so a module evaluate
    imports while candidates run (``hashlib``, a part of gpumeter) is never a candidate's file."""
    here = os.getcwd()
    first = [p for p in sys.path if p not in ("", here)]
    sys.path[:] = first + [p for p in sys.path if p in ("", here)][:1]


def _spawn_child(order: Dict[str, Any], folder: str, timeout_s: float, python: str,
                 env: Dict[str, str], limits: RunLimits, checker: Optional[Any] = None,
                 ) -> Tuple[Dict[str, Any], Optional[Dict[str, Any]], Optional[Dict[str, Any]],
                            Dict[str, Any]]:
    """Runs one ``gpumeter._evaluate_child`` with its order, in a session of its own; returns the
    line so far (its seconds, its log, and a verdict when the process itself decided one), its
    report, if it gave one, the checker's account of its checks (with a checker), and what the
    run left for the core's judge_evaluated_run (the channel's problems, the names its report and
    the compiled capture found changed, how the process ended without a report). The report comes
    on the authenticated channel (B11): anything on it gpumeter's compiled code did not send, a
    second report or a violation (a measurement or a report asked for by code not gpumeter's)
    makes the candidate tampered, whatever else it did. The report's ``channel`` key is set here:
    what the child's compiled code added to it."""
    from gpumeter import _child, _gpumeter  # with the extension, as every use of gpumeter here
    log = os.path.join(folder, "output.log")
    warm = limits.warm
    pass_fds: Tuple[int, ...] = ()
    order = dict(order, evaluator=os.getpid())  # the run ends with this process (_child.end_with)
    # The run's channel key, made here: the checker verifies every check's tag with a key derived
    # from it (issue 50: a check the candidate sends itself has no tag the checker accepts).
    channel_key = os.urandom(32)
    if checker is not None:
        check_key = _gpumeter.evaluation_check_key(channel_key)
        order = dict(order, checker_fd=checker.begin(str(order.get("name", "")), check_key))
        pass_fds = (int(order["checker_fd"]),)
    try:
        ended = _child.run([python, "-m", "gpumeter._evaluate_child"], env=env,
                           timeout_s=timeout_s, log=log, order=order, new_session=True,
                           pass_fds=pass_fds, channel=True, channel_key=channel_key,
                           started=checker.started if checker is not None else None,
                           starter=warm.start if warm is not None and warm.ready else None,
                           # B11: a run that stopped or killed the checker ends at once (its
                           # checks would wait forever); the checker's account names it.
                           watch=checker.state if checker is not None else None,
                           **limits.of_run())
    except _child.StartInterrupted as e:
        # The warm start failed in the middle of this run's fork: its checker's run is ended and
        # its account set aside (what the forked process checked is no run of this candidate),
        # and the candidate is not measured, by a cause not its own.
        if checker is not None:
            checker.end()
        interrupted = {"end": "runner_not_started", "end_why": str(e)}
        return {**_judged_run(interrupted)[0], "log": log}, None, None, interrupted
    except OSError as e:
        not_started = {"end": "runner_not_started",
                       "end_why": f"cannot start the Python interpreter {python!r}: {e.strerror}"}
        return {**_judged_run(not_started)[0], "log": log}, None, \
            checker.end() if checker is not None else None, not_started
    account = checker.end() if checker is not None else None
    line: Dict[str, Any] = {"seconds": round(ended.seconds, 3), "log": log}
    carried = ended.channel
    listed = (ended.report or {}).get("tampered")
    run: Dict[str, Any] = {
        "channel_problems": list(carried.problems or []) if carried is not None else [],
        "reported_tampered": [str(t) for t in listed] if isinstance(listed, list) else [],
        "watched": list(carried.watched or []) if carried is not None else []}
    if ended.over_memory is not None:
        run.update(end="ended_without_report", end_why=_over_memory(ended.over_memory, limits))
    elif ended.rc is None:
        run.update(end="timed_out", end_why=f"did not finish in {timeout_s:g} s and was killed")
    elif ended.report is None or carried is None:
        run.update(end="ended_without_report",
                   end_why=f"its process {_child.end_words(ended.rc)} without a report; its "
                           f"output ends: {_tail(log)}")
    if run["channel_problems"] or "end" in run:
        line.update(_judged_run(run)[0])
        return line, None, account, run
    assert carried is not None  # a run without its channel ended without a report, above
    report = dict(ended.report or {})
    report["channel"] = {"records": carried.records, "measurements": carried.measurements}
    return line, report, account, run


def _judged_run(run: Dict[str, Any]) -> Tuple[Dict[str, Any], str]:
    """The core's verdict on a run from what it left (judge_evaluated_run: the channel, the
    process's end, its tamper check, the checker's account, its error, its records, in that
    order), as the fields of its JSON line, and which of them decided; {} where nothing decided
    (no record given)."""
    import gpumeter
    core = gpumeter._gpumeter
    args = dict(run)
    if "end" in args:
        args["end"] = getattr(core.RunEnd, args["end"])
    v = core.judge_evaluated_run(**args)
    if v.source == "judged" and args.get("record") is None:
        return {}, v.source
    line = _verdict_line(v.verdict)
    if v.changed:  # what is named as changed, where tampered
        line.update(tampered=list(v.changed))
    if v.process_end:
        line["process_end"] = v.process_end
    if v.error:
        line["error"] = v.error
    return line, v.source


def _checker_verdict(account: Optional[Dict[str, Any]],
                     records: Sequence[Any] = ()) -> Optional[Dict[str, Any]]:
    """What the checker's account of a run says before its records are judged (the core's
    judge_checker_account): tampered, wrong or refused, or None."""
    if account is None:
        return None
    import gpumeter
    timed = account.get("timed_checks") or {}
    v = gpumeter._gpumeter.judge_checker_account(
        [(str(k), int(n)) for k, n in timed.items()], str(account.get("mismatch") or ""),
        str(account.get("problem") or ""), list(records))
    if v is None:
        return None
    return {"verdict": v.verdict, "correct": v.correct, "why": v.why}


def _reported_records(folder: str, result: Dict[str, Any]) -> Tuple[Dict[str, str], str, str]:
    """The records the report's compiled part says were written (never a listing of the
    folder): each inside ``folder`` (``_named_record``), each file's SHA-256 the one written.
    Returns {"record": path, "end_to_end": path} (where written), "" and "", else {}, the
    problem's sentence and its kind, a RecordTrouble of the core's (which says whether it is
    tampering): elsewhere, unreadable, changed or miscounted."""
    import hashlib
    root = os.path.realpath(folder)
    found: Dict[str, List[str]] = {"record": [], "end_to_end": []}
    records = result.get("channel", {}).get("records", [])
    for r in records:
        path, why = _named_record(folder, r["path"])
        if path is None:
            return {}, why, "elsewhere"
        try:
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
        except OSError as e:
            return {}, f"its record {r['path']} cannot be read: {e.strerror}", "unreadable"
        if digest != r["sha256"]:
            return {}, "its record changed after gpumeter wrote it", "changed"
        where = os.path.dirname(path)
        if where == root:
            found["record"].append(path)
        elif where == os.path.join(root, "end-to-end"):
            found["end_to_end"].append(path)
        else:
            return {}, f"its report names a record outside its folder: {r['path']}", "elsewhere"
    if len(found["record"]) != 1 or len(found["end_to_end"]) > 1:
        return {}, (f"its report names {len(found['record'])} records in its folder, not 1"
                    if len(found["record"]) != 1 else
                    f"its report names {len(found['end_to_end'])} end-to-end records, not 1"), \
            "miscounted"
    out = {"record": found["record"][0]}
    if found["end_to_end"]:
        out["end_to_end"] = found["end_to_end"][0]
    return out, "", ""


def _error_facts(result: Dict[str, Any]) -> Dict[str, Any]:
    """The error a run's report says it failed with, for the core's judge_evaluated_run: its
    name, whose code raised it, and its sentence (who raised it, the error, its message)."""
    error_type = str(result.get("type", ""))
    who = str(result.get("who", "candidate"))
    whose = {"reference": "the reference raised: ", "inputs": "the input generator raised: ",
             "evaluator": f"{result.get('step')}: ",
             "internal": "gpumeter failed (not the candidate): "}.get(who, "")
    return {"error": error_type, "error_whose": _WHOSE.get(who, "candidate"),
            "error_why": f"{whose}{error_type}: {result.get('message', '')}"}


def _named_record(folder: str, path: Any) -> Tuple[Optional[str], str]:
    """The record gpumeter's report named, where it may be: a file inside ``folder`` once every
    link is resolved. The folder is never listed, so a file a candidate dropped there is never
    read."""
    if not isinstance(path, str) or not path:
        return None, "its report named no record"
    real, inside = os.path.realpath(path), os.path.realpath(folder)
    if real == inside or os.path.commonpath([real, inside]) != inside:
        return None, f"its report names a record outside its folder: {path}"
    if not os.path.isfile(real):
        return None, f"the record its report named is not there: {path!r}"
    return real, ""


def _alone_record(alone: Dict[str, Any]) -> Tuple[Any, Optional[Dict[str, Any]]]:
    """The reference alone's Record, read once, right after it was measured, and kept here: every
    candidate is judged against this object, so deleting or altering its file changes nothing.
    Else None and the line saying why it failed."""
    import gpumeter
    path = alone.get("record")
    if path is None:
        return None, alone
    try:
        return gpumeter.read_record(path), None
    except (gpumeter.Error, OSError) as e:
        return None, {**alone, **_run_ended("reference_alone_failed",
                                            f"its record cannot be read: {e}")}


def _account(account: Optional[Dict[str, Any]]) -> Any:
    """The checker's account as the core's judge_evaluated_run takes it, or None."""
    if account is None:
        return None
    timed = account.get("timed_checks") or {}
    return ([(str(k), int(n)) for k, n in timed.items()], str(account.get("mismatch") or ""),
            str(account.get("problem") or ""))


def measure_reference_alone(*, reference: Dict[str, str], inputs: Dict[str, str],
                            outputs: Optional[List[int]], case: str, options: Dict[str, Any],
                            folder: str, timeout_s: float, python: str,
                            tolerated: Optional[List[int]], env: Dict[str, str],
                            limits: RunLimits = RunLimits(),
                            checker: Optional[Any] = None) -> Dict[str, Any]:
    """B11: the reference measured in a process with no candidate code, once per evaluation: what
    every candidate's reference is held to (a slowed reference is tampering), and what its fresh
    inputs and checks cost where nothing of a candidate's can reach them."""
    order = {"mode": "alone", "reference": reference, "inputs": inputs, "name": "reference",
             "outputs": outputs, "case": case, "options": options, "out": folder,
             "tolerated": tolerated}
    line, result, account, _ = _spawn_child(order, folder, timeout_s, python, env, limits,
                                            checker)
    if result is None:
        return line
    checked = _checker_verdict(account)
    if checked is not None:
        line.update(_run_ended("reference_alone_failed", str(checked["why"])))
        return line
    if not result.get("ok"):
        # Whoever raised it, no candidate ran here.
        line.update(_run_ended("reference_alone_failed", _error_facts(result)["error_why"]))
        return line
    records, why, trouble = _reported_records(folder, result)
    if not records:
        line.update(_judged_run({"record_trouble": trouble, "record_trouble_why": why})[0])
        return line
    path = records["record"]
    import gpumeter
    try:
        checked = _checker_verdict(account, [gpumeter.read_record(path)])
    except gpumeter.Error as e:
        checked = {"why": f"its record cannot be read: {e}"}
    if checked is not None:
        line.update(_run_ended("reference_alone_failed", str(checked["why"])))
        return line
    line["record"] = path
    return line


def evaluate_python(candidate: Dict[str, str], *, reference: Dict[str, str],
                    inputs: Dict[str, str], outputs: Optional[List[int]], case: str,
                    options: Dict[str, Any], folder: str, timeout_s: float,
                    python: str, reference_alone: Any = None,
                    tolerated: Optional[List[int]] = None,
                    env: Optional[Dict[str, str]] = None,
                    limits: RunLimits = RunLimits(),
                    checker: Optional[Any] = None) -> Dict[str, Any]:
    """A Python candidate's verdict: its run's sources (the report channel, its process's end,
    its tamper check, the checker's account, its error, its records) judged by the core in one
    order (judge_evaluated_run); its records are read once, and only where nothing before them
    decided."""
    name = candidate["name"]
    order = {"reference": reference, "inputs": inputs, "candidate": candidate, "name": name,
             "outputs": outputs, "case": case, "options": options, "out": folder,
             "tolerated": tolerated, "end_to_end": True}
    line, result, account, run = _spawn_child(order, folder, timeout_s, python,
                                              env if env is not None else _child_environment(),
                                              limits, checker)
    if account is not None:
        # What the checker saw of this run, beside what the run's own record says.
        line["checker"] = {k: account.get(k) for k in ("timed_checks", "untimed_checks",
                                                       "mismatch", "problem")}
    run["checker"] = _account(account)
    if result is not None and not result.get("ok"):
        run.update(_error_facts(result))
    decided, source = _judged_run(run)
    if decided:
        line.update(decided)
        fields = (result or {}).get("fields")
        if source == "error" and isinstance(fields, dict) and fields:
            line["error_fields"] = fields
        return line
    assert result is not None  # a run without a report was decided above
    records, why, trouble = _reported_records(folder, result)
    if not records:
        line.update(_judged_run({**run, "record_trouble": trouble, "record_trouble_why": why})[0])
        return line
    path = records["record"]
    line["record"] = path
    end_to_end = records.get("end_to_end")
    if isinstance(end_to_end, str):
        line["end_to_end_record"] = end_to_end
    import gpumeter
    try:
        run.update(record=gpumeter.read_record(path), candidate=name,
                   end_to_end=gpumeter.read_record(end_to_end)
                   if isinstance(end_to_end, str) else None,
                   reference_alone=_read(reference_alone))
    except (gpumeter.Error, OSError) as e:
        run.update(record_unreadable=str(e))
    line.update(_judged_run(run)[0])
    return line


def evaluate_program(program: Dict[str, Any], *, folder: str, timeout_s: float,
                     reference: str, limits: RunLimits = RunLimits()) -> List[Dict[str, Any]]:
    """A program's verdicts: one per implementation its record compares with ``reference``."""
    from gpumeter import _child  # with the extension, as every use of gpumeter here
    log = os.path.join(folder, "output.log")
    try:
        ended = _child.run(program["argv"] + ["--out", folder], env=os.environ,
                           timeout_s=timeout_s, log=log, new_session=True, **limits.of_run())
        rc, seconds = ended.rc, ended.seconds
    except OSError as e:
        return [{"candidate": program["name"], "log": log,
                 **_run_ended("program_not_started",
                              f"cannot start {program['argv'][0]!r}: {e.strerror}")}]
    base: Dict[str, Any] = {"seconds": round(seconds, 3), "log": log}
    if ended.over_memory is not None:
        return [{**base, "candidate": program["name"],
                 **_run_ended("ended_without_report", _over_memory(ended.over_memory, limits))}]
    if rc is None:
        return [{**base, "candidate": program["name"],
                 **_run_ended("timed_out", f"did not finish in {timeout_s:g} s and was killed")}]
    records = sorted(f for f in os.listdir(folder)
                     if f.startswith("gpumeter-") and f.endswith(".json")
                     and not f.endswith(".partial.json"))
    if len(records) != 1:
        return [{**base, "candidate": program["name"],
                 **_run_ended("program_left_no_record",
                              f"the program {_child.end_words(rc)} and left {len(records)} records (not 1); "
                              f"its output ends: {_tail(log)}")}]
    path = os.path.join(folder, records[0])
    import gpumeter
    try:
        record = gpumeter.read_record(path)
    except gpumeter.Error as e:
        return [{**base, "candidate": program["name"], "record": path,
                 **_run_ended("record_unreadable", f"its record cannot be read: {e}")}]
    lines = []
    names = []
    for r in record.results:
        if r.name != reference and (r.case_name, r.name) not in names:
            names.append((r.case_name, r.name))
    for f in record.failures:
        key = (f.row.case_name, f.row.implementation)
        if f.row.implementation != reference and key not in names:
            names.append(key)
    several = len(names) > 1
    for case_name, impl in names:
        label = f"{program['name']}/{case_name}/{impl}" if several else program["name"]
        failure = next((f for f in record.failures if f.row.case_name == case_name
                        and f.row.implementation in (impl, "")), None)
        if failure is not None:
            verdict, correct = _from_error(failure.error, "gpumeter")
            lines.append({**base, "candidate": label, "verdict": verdict, "correct": correct,
                          "why": f"{failure.error}: {failure.message}", "record": path})
            continue
        judged = judge_record(path, impl, reference, case=case_name)
        lines.append({**base, "candidate": label, "record": path, **judged})
    if not lines:
        lines.append({**base, "candidate": program["name"], "record": path,
                      **_run_ended("nothing_to_judge",
                                   f"its record holds no implementation besides {reference!r}")})
    return lines


# --- the command ----------------------------------------------------------------------------

_KEYS = ("candidate", "correct", "verdict", "why", "speedup", "interval", "sentence",
         "checked_iterations", "ledger", "record", "log", "seconds")


def _ordered(line: Dict[str, Any]) -> Dict[str, Any]:
    out = {k: line.get(k) for k in _KEYS}
    out.update({k: v for k, v in line.items() if k not in out})
    return out


def _inert(text: Any) -> str:
    """Text from a candidate (its name, a message) as a terminal shows it: the core's rule, so a
    name holding a newline or an escape sequence cannot forge a line."""
    import gpumeter
    return gpumeter._gpumeter.inert_text(str(text))


def _table(lines: Sequence[Dict[str, Any]]) -> str:
    import gpumeter
    lines = [dict(x, candidate=_inert(x["candidate"]), why=_inert(x.get("why", "")))
             for x in lines]
    width = max([len("candidate")] + [len(str(x["candidate"])) for x in lines])
    rows = [f"{'candidate':<{width}}  {'verdict':<13}  {'correct':<7}  speedup"]
    for x in lines:
        s = x.get("speedup")
        iv = x.get("interval")
        shown = "-" if s is None else f"{s:.3g}x" + (
            f" ({iv[0]:.3g}x to {iv[1]:.3g}x)" if iv else "")
        why = "" if gpumeter._gpumeter.verdict_compares(str(x["verdict"])) else \
            "  " + str(x.get("why", ""))[:100]
        rows.append(f"{x['candidate']:<{width}}  {x['verdict']:<13}  "
                    f"{'yes' if x.get('correct') else 'no':<7}  {shown}{why}")
    return "\n".join(rows)


class _HelpFormatter(argparse.HelpFormatter):
    """Lines of 100 columns, as every gpumeter --help (whatever the terminal's width), and
    "(default 600)" never cut at its space."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=100, max_help_position=32)

    def _split_lines(self, text: str, width: int) -> List[str]:
        glued = text.replace("(default ", "(default\0")
        return [line.replace("\0", " ") for line in super()._split_lines(glued, width)]


# Evaluate's own default of a shared option whose spec has none (the folder its records go in).
_OWN_DEFAULTS = {"--out": "gpumeter-evaluate"}


def _add_shared_options(p: argparse.ArgumentParser) -> None:
    """--timing, --budget, --precision, --max-time, --device and --out: the options every front
    end offers by one meaning, added from the core's specs (option_spec.hpp, through the
    extension) with their help, value and default (--out's, which the spec leaves to each front
    end, is evaluate's); check_options reads their values by the core's reader. Nothing of them is
    spelled here: ``tests/python/test_cli_help.py`` fails on an option added otherwise."""
    from gpumeter import _gpumeter  # the specs are the core's
    for spec in _gpumeter.option_specs():
        default = spec["default"] or _OWN_DEFAULTS.get(spec["name"], "")
        shown = spec["help"] + (f" (default {default})" if default else "")
        extra: Dict[str, Any] = {"metavar": spec["metavar"]}
        if spec["name"] == "--timing":  # the session's names, shown; given or not, one of them
            extra = {"choices": _gpumeter.timing_names(), "default": spec["default"]}
        elif spec["name"] in ("--device", "--out"):  # read as text; given or not, a value
            extra["default"] = default
        p.add_argument(spec["name"], help=shown.replace("%", "%%"), **extra)


def _parser() -> argparse.ArgumentParser:
    from gpumeter import _gpumeter  # the exit codes' text and the shared options are the core's
    p = _Parser(
        prog="gpumeter evaluate",
        description="Judge candidates against a reference: each runs in a process of its own "
                    "on fresh inputs, its timed answers checked; the verdict is read from its "
                    "record here. One JSON line per candidate on stdout (or --jsonl), a table "
                    "on stderr.",
        epilog=_gpumeter.exit_codes_help("evaluate") + " Candidates run one after another: on "
               "one GPU the device lock serializes measurements, so there is no --jobs.",
        formatter_class=_HelpFormatter)
    p.add_argument("candidates", nargs="*", metavar="[NAME=]MODULE:FUNCTION",
                   help="Python candidates: module:function or path/to/file.py:function")
    p.add_argument("--candidates", dest="candidates_file", metavar="FILE",
                   help="more Python candidates, one [NAME=]MODULE:FUNCTION or "
                        "[NAME=]path/to/file.py:FUNCTION a line (blank lines and # comments "
                        "skipped), after those of the command line")
    p.add_argument("--reference", metavar="MODULE:FUNCTION",
                   help="the reference implementation (Python candidates need it)")
    p.add_argument("--inputs", metavar="MODULE:FUNCTION",
                   help="the fresh-input generator: inputs(seed) returns the arguments of one "
                        "call, a pure function of the seed (Python candidates need it)")
    p.add_argument("--outputs", metavar="I,J",
                   help="indices of the arguments the implementations write their output into "
                        "(poisoned before every call); default: the return value")
    p.add_argument("--program", action="append", default=[], metavar="'[NAME=]CMD ARGS'",
                   help="a program candidate: a command that writes a gpumeter record when "
                        "given --out DIR, whose case holds an implementation named by "
                        "--program-reference (repeatable)")
    p.add_argument("--program-reference", default="reference", metavar="NAME",
                   help="the implementation a program's record compares with (default "
                        "reference)")
    p.add_argument("--jsonl", metavar="FILE",
                   help="write the JSON lines here, not stdout: the batch's journal, each line "
                        "synced as it comes")
    p.add_argument("--resume", action="store_true",
                   help="with --jsonl: run only the candidates without a line in it (a batch "
                        "killed on a candidate runs that one again)")
    # The helps of options evaluate shares with other front ends are the core's (one meaning).
    meanings = _gpumeter.option_meanings()
    p.add_argument("--shard", metavar="K/N", help=meanings["--shard"].replace("%", "%%"))
    p.add_argument("--merge", nargs="+", metavar="JOURNAL",
                   help="run nothing: merge the shards' journals into one batch's lines (in the "
                        "batch's order, any candidate without a line named, where the candidates "
                        "are given)")
    p.add_argument("--start", default="warm", choices=("warm", "cold"),
                   help="warm: fork each candidate's process from one that imported gpumeter, "
                        "the framework and the evaluator's modules (no CUDA context), cold where "
                        "that cannot serve (said on the first line); cold: a fresh interpreter "
                        "each (default warm)")
    timeout = f"{_gpumeter.PROCESS_LIMIT_DEFAULT_SECONDS:g}"  # the core's, as phases()'
    p.add_argument("--timeout", default=timeout, metavar="T",
                   help="how long a candidate's process may run before it is killed: 10s, "
                        f"500ms or bare seconds (default {timeout})")
    p.add_argument("--memory", metavar="SIZE",
                   help="host memory a candidate's processes may hold (resident, summed over "
                        "every process it started, read every 0.15 s) before they are all killed "
                        "and it is crashed: 8G, 500M (default: half of this machine's physical "
                        "memory)")
    p.add_argument("--name", default="evaluate",
                   help="the case's name in the records (default evaluate)")
    _add_shared_options(p)
    # The defaults are the core's (default_tolerance.hpp), shown as Python writes them.
    p.add_argument("--rtol", type=float, default=_gpumeter.DEFAULT_RTOL,
                   help="relative tolerance of the answers' check "
                        f"(default {_gpumeter.DEFAULT_RTOL:g})")
    p.add_argument("--atol", type=float, default=_gpumeter.DEFAULT_ATOL,
                   help="absolute tolerance of the answers' check "
                        f"(default {_gpumeter.DEFAULT_ATOL:g})")
    p.add_argument("--count-copies", action="store_true",
                   help=meanings["--count-copies"].replace("%", "%%"))
    p.add_argument("--flops", type=float,
                   help="floating-point operations of one call: TFLOP/s in the records")
    p.add_argument("--bytes", type=float, help="bytes one call moves: TB/s in the records")
    p.add_argument("--python", default=sys.executable,
                   help="the interpreter of the Python candidates' processes (default: this "
                        "one)")
    return p


def _options(args: argparse.Namespace) -> Dict[str, Any]:
    """The candidates' options, from values check_options has read by the core's rules."""
    options: Dict[str, Any] = {"timing": args.timing, "rtol": args.rtol, "atol": args.atol,
                               "count_copies": args.count_copies, "device": args.device}
    if args.budget is not None:
        options["budget"] = args.budget
    for key in ("precision", "flops", "bytes"):
        if getattr(args, key) is not None:
            options[key] = getattr(args, key)
    if args.max_time is not None:
        options["max_time_s"] = args.max_time
    return options


def _exit_code(name: str) -> int:
    """One of the command line's exit codes (exit_codes.hpp), by its name there."""
    import gpumeter
    return int(getattr(gpumeter._gpumeter, name))


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
        return _main(args)
    except SystemExit as e:  # argparse: --help exits 0
        return int(e.code) if isinstance(e.code, int) else _exit_code("EXIT_USAGE")
    except UsageError as e:
        return _usage(e)
    except Exception as e:  # noqa: BLE001  (evaluate's own failure: said, never a verdict)
        batch = sys.modules.get("gpumeter._batch")
        if batch is not None and isinstance(e, batch.BatchError):
            return _usage(e)  # a batch that cannot be run as asked: nothing was run
        return _internal_error()


def _usage(e: Exception) -> int:
    # One line naming the argument, one pointing at the help, as every gpumeter command.
    sys.stderr.write(f"gpumeter evaluate: {' '.join(str(e).split())}\n"
                     "Run 'gpumeter evaluate --help' for usage.\n")
    return _exit_code("EXIT_USAGE")


def _internal_error() -> int:
    """A failure of evaluate itself: its traceback on stderr and exit 3 (EXIT_INTERNAL). The lines
    of the candidates judged so far stand: each was written and flushed as it came."""
    sys.stderr.write(traceback.format_exc())
    sys.stderr.write("gpumeter evaluate: internal error (the traceback above); the candidates' "
                     "lines written before it stand, the others have no verdict\n")
    sys.stderr.flush()
    try:
        return _exit_code("EXIT_INTERNAL")
    except Exception:  # noqa: BLE001  (the extension itself may be what failed)
        return 3


def _start_warm(args: argparse.Namespace, reference: Dict[str, str], inputs: Dict[str, str],
                env: Dict[str, str], root: str) -> Optional[Any]:
    """The warm start's server, started (its imports under way) unless --start cold: its word
    is waited for by ``_say_start``, after the checker started beside it."""
    if args.start == "cold":
        return None
    from gpumeter import _warm  # with the extension, as every use of gpumeter here
    return _warm.WarmStart({"reference": reference, "inputs": inputs}, python=args.python,
                           env=env, log=os.path.join(root, "warm-start.log"),
                           note=lambda text: sys.stderr.write(f"gpumeter evaluate: {text}\n"))


def _say_start(warm: Optional[Any], args: argparse.Namespace) -> bool:
    """How the candidates' processes start, said before the first runs: warm (forked from the
    server, which is then gpumeter's own, never a run's leftover: True), or cold and why."""
    from gpumeter import _warm  # with the extension, as every use of gpumeter here
    why = "--start cold"
    if warm is not None:
        reaper = _warm.reaper_problem()
        if reaper:
            warm.close()
            why = f"the warm start cannot serve: {reaper}"
        elif warm.wait_ready(args.timeout):
            sys.stderr.write("gpumeter evaluate: warm start: each candidate's process is forked "
                             "from one that imported " +
                             ", ".join(["gpumeter"] + [m for m in warm.modules if m != "gpumeter"]
                                       [:12]) + " and no CUDA context\n")
            return True
        else:
            why = f"the warm start cannot serve: {warm.why}"
    sys.stderr.write(f"gpumeter evaluate: cold start (a fresh interpreter for each candidate): "
                     f"{why}\n")
    return False


def _merge(args: argparse.Namespace) -> int:
    """``--merge``: the journals of a batch's shards as one batch's lines, run nothing."""
    from gpumeter import _batch, _wire  # with the extension, as every use of gpumeter here
    names: List[str] = []
    candidates = [parse_python_spec(c) for c in args.candidates] + \
        _file_candidates(args.candidates_file) + [parse_program(p) for p in args.program]
    _batch.refuse_duplicates([(c["name"], c["text"]) for c in candidates])
    names = [c["name"] for c in candidates]
    if args.jsonl and any(os.path.exists(j) and os.path.samefile(j, args.jsonl)
                          for j in args.merge if os.path.exists(args.jsonl)):
        raise UsageError(f"--jsonl {args.jsonl!r} is one of the journals merged")
    lines, missing = _batch.merge(args.merge, names)
    try:
        sink: TextIO = open(args.jsonl, "w") if args.jsonl else sys.stdout
    except OSError as e:
        raise UsageError(f"cannot write {e.filename}: {e.strerror}") from None
    for line in lines:
        _batch.append(sink, _wire.jsonl_line(line))
    if sink is not sys.stdout:
        sink.close()
    sys.stderr.write(_table(lines) + "\n")
    sys.stderr.write(f"gpumeter evaluate: merged {len(lines)} lines from {len(args.merge)} "
                     "journals\n")
    if missing:
        sys.stderr.write(f"gpumeter evaluate: {len(missing)} candidates of the batch have no line "
                         f"({', '.join(_inert(m) for m in missing[:5])}"
                         f"{' ...' if len(missing) > 5 else ''}): run their shard again with "
                         "--resume\n")
        return _exit_code("EXIT_FAILED")
    import gpumeter
    return int(gpumeter._gpumeter.evaluation_exit_code([str(x["verdict"]) for x in lines]))


def _tampering(line: Dict[str, Any], changed: List[str]) -> Dict[str, Any]:
    """A run's line where it changed what no candidate may (a watched file, the journal): the
    core's verdict of tampering seen, naming what changed; the run's seconds and log kept."""
    kept: Dict[str, Any] = {k: line[k] for k in ("candidate", "seconds", "log") if k in line}
    return dict(kept, **_run_ended("tampering_seen", "; ".join(changed[:4])), tampered=changed)


def _watched_files(reference: Optional[Dict[str, str]], inputs: Optional[Dict[str, str]],
                   candidates: Sequence[Dict[str, str]]) -> Any:
    """The files no run may change (``_guard.Files``): gpumeter's package, the reference's and
    the input generator's sources, every candidate's source, as they are now."""
    import compileall
    import gpumeter
    from gpumeter import _guard, _locate
    package = os.path.dirname(os.path.abspath(gpumeter.__file__))
    named = [(path, whose) for spec, whose in ((reference, "the reference's"),
                                               (inputs, "the input generator's"))
             for path in (_locate.sources(spec) if spec is not None else [])]
    named += [(path, f"candidate {c['name']}'s") for c in candidates
              for path in _locate.sources(c)]
    # Bytecode of this interpreter written now where it is missing or stale (where the folder may
    # be written): a process of the user importing them for the first time while the batch runs
    # (another shard's evaluate, before its own start) then writes none of its own.
    compileall.compile_dir(package, quiet=2)
    for path, _ in named:
        compileall.compile_file(path, quiet=2)
    files = _guard.Files()
    files.add_folder(package, "gpumeter's")
    for path, whose in named:
        files.add(path, whose)
    return files


def _serving_checker(checker: Any, limits: RunLimits, tolerated: Optional[List[int]],
                     device: int) -> Tuple[Optional[Any], RunLimits, Optional[List[int]], str]:
    """The checker, pinged before a run (B11): itself where it answers; else a new one started
    as it was (with the processes gpumeter keeps and tolerates on the device updated), or None
    and why where it cannot start."""
    from gpumeter import _checker  # with the extension, as every use of gpumeter here
    problem = checker.ping()
    if not problem:
        return checker, limits, tolerated, ""
    sys.stderr.write(f"gpumeter evaluate: gpumeter's checker {problem} after the last run: "
                     "restarted\n")
    limits = limits._replace(keep=limits.keep - {checker.process.pid})
    try:
        checker = checker.restarted()
    except _checker.CheckerFailed as e:
        return None, limits, tolerated, (f"gpumeter's checker {problem} and could not be "
                                         f"restarted: {e.step}: {e.error}: {e.message}")
    limits = limits._replace(keep=limits.keep | {checker.process.pid})
    if tolerated is not None:
        import gpumeter
        tolerated = gpumeter._gpumeter.device_processes(device)
    return checker, limits, tolerated, ""


def _main(args: argparse.Namespace) -> int:
    _user_folders_last()
    # No bytecode written by evaluate either: a .pyc that appears beside a watched source is then
    # a candidate's (_guard).
    sys.dont_write_bytecode = True
    if args.merge:
        return _merge(args)
    python_candidates = [parse_python_spec(c) for c in args.candidates] + \
        _file_candidates(args.candidates_file)
    if not python_candidates and not args.program:
        raise UsageError("no candidates: give module:function candidates, --candidates FILE or "
                         "--program")
    programs = [parse_program(p) for p in args.program]
    from gpumeter import _batch  # with the extension, as every use of gpumeter here
    reference = inputs = None
    if python_candidates:
        if not args.reference or not args.inputs:
            raise UsageError("Python candidates need --reference and --inputs (the fresh-input "
                             "generator: without fresh inputs a memoized answer passes)")
        reference = parse_python_spec(args.reference)
        inputs = parse_python_spec(args.inputs)
    outputs: Optional[List[int]] = None
    if args.outputs:
        try:
            outputs = [int(x) for x in args.outputs.split(",")]
        except ValueError:
            raise UsageError(f"--outputs {args.outputs!r}: expected indices such as 2 or "
                             "1,2") from None
        if any(i < 0 for i in outputs):
            raise UsageError(f"--outputs {args.outputs!r}: indices are >= 0")
    from gpumeter import _evaluate_args
    _evaluate_args.check_options(args)  # every value by its rule, before anything runs
    options = _options(args)
    memory = _memory_limit(args.memory)
    # B11: a name is a candidate's key in the journal, a merge and the table: one each.
    _batch.refuse_duplicates([(c["name"], c["text"]) for c in python_candidates + programs])
    names = [c["name"] for c in python_candidates] + [p["name"] for p in programs]
    if "reference" in names[:len(python_candidates)]:
        raise UsageError("a candidate is named 'reference', the reference's name: rename it "
                         "with NAME=")
    batch = _batch.identity(args, reference, inputs, outputs)  # each line says its batch
    previous, batch_notes = _plan_batch(args, python_candidates, programs, batch)
    names = [c["name"] for c in python_candidates] + [p["name"] for p in programs]
    if python_candidates:
        # Every function named is found where the candidates' interpreter imports from, none of
        # their code run (guarantee 13 stands): a typo is a bad argument, not a crashed verdict.
        _evaluate_args.locate(
            _evaluate_args.spec_arguments(python_candidates, reference, inputs),
            python=args.python, env=_child_environment(), timeout_s=args.timeout)
    if python_candidates:
        # The session's word, before anything runs: GPU timing asked for and no usable GPU
        # ends here (exit 5, one line); the host clock taken for want of one is said first.
        import gpumeter
        try:
            no_gpu, fallbacks = gpumeter._gpumeter.timing_plan(args.timing, args.device)
        except gpumeter.ConfigError as e:
            raise UsageError(str(e)) from None
        if no_gpu:
            sys.stderr.write(f"gpumeter evaluate: {no_gpu}\n")
            return _exit_code("EXIT_NO_DEVICE")
        for note in fallbacks:
            sys.stderr.write(f"gpumeter evaluate: {note}\n")
    for c, n in zip(python_candidates, names):
        c["name"] = n
    for p, n in zip(programs, names[len(python_candidates):]):
        p["name"] = n
    try:
        os.makedirs(args.out, exist_ok=True)
        # B11: the journal held to what evaluate wrote, checked before each line is appended.
        journal = _batch.Journal(args.jsonl) if args.jsonl else None
    except OSError as e:
        raise UsageError(f"cannot write {e.filename}: {e.strerror}") from None
    root = _evaluation_root(os.path.abspath(args.out))
    _hold_runs(memory)
    limits = RunLimits(memory=memory, reap=True)
    from gpumeter import _wire  # with the extension, as every use of gpumeter here
    # The journal's lines of this batch's candidates judged before: they stand, in the table and
    # the exit code, and are not run again.
    lines: List[Dict[str, Any]] = list(previous)
    progress = _batch.Progress(len(python_candidates) + len(programs))

    def emit(line: Dict[str, Any]) -> None:
        changed = journal.check() if journal is not None else ""
        if changed:
            # The journal changed while this candidate ran: its doing (nothing else of this
            # batch runs then); the file is put back, and the candidate is tampered.
            line = _tampering(line, [f"{changed} while it ran (put back)"])
        line = _ordered({**line, _wire.JOURNAL_BATCH: batch})
        lines.append(line)
        if journal is not None:
            journal.write(_wire.jsonl_line(line))
        else:
            _batch.append(sys.stdout, _wire.jsonl_line(line))
        progress.clear()
        progress.finished(_inert(line["candidate"]), str(line["verdict"]))
        shown = "" if line.get("speedup") is None else f" {line['speedup']:.3g}x"
        sys.stderr.write(f"gpumeter evaluate: {_inert(line['candidate'])}: "
                         f"{line['verdict']}{shown}\n")

    index = 0
    env = _child_environment()
    held = None
    tolerated: Optional[List[int]] = None
    from gpumeter import _gpumeter  # "host" and "host-clock" are one timing: the session says
    if python_candidates and not _gpumeter.timing_is_host(args.timing):
        import gpumeter
        # B11: the processes on the device before any candidate exists; the device lock is held
        # for the whole evaluation (its children inherit it), so none that comes later is
        # another run's.
        tolerated = gpumeter._gpumeter.device_processes(args.device)
        if tolerated is not None:
            held = gpumeter._gpumeter.hold_device_lock(args.device, False)
            env["GPUMETER_LOCK_HELD"] = f"{os.getpid()}:{held.path}"
            tolerated = gpumeter._gpumeter.device_processes(args.device)
    checker = None
    warm = None
    try:
        if python_candidates:
            assert reference is not None and inputs is not None
            warm = _start_warm(args, reference, inputs, env, root)
        alone_record: Any = None
        alone_failed: Optional[Dict[str, Any]] = None
        if python_candidates:
            assert reference is not None and inputs is not None
            from gpumeter import _checker  # with the extension, as every use of gpumeter here
            # B11: the checker first, before the reference alone and any candidate: every
            # checked answer is checked there, where no candidate code runs.
            try:
                checker = _checker.Checker(
                    {"reference": reference, "inputs": inputs, "outputs": outputs,
                     "rtol": args.rtol, "atol": args.atol}, python=args.python, env=env,
                    log=os.path.join(root, "checker.log"), timeout_s=args.timeout)
            except _checker.CheckerFailed as e:
                alone_failed = {"why": f"gpumeter's checker, {e.step}: {e.error}: {e.message}",
                                "log": os.path.join(root, "checker.log")}
            if checker is not None:
                # gpumeter's own, never a leftover
                limits = limits._replace(keep=limits.keep | {checker.process.pid})
            if checker is not None and checker.tolerance_problem:
                raise UsageError(f"--atol: {checker.tolerance_problem}")
            if checker is not None and tolerated is not None:
                # The checker has its context on the device: one of the evaluation's own.
                tolerated = gpumeter._gpumeter.device_processes(args.device)
            if _say_start(warm, args):
                limits = limits._replace(warm=warm)
        for note in batch_notes:  # after how the candidates start, said first
            sys.stderr.write(f"gpumeter evaluate: {note}\n")
        batch_notes = []
        if python_candidates and alone_failed is None:
            assert reference is not None and inputs is not None
            folder = os.path.join(root, "000-reference-alone")
            os.makedirs(folder)
            alone = measure_reference_alone(
                reference=reference, inputs=inputs, outputs=outputs, case=args.name,
                options=options, folder=folder, timeout_s=args.timeout, python=args.python,
                tolerated=tolerated, env=env, limits=limits, checker=checker)
            alone_record, alone_failed = _alone_record(alone)
        # B11: gpumeter's, the evaluator's and the candidates' files, kept before any candidate
        # runs and held to that after each run.
        files = _watched_files(reference, inputs, python_candidates)
        unchecked = ""
        for c in python_candidates:
            index += 1
            progress.starting(_inert(c["name"]))
            folder = _candidate_folder(root, index, c["name"])
            assert reference is not None and inputs is not None
            if alone_failed is not None:
                # Fail closed: without the reference alone, a slowed reference cannot be seen.
                emit({"candidate": c["name"], "log": alone_failed.get("log"),
                      **_run_ended("reference_alone_failed",
                                   "the reference measured alone (no candidate code) failed, so "
                                   "what a candidate's reference is held to is unknown: " +
                                   str(alone_failed.get("why", "")))})
                continue
            if checker is not None:
                # B11: the checker answers before each run, else it is restarted (what the last
                # run did to it was that run's, named in its account).
                checker, limits, tolerated, unchecked = _serving_checker(checker, limits,
                                                                         tolerated, args.device)
            if checker is None:
                # Fail closed: no answer of this run could be checked where no candidate runs.
                emit({"candidate": c["name"], "log": os.path.join(root, "checker.log"),
                      **_run_ended("runner_not_started", unchecked)})
                continue
            line = evaluate_python(c, reference=reference, inputs=inputs, outputs=outputs,
                                   case=args.name, options=options, folder=folder,
                                   timeout_s=args.timeout, python=args.python,
                                   reference_alone=alone_record, tolerated=tolerated, env=env,
                                   limits=limits, checker=checker)
            changed = files.check()
            if changed:
                line = _tampering(line, changed)
            # The tolerances every checked answer was held to, in the line beside the verdict.
            emit({"candidate": c["name"], **line, "rtol": args.rtol, "atol": args.atol})
    finally:
        progress.clear()
        if warm is not None:
            warm.close()
            limits = limits._replace(warm=None)
        if checker is not None:
            limits = limits._replace(keep=limits.keep - {checker.process.pid})
            checker.close()
        if held is not None:
            held.release()
    for p in programs:
        index += 1
        progress.starting(_inert(p["name"]))
        folder = _candidate_folder(root, index, p["name"])
        judged = evaluate_program(p, folder=folder, timeout_s=args.timeout,
                                  reference=args.program_reference, limits=limits)
        changed = files.check()
        for line in judged:
            emit(_tampering(line, changed) if changed else line)
    progress.clear()
    if journal is not None:
        journal.close()
    sys.stderr.write(_table(lines) + "\n")
    import gpumeter
    return int(gpumeter._gpumeter.evaluation_exit_code([str(x["verdict"]) for x in lines]))
