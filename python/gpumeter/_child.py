"""The one way the package runs a process of its own and waits for it: ``gpumeter evaluate``'s
candidates and programs, and the fresh processes of ``phases()``.

A process gets its output sent to a log file or kept, and, when it is given an order, that order as
its last argument after the descriptor it reports on: one line (``_wire``), read while it runs, since
a report larger than a pipe's buffer would otherwise block its writer until the timeout. One line,
not to the end: a process it started outside its session may hold the pipe open. At the timeout it
is killed; a process in a session of its own takes everything it started with it, whenever it ends.

With ``channel`` (``gpumeter evaluate``'s candidates, B11), the process reports on an authenticated
channel instead: a pipe and a fresh 32-byte key, both in the one variable ``CHANNEL_VARIABLE``
(never in argv), which the child's compiled code reads and erases
(``_gpumeter.evaluation_channel_open``). Every frame it sends is numbered and MAC'd with
HMAC-SHA256 under the key::

    b"gpumeter-channel 1 SEQ KIND LENGTH\n" + BODY + MAC_HEX + b"\n"

where SEQ counts from 0, KIND is ``report`` or ``violation``, BODY is LENGTH bytes of JSON and
MAC_HEX is the HMAC (64 hex digits) of everything before it. The frames are read to the end and
verified here; anything else on the pipe, a frame out of order, a second report or a violation is
a problem, by name.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import signal
import subprocess
import threading
import time
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence

from . import _wire

CHANNEL_VARIABLE = "GPUMETER_EVALUATION_CHANNEL"
_FRAME_HEADER = re.compile(rb"gpumeter-channel 1 (0|[1-9][0-9]{0,18}) (report|violation) "
                           rb"(0|[1-9][0-9]{0,9})")
_MOST_CHANNEL_BYTES = 256 << 20  # a report is a few kB; more is no report of gpumeter's
NOT_GPUMETERS = "bytes on gpumeter's channel that gpumeter did not write"


class Channel(NamedTuple):
    """What the channel carried, verified: the report (its payload, and what the child's compiled
    code added: the violations, the measurements started, the records written with their
    SHA-256), and the problems: each a sentence, none when the channel is clean."""

    payload: Optional[Dict[str, Any]]  # the report's payload; None without a (valid) report
    violations: List[str]  # every violation frame's, and the report's own
    measurements: Optional[int]  # measurements started, as the report counts them
    records: List[Dict[str, str]]  # {"path", "sha256"} of each record written, from the report
    problems: List[str]  # forged or missing frames, a second report, the violations


def read_channel(data: bytes, key: bytes) -> Channel:
    """The frames in ``data`` (everything the channel's pipe carried), verified under ``key``."""
    pos = 0
    sequence = 0
    problems: List[str] = []
    violations: List[str] = []
    report: Optional[Dict[str, Any]] = None
    while pos < len(data):
        end = data.find(b"\n", pos, pos + 64)
        header = _FRAME_HEADER.fullmatch(data, pos, end) if end >= 0 else None
        if header is None:
            problems.append(NOT_GPUMETERS)
            break
        length = int(header.group(3))
        body_end = end + 1 + length
        mac = data[body_end:body_end + 64]
        if data[body_end + 64:body_end + 65] != b"\n" or not hmac.compare_digest(
                mac, hmac.new(key, data[pos:body_end], hashlib.sha256).hexdigest().encode()):
            problems.append(NOT_GPUMETERS)
            break
        if int(header.group(1)) != sequence:
            problems.append("a frame missing from gpumeter's channel, or one sent twice")
            break
        sequence += 1
        pos = body_end + 65
        try:
            body = json.loads(data[end + 1:body_end].decode("utf-8", "surrogateescape"))
        except ValueError:
            body = None
        if not isinstance(body, dict):
            problems.append("a frame of gpumeter's channel that cannot be read")
            break
        if header.group(2) == b"violation":
            violations.append(str(body.get("violation")))
        elif report is not None:
            problems.append("a second report on gpumeter's channel")
        else:
            report = body
    payload: Optional[Dict[str, Any]] = None
    measurements: Optional[int] = None
    records: List[Dict[str, str]] = []
    if report is not None:
        violations += [str(v) for v in report.get("violations", []) if str(v) not in violations]
        measurements = report.get("measurements")
        records = [{"path": str(r.get("path")), "sha256": str(r.get("sha256"))}
                   for r in report.get("records", []) if isinstance(r, dict)]
        payload = _wire.read_report(str(report.get("payload", "")))
        if payload is None:
            problems.append("a report on gpumeter's channel whose payload cannot be read")
    problems += violations
    return Channel(payload, violations, measurements if isinstance(measurements, int) else None,
                   records, problems)


class Ended(NamedTuple):
    """How a process ended."""

    rc: Optional[int]  # its exit code (negative: the signal that killed it); None at the timeout
    seconds: float  # from its start to its end (or to the timeout)
    exited_ns: int  # CLOCK_MONOTONIC when its end was seen: one clock for every process of the host
    output: str  # its output when kept (no log); "" with a log
    report: Optional[Dict[str, Any]]  # its report line, when it was given an order and wrote one
    channel: Optional[Channel] = None  # with ``channel``: what the channel carried, verified


def run(argv: Sequence[str], *, env: Mapping[str, str], timeout_s: float,
        log: Optional[str] = None, order: Optional[Mapping[str, Any]] = None,
        new_session: bool = False, channel: bool = False) -> Ended:
    """Runs ``argv`` to its end or ``timeout_s``. With ``order``, the process is started as
    ``argv + [FD, ORDER]`` and reports one line on FD; with ``channel`` too, as ``argv + [ORDER]``
    with the channel's descriptor and key in the variable ``CHANNEL_VARIABLE``, and reports in
    frames (``Ended.channel``; ``Ended.report`` is the verified report's payload). With ``log``,
    its output (stdout and stderr) goes there, else it is kept. With ``new_session``, it runs in a
    session of its own, which is killed whole when it ends (a candidate's own children, a
    program's workers). Raises OSError when the process cannot be started."""
    received: List[bytes] = []
    args = list(argv)
    env = dict(env)
    write_fd: Optional[int] = None
    report_file = None
    reader: Optional[threading.Thread] = None
    key = b""
    if channel and order is None:
        raise ValueError("a channel carries the report of an order: give one")
    if order is not None:
        read_fd, write_fd = os.pipe()
        report_file = os.fdopen(read_fd, "rb")
        if channel:
            key = os.urandom(32)
            env[CHANNEL_VARIABLE] = f"{write_fd}:{key.hex()}"
            args += [_wire.order_argument(order)]
            reader = threading.Thread(target=_read_all, args=(report_file, received), daemon=True)
        else:
            reader = threading.Thread(target=lambda: received.append(report_file.readline()),
                                      daemon=True)
            args += [str(write_fd), _wire.order_argument(order)]
        reader.start()
    out = open(log, "wb") if log is not None else None
    start = time.monotonic()
    chunks: List[bytes] = []
    output_reader: Optional[threading.Thread] = None
    try:
        try:
            proc = subprocess.Popen(
                args, stdout=out if out is not None else subprocess.PIPE,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                pass_fds=() if write_fd is None else (write_fd,), start_new_session=new_session)
        finally:
            if write_fd is not None:
                os.close(write_fd)  # the child's copy only: its report ends when it exits
        if proc.stdout is not None:
            # Kept output is read beside the wait, not waited for: a process it started may hold
            # the pipe open after it exited, and its end is its exit.
            stdout = proc.stdout
            output_reader = threading.Thread(target=lambda: chunks.append(stdout.read()),
                                             daemon=True)
            output_reader.start()
        rc: Optional[int]
        try:
            rc = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            rc = None
        exited_ns = time.monotonic_ns()
        seconds = time.monotonic() - start
        if new_session:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        elif rc is None:
            proc.kill()
        if rc is None:
            proc.wait()
        if output_reader is not None and proc.stdout is not None:
            output_reader.join(timeout=10)
            if not output_reader.is_alive():
                proc.stdout.close()
    finally:
        if out is not None:
            out.close()
        if reader is not None and report_file is not None:
            reader.join(timeout=10)
            if not reader.is_alive():  # else it holds the file: closing it under a read blocks
                report_file.close()
    output = b"".join(chunks).decode(errors="replace")
    if channel:
        # What the thread holds now: a reader still blocked (a process outside the session holds
        # the pipe) has read everything the child wrote before it ended.
        carried = read_channel(b"".join(list(received)), key)
        return Ended(rc, seconds, exited_ns, output, carried.payload, carried)
    text = b"".join(received).decode(errors="replace")
    return Ended(rc, seconds, exited_ns, output,
                 _wire.read_report(text) if order is not None else None)


def _read_all(source: Any, into: List[bytes]) -> None:
    """Everything on the channel's pipe to its end, or to the most a report may be (the rest is
    drained, never kept, so the writer never blocks on it)."""
    kept = 0
    while True:
        chunk = source.read1(1 << 16)
        if not chunk:
            return
        if kept <= _MOST_CHANNEL_BYTES:
            into.append(chunk)
            kept += len(chunk)
