"""The one way the package runs a process of its own and waits for it: ``gpumeter evaluate``'s
candidates and programs, and the fresh processes of ``phases()``.

A process gets its output sent to a log file or kept, and, when it is given an order, that order as
its last argument after the descriptor it reports on: one line (``_wire``), read while it runs, since
a report larger than a pipe's buffer would otherwise block its writer until the timeout. One line,
not to the end: a process it started outside its session may hold the pipe open. At the timeout it
is killed; a process in a session of its own takes everything it started with it, whenever it ends.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence

from . import _wire


class Ended(NamedTuple):
    """How a process ended."""

    rc: Optional[int]  # its exit code (negative: the signal that killed it); None at the timeout
    seconds: float  # from its start to its end (or to the timeout)
    exited_ns: int  # CLOCK_MONOTONIC when its end was seen: one clock for every process of the host
    output: str  # its output when kept (no log); "" with a log
    report: Optional[Dict[str, Any]]  # its report line, when it was given an order and wrote one


def run(argv: Sequence[str], *, env: Mapping[str, str], timeout_s: float,
        log: Optional[str] = None, order: Optional[Mapping[str, Any]] = None,
        new_session: bool = False, pass_fds: Sequence[int] = ()) -> Ended:
    """Runs ``argv`` to its end or ``timeout_s``. With ``order``, the process is started as
    ``argv + [FD, ORDER]`` and reports one line on FD. With ``log``, its output (stdout and stderr)
    goes there, else it is kept. With ``new_session``, it runs in a session of its own, which is
    killed whole when it ends (a candidate's own children, a program's workers). ``pass_fds``: more
    descriptors it inherits (its channel to evaluate's checker). Raises OSError when the process
    cannot be started."""
    received: List[bytes] = []
    args = list(argv)
    write_fd: Optional[int] = None
    report_file = None
    reader: Optional[threading.Thread] = None
    if order is not None:
        read_fd, write_fd = os.pipe()
        report_file = os.fdopen(read_fd, "rb")
        reader = threading.Thread(target=lambda: received.append(report_file.readline()),
                                  daemon=True)
        reader.start()
        args += [str(write_fd), _wire.order_argument(order)]
    out = open(log, "wb") if log is not None else None
    start = time.monotonic()
    chunks: List[bytes] = []
    output_reader: Optional[threading.Thread] = None
    try:
        try:
            proc = subprocess.Popen(
                args, stdout=out if out is not None else subprocess.PIPE,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=dict(env),
                pass_fds=tuple(pass_fds) + (() if write_fd is None else (write_fd,)),
                start_new_session=new_session)
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
    text = b"".join(received).decode(errors="replace")
    return Ended(rc, seconds, exited_ns, b"".join(chunks).decode(errors="replace"),
                 _wire.read_report(text) if order is not None else None)
