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

class BatchError(Exception):
    """A batch that cannot be run as asked (evaluate's UsageError: nothing was run)."""


# --- the candidates -------------------------------------------------------------------------


def candidates_file(path: str) -> List[Tuple[str, str]]:
    """The lines of a candidates file: one ``[NAME=]module:function`` or
    ``[NAME=]path/to/file.py:function`` a line, blank lines and ``#`` comments skipped. Returns
    (where, text) for each, ``where`` being ``FILE:LINE`` for the errors that name it."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise BatchError(f"--candidates {path!r}: cannot be read ({e})") from None
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line and not line.startswith("#"):
            out.append((f"{path}:{number}", line))
    return out


def refuse_duplicates(named: Sequence[Tuple[str, str]]) -> None:
    """Two candidates of one name are refused, naming both: a name is a candidate's key in the
    journal, the merge and the table, so a second one would be resumed or merged as the first."""
    seen: Dict[str, str] = {}
    for name, text in named:
        if name in seen:
            raise BatchError(f"two candidates are named {name!r} ({seen[name]} and {text}): "
                             "give each a name of its own with NAME=")
        seen[name] = text


# --- the journal ----------------------------------------------------------------------------


def _is_line(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("candidate"), str) and \
        isinstance(value.get("verdict"), str)


def read_journal(path: str, repair: bool) -> List[Dict[str, Any]]:
    """The lines of a journal, each a candidate's verdict. A last line that is torn (no newline
    at its end, or not a verdict's line) is the candidate the batch was on when it was killed:
    dropped (with ``repair``, cut from the file, so the journal keeps one line per candidate).
    Any other line that is not a verdict is refused: the file is not a journal of evaluate's."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return []
    except OSError as e:
        raise BatchError(f"{path!r}: cannot be read ({e.strerror})") from None
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
            raise BatchError(f"{path!r} line {len(lines) + 1} is not a candidate's JSON line: "
                             "not a journal of gpumeter evaluate")
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


# --- shards ---------------------------------------------------------------------------------


def shard(names: Sequence[str], option: Optional[str]) -> Tuple[Optional[Set[int]], str]:
    """The positions (in ``names``, the whole batch's order) this task runs, dealt by the core's
    rule as a benchmark program deals its cases: ``--shard K/N`` (0 <= K < N), else a Slurm array
    task's or a Kubernetes indexed Job's index; (None, "") for every candidate. With the text
    that says which shard and where it was read."""
    try:
        plan = _gpumeter.sweep_shard(option, [(n, {}) for n in names])
    except ConfigError as e:
        raise BatchError(str(e)) from None
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
    for path in journals:
        if not os.path.isfile(path):
            raise BatchError(f"--merge {path!r}: no such file")
        with open(path, "rb") as f:
            data = f.read()
        read = read_journal(path, repair=False)
        if data and (not data.endswith(b"\n") or len(read) != data.count(b"\n")):
            raise BatchError(f"--merge {path!r}: its last line is torn (its task was killed on a "
                             "candidate): run that task again with --resume first")
        for x in read:
            name = str(x["candidate"])
            if name in where:
                raise BatchError(f"--merge: {name!r} has a line in {where[name]!r} and in "
                                 f"{path!r}: not shards of one batch")
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
        raise BatchError(f"--merge: {len(extra)} lines of candidates not in this batch "
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
