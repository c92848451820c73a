"""``gpumeter evaluate`` over batches: candidates from a file, the JSON lines as the batch's
journal (``--resume``), a batch dealt across the tasks of an array job (``--shard``) and their
journals merged (``--merge``), and progress on a terminal.

The journal is the ``--jsonl`` file: one line per candidate with a verdict, each written,
flushed and synced as it comes, so a batch killed at any point has the lines of every candidate
judged before it and at most a torn last line (the candidate it was on, dropped and run again).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, TextIO, Tuple

from . import _gpumeter, _wire
from ._errors import ConfigError

# A verdict's line nests a few levels (an interval, lists of names); a journal line deeper than
# this is not one of evaluate's, and is read no further (the journal is input).
_LINE_DEPTH = 16

#: A batch that cannot be run as asked: the core's ConfigError (a bad argument or option, raised
#: before anything runs: evaluate's exit 2), its ``argument`` the option at fault.
BatchError = ConfigError


def _refused(argument: str, message: str) -> ConfigError:
    return ConfigError(message, argument=argument)


# --- the candidates -------------------------------------------------------------------------


def candidates_file(path: str) -> List[Tuple[str, str]]:
    """The lines of a candidates file: one ``[NAME=]module:function`` or
    ``[NAME=]path/to/file.py:function`` a line, blank lines and ``#`` comments skipped. Returns
    (where, text) for each, ``where`` being ``FILE:LINE`` for the errors that name it."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise _refused("--candidates", f"--candidates {path!r}: cannot be read ({e})") from None
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line and not line.startswith("#"):
            out.append((f"{path}:{number}", line))
    if not out:
        # An empty list is a step before the batch that failed (a generator that wrote nothing):
        # a batch of no candidates would exit 0 and say nothing was wrong.
        raise _refused("--candidates", f"--candidates {path!r} holds no candidate (only blank "
                       "lines and # comments): one [NAME=]MODULE:FUNCTION a line")
    return out


def refuse_duplicates(named: Sequence[Tuple[str, str]]) -> None:
    """Two candidates of one name are refused, naming both: a name is a candidate's key in the
    journal, the merge and the table, so a second one would be resumed or merged as the first."""
    seen: Dict[str, str] = {}
    for name, text in named:
        if name in seen:
            raise _refused("candidates", f"two candidates are named {name!r} ({seen[name]} and "
                           f"{text}): give each a name of its own with NAME=")
        seen[name] = text


# --- the journal ----------------------------------------------------------------------------


def _is_line(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("candidate"), str) and \
        isinstance(value.get("verdict"), str)


def read_journal(path: str, repair: bool, option: str = "--resume") -> List[Dict[str, Any]]:
    """The lines of a journal, each a candidate's verdict. A last line that is torn (no newline
    at its end, or not a verdict's line) is the candidate the batch was on when it was killed:
    dropped (with ``repair``, cut from the file, so the journal keeps one line per candidate).
    Any other line that is not a verdict is refused: the file is not a journal of evaluate's
    (ConfigError naming ``option``, the option that gave the file)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return []
    except OSError as e:
        raise _refused(option, f"{option} {path!r}: cannot be read ({e.strerror})") from None
    lines: List[Dict[str, Any]] = []
    keep = 0
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        last = end < 0 or end == len(data) - 1
        chunk = data[pos:] if end < 0 else data[pos:end]
        try:
            value = _wire.read_bounded(chunk.decode("utf-8"), _LINE_DEPTH, "a verdict's line") \
                if end >= 0 else None
        except (ValueError, UnicodeDecodeError):
            value = None
        if not isinstance(value, dict) or not _is_line(value):
            if last:
                break  # torn: the candidate it was on runs again
            raise _refused(option, f"{option} {path!r} line {len(lines) + 1} is not a "
                           "candidate's JSON line: not a journal of gpumeter evaluate")
        lines.append(value)
        pos = end + 1
        keep = pos
    if repair and keep < len(data):
        with open(path, "r+b") as f:
            f.truncate(keep)
            f.flush()
            os.fsync(f.fileno())
    return lines


def judged(lines: Sequence[Dict[str, Any]], name: str, program: bool) -> List[Dict[str, Any]]:
    """The journal's lines of one candidate (a program's: its name, or name/case/implementation
    where its record held several)."""
    return [x for x in lines if x["candidate"] == name or
            (program and str(x["candidate"]).startswith(name + "/"))]


def append(sink: TextIO, text: str) -> None:
    """One line into the journal: written, flushed and, where it is a file, synced, so a batch
    killed right after keeps it."""
    sink.write(text)
    sink.flush()
    try:
        os.fsync(sink.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # a pipe or a terminal: nothing to sync


class Journal:
    """The ``--jsonl`` file while evaluate writes it (B11): what evaluate wrote is kept in memory,
    and before each line is appended the file is held to it. A line a candidate added, a line it
    rewrote or a file it removed or replaced is undone (the file put back as evaluate wrote it),
    and ``check`` says so, for the run in flight to be judged. Same user, same limits: a candidate
    that kills evaluate leaves the file as it made it, and ``--resume`` reads what is on disk
    (docs/evaluation.md)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.sink: TextIO = open(path, "a", encoding="utf-8")
        with open(path, "rb") as f:
            self._kept = f.read()

    def check(self) -> str:
        """"" where the file is as evaluate wrote it; else what was done to it, the file put
        back. The whole file is read each time (a journal is a few kB a candidate): a same-size
        rewrite within the file system's time resolution leaves its times as they were."""
        try:
            with open(self.path, "rb") as f:
                now: Optional[bytes] = f.read()
            same_file = os.stat(self.path).st_ino == os.fstat(self.sink.fileno()).st_ino
        except OSError:
            now, same_file = None, False
        if now == self._kept and same_file:
            return ""
        if now is None or not same_file:
            said = "removed or replaced"
        elif now.startswith(self._kept):
            added = now[len(self._kept):].count(b"\n") or 1
            said = f"added {added} line{'s' if added > 1 else ''} to"
        else:
            said = "rewrote"
        self._put_back(same_file)
        return f"{said} the journal {self.path}"

    def _put_back(self, same_file: bool) -> None:
        if same_file:
            with open(self.path, "r+b") as f:
                f.write(self._kept)
                f.truncate(len(self._kept))
                f.flush()
                os.fsync(f.fileno())
            return
        self.sink.close()
        try:
            os.unlink(self.path)
        except OSError:
            pass
        with open(self.path, "wb") as f:
            f.write(self._kept)
            f.flush()
            os.fsync(f.fileno())
        self.sink = open(self.path, "a", encoding="utf-8")

    def write(self, text: str) -> None:
        """One line appended (``append``), and kept as evaluate's own."""
        append(self.sink, text)
        self._kept += text.encode("utf-8")

    def close(self) -> None:
        self.sink.close()


def identity(args: Any, reference: Optional[Dict[str, str]], inputs: Optional[Dict[str, str]],
             outputs: Optional[List[int]]) -> Dict[str, Any]:
    """This batch's ``JOURNAL_BATCH`` object, from evaluate's checked options: a spec by where
    its function is (a file's absolute path, or a module), so a resume from another folder is the
    same batch."""
    def spec(s: Optional[Dict[str, str]]) -> Optional[str]:
        return None if s is None else f"{s.get('path') or s.get('module')}:{s['attribute']}"
    # check_options has read --budget by the core's reader: (warm-up ms, measure ms).
    budget = [float(x) for x in args.budget] if args.budget else None
    return _wire.journal_batch(
        reference=spec(reference), inputs=spec(inputs), outputs=outputs, rtol=args.rtol,
        atol=args.atol, timing=args.timing, budget_ms=budget, precision=args.precision,
        max_time_s=args.max_time, program_reference=args.program_reference)


def batch_mismatch(lines: Sequence[Dict[str, Any]], batch: Any, whose: str = "this run's") -> str:
    """Why ``lines`` are not all of the batch ``batch`` (the ``JOURNAL_BATCH`` object of
    ``_wire``): the first line that says another batch or none, and each field that differs, by
    its option; "" when every line is of it. A line of another batch stands for a verdict made
    against another reference, other inputs, other tolerances or another timing: taken into this
    batch it would be a verdict this batch never made."""
    for number, line in enumerate(lines, 1):
        theirs = line.get(_wire.JOURNAL_BATCH)
        if theirs == batch:
            continue
        said = f"line {number} (candidate {str(line.get('candidate'))!r})"
        if not isinstance(theirs, dict) or not isinstance(batch, dict):
            return f"{said} does not say which batch it came from"
        differ = [f"{option} {_shown(batch.get(key))} in {whose}, {_shown(theirs.get(key))} in "
                  "its" for key, option in _wire.JOURNAL_BATCH_FIELDS
                  if theirs.get(key) != batch.get(key)]
        return f"{said} came from another batch: " + "; ".join(differ or ["its fields differ"])
    return ""


def check_new_journal(path: str) -> None:
    """``--jsonl FILE`` without ``--resume``: a file that already holds lines is refused
    (ConfigError, exit 2, before anything runs). Lines are appended, so a second run into it would
    give a candidate two verdicts in one journal, and a later --resume one of them at random."""
    if os.path.isfile(path) and os.path.getsize(path) > 0:
        raise _refused("--jsonl", f"--jsonl {path!r} already holds lines: --resume to go on from "
                       "the batch it journals, or another file for a new batch")


def check_resume(path: str, lines: Sequence[Dict[str, Any]], batch: Dict[str, Any]) -> None:
    """``--resume``: the journal's lines are taken as verdicts of this batch only where each came
    from the same reference, inputs, tolerances, timing and run target; else ConfigError (exit 2)
    naming the line and what differs, before anything runs."""
    problem = batch_mismatch(lines, batch)
    if problem:
        raise _refused("--resume", f"--resume {path!r}: {problem}; resume with the options the "
                       "batch was run with, or give a new --jsonl")


def _shown(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, list):
        return ",".join(f"{x:g}" if isinstance(x, float) else str(x) for x in value)
    return f"{value:g}" if isinstance(value, float) else str(value)


# --- shards ---------------------------------------------------------------------------------


def shard(names: Sequence[str], option: Optional[str]) -> Tuple[Optional[Set[int]], str]:
    """The positions (in ``names``, the whole batch's order) this task runs, dealt by the core's
    rule as a benchmark program deals its cases: ``--shard K/N`` (0 <= K < N), else a Slurm array
    task's or a Kubernetes indexed Job's index; (None, "") for every candidate. With the text
    that says which shard and where it was read."""
    try:
        plan = _gpumeter.sweep_shard(option, [(n, {}) for n in names])
    except ConfigError as e:
        raise _refused("--shard", str(e)) from None
    if plan is None:
        return None, ""
    mine = {i for i, c in enumerate(plan.cases) if c.shard == plan.shard.index}
    return mine, (f"shard {plan.shard.index}/{plan.shard.count} ({plan.shard.origin}): "
                  f"{len(mine)} of {len(names)} candidates")


# --- merging the journals of a batch's shards -----------------------------------------------


def merge(journals: Sequence[str], names: Sequence[str]) -> Tuple[List[Dict[str, Any]], List[str]]:
    """The lines of every journal as one batch's: each candidate's once (two journals with a line
    of one candidate are refused: not shards of one batch, or a task run twice), a journal with a
    torn last line refused (its task did not finish: resume it first). With the batch's candidate
    names, the lines in the batch's order and the names without a line returned; else in the
    journals' order."""
    lines: List[Dict[str, Any]] = []
    where: Dict[str, str] = {}
    first: Tuple[str, Any] = ("", None)
    for path in journals:
        if not os.path.isfile(path):
            raise _refused("--merge", f"--merge {path!r}: no such file")
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise _refused("--merge", f"--merge {path!r}: cannot be read ({e.strerror})") from None
        read = read_journal(path, repair=False, option="--merge")
        if data and (not data.endswith(b"\n") or len(read) != data.count(b"\n")):
            raise _refused("--merge", f"--merge {path!r}: its last line is torn (its task was "
                           "killed on a candidate): run that task again with --resume first")
        if read and not lines:
            first = (path, read[0].get(_wire.JOURNAL_BATCH))
        if read:
            # Shards of one batch were all held to one reference, inputs, tolerances and timing.
            problem = batch_mismatch(read, first[1], f"{first[0]!r}")
            if problem:
                raise _refused("--merge", f"--merge {path!r}: not a shard of the batch of "
                               f"{first[0]!r}: {problem}")
        for x in read:
            name = str(x["candidate"])
            if name in where:
                raise _refused("--merge", f"--merge: {name!r} has a line in {where[name]!r} and "
                               f"in {path!r}: not shards of one batch")
            where[name] = path
            lines.append(x)
    if not names:
        return lines, []
    by_name = {str(x["candidate"]): x for x in lines}
    ordered: List[Dict[str, Any]] = []
    missing: List[str] = []
    for n in names:
        mine = judged(lines, n, program=True)
        if not mine:
            missing.append(n)
        ordered += mine
    extra = [n for n in by_name if by_name[n] not in ordered]
    if extra:
        raise _refused("--merge", f"--merge: {len(extra)} lines of candidates not in this batch "
                         f"({', '.join(extra[:3])}{' ...' if len(extra) > 3 else ''})")
    return ordered, missing


# --- progress -------------------------------------------------------------------------------


class Progress:
    """Candidate i of N, the last verdict, the time so far and an estimate of what is left, on one
    line of stderr redrawn in place: only where stderr is a terminal (never in the JSON lines, a
    pipe or a file)."""

    def __init__(self, total: int, stream: Optional[TextIO] = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream if stream is not None else sys.stderr
        try:
            self.on = bool(self.stream.isatty()) and total > 0
        except (AttributeError, ValueError):
            self.on = False
        self.total = total
        self.done = 0
        self.last = ""
        self.clock = clock
        self.began = clock()
        self.shown = False

    def text(self, current: str) -> str:
        elapsed = self.clock() - self.began
        left = "" if not self.done else \
            f", about {_duration(elapsed / self.done * (self.total - self.done))} left"
        last = f" | last: {self.last}" if self.last else ""
        return (f"candidate {min(self.done + 1, self.total)} of {self.total}: {current}{last} | "
                f"{_duration(elapsed)} elapsed{left}")

    def starting(self, name: str) -> None:
        if self.on:
            columns = _columns()
            self.stream.write("\r\x1b[K" + self.text(name)[:columns - 1])
            self.stream.flush()
            self.shown = True

    def finished(self, name: str, verdict: str) -> None:
        self.done += 1
        self.last = f"{name} {verdict}"

    def clear(self) -> None:
        if self.on and self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


def _columns() -> int:
    try:
        return os.get_terminal_size(2).columns
    except OSError:
        return 100


def _duration(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
