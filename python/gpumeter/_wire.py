"""Every JSON text the package reads or writes, in one place:

- a child process's order (its last argument) and its report (one line on a descriptor), for
  ``gpumeter evaluate``'s candidates and the fresh processes of ``phases()``;
- the headers of the messages on ``gpumeter evaluate``'s checker channels, and on the control
  socket of its warm start's server;
- ``gpumeter evaluate``'s lines of verdicts (JSON lines), the batch's journal, each line with
  the batch it belongs to (``JOURNAL_BATCH``);
- the pytest plugin's index of a run's records, read bounded (a baseline folder is input);
- what ``gpumeter env --json`` prints, and a record given as a dict.

Records are the core's to read and check (``Record.from_json``, ``write_record``): a dict only
becomes the text the core reads here. The fresh process of ``phases()`` (``_phase_child.py``)
imports nothing but the standard library before its candidate does, so it writes this format with
``json`` itself. ``json``'s functions are taken at import, before any candidate code runs in the
process: a candidate that replaces them cannot rewrite a report.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Mapping, Optional

_dumps = json.dumps
_loads = json.loads


def order_argument(order: Mapping[str, Any]) -> str:
    """A child's order as its command line's last argument."""
    return _dumps(dict(order))


def message_header(header: Mapping[str, Any]) -> bytes:
    """The header of one message on ``gpumeter evaluate``'s checker channels (``_checker``): a
    JSON object, as UTF-8 bytes; it is read back with ``read_bounded`` (the other side may be a
    candidate's)."""
    return _dumps(dict(header)).encode()


def control_message(message: Mapping[str, Any]) -> bytes:
    """One message on the control socket between ``gpumeter evaluate`` and its warm start's server
    (``_warm``): a request's header or the server's answer, a JSON object as UTF-8 bytes (the
    socket keeps each message whole); read back with ``read_control_message``."""
    return _dumps(dict(message)).encode()


def read_control_message(data: bytes) -> Dict[str, Any]:
    """A message ``control_message`` wrote (ValueError when it is not a JSON object). Both ends
    are gpumeter's own: the server never runs a candidate's code, and the runs it forks close
    their copy of the socket before anything else."""
    message = _loads(data)
    if not isinstance(message, dict):
        raise ValueError("a message on the warm start's control socket is a JSON object")
    return message


def read_order(argument: str) -> Dict[str, Any]:
    """The order a child was given (ValueError when it is not an object)."""
    order = _loads(argument)
    if not isinstance(order, dict):
        raise ValueError("a child's order is a JSON object")
    return order


def report_line(report: Mapping[str, Any]) -> str:
    """A child's report: one line."""
    return _dumps(dict(report)) + "\n"


def read_report(text: str) -> Optional[Dict[str, Any]]:
    """The report in a child's first line; None when there is none or it is not an object."""
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        return None
    try:
        report = _loads(lines[0])
    except ValueError:
        return None
    return report if isinstance(report, dict) else None


def jsonl_line(line: Mapping[str, Any]) -> str:
    """One line of a JSON-lines file."""
    return _dumps(dict(line)) + "\n"


#: The key of ``gpumeter evaluate``'s JSON line that says which batch the line belongs to: what
#: every candidate of the batch was held to, so ``--resume`` and ``--merge`` take a line only into
#: the batch that made it. Its fields, each with the option that sets it (named when one differs).
JOURNAL_BATCH = "batch"
JOURNAL_BATCH_FIELDS = (("reference", "--reference"), ("inputs", "--inputs"),
                        ("outputs", "--outputs"), ("rtol", "--rtol"), ("atol", "--atol"),
                        ("timing", "--timing"), ("budget_ms", "--budget"),
                        ("precision", "--precision"), ("max_time_s", "--max-time"),
                        ("program_reference", "--program-reference"))


def journal_batch(**fields: Any) -> Dict[str, Any]:
    """The ``JOURNAL_BATCH`` object of a batch's lines: exactly ``JOURNAL_BATCH_FIELDS``, each as
    JSON writes it (a tuple as a list), so a line read back compares equal to it."""
    names = [name for name, _ in JOURNAL_BATCH_FIELDS]
    if sorted(fields) != sorted(names):
        raise ValueError(f"a journal's batch holds {', '.join(names)}")
    batch: Dict[str, Any] = _loads(_dumps({name: fields[name] for name in names}))
    return batch


def index_text(index: Mapping[str, Any]) -> str:
    """The pytest plugin's index, stable for a diff: sorted keys, one level a space."""
    return _dumps(dict(index), indent=1, sort_keys=True) + "\n"


def nesting(text: str, deepest_allowed: int) -> int:
    """How deep the JSON text's arrays and objects nest (strings skipped), without parsing; the
    count stops once it passes `deepest_allowed`."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > deepest_allowed:
                break  # refused whatever follows
        elif ch in "]}":
            depth -= 1
    return deepest


def read_bounded(text: str, max_depth: int, what: str) -> Any:
    """JSON from input that may be hostile: ValueError when it nests deeper than `max_depth`
    (Python's parser would recurse that deep; the message says deeper than `what` is, e.g. "an
    index") or is not JSON."""
    if nesting(text, max_depth) > max_depth:
        raise ValueError(f"nested more than {max_depth} levels deep, deeper than {what} is")
    return _loads(text)


def read_object(text: str) -> Dict[str, Any]:
    """A JSON object printed by gpumeter itself (``gpumeter env --json``)."""
    value = _loads(text)
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    return value


def record_text(record: Mapping[str, Any]) -> str:
    """A record given as a dict, as the text the core reads and checks."""
    return _dumps(dict(record))
