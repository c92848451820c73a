"""The one way the package runs a process of its own and waits for it: ``gpumeter evaluate``'s
candidates and programs, and the fresh processes of ``phases()``.

A process gets its output sent to a log file or kept, and, when it is given an order, that order as
its last argument after the descriptor it reports on: one line (``_wire``), read while it runs, since
a report larger than a pipe's buffer would otherwise block its writer until the timeout. One line,
not to the end: a process it started outside its session may hold the pipe open. At the timeout it
is killed; a process in a session of its own takes everything it started with it, whenever it ends.
Asked to (``reap_orphans``, ``gpumeter evaluate`` after ``become_subreaper()``), every process still
left under this one when a run ends is killed too, whatever its session; and a run can be held to a
memory limit, its resident memory summed over every process it started.

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
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from typing import (AbstractSet, Any, Callable, Dict, Iterable, List, Mapping, NamedTuple,
                    Optional, Sequence, Set, Tuple)

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
    # The tamper capture's names changed, compared by the child's compiled code when it reported;
    # None where nothing was captured (the reference alone).
    watched: Optional[List[str]] = None


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
            body = _wire.read_bounded(data[end + 1:body_end].decode("utf-8", "surrogateescape"),
                                      64, "a frame of gpumeter's channel")
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
    watched: Optional[List[str]] = None
    if report is not None:
        if isinstance(report.get("watched"), list):
            watched = [str(w) for w in report["watched"]]
        violations += [str(v) for v in report.get("violations", []) if str(v) not in violations]
        measurements = report.get("measurements")
        records = [{"path": str(r.get("path")), "sha256": str(r.get("sha256"))}
                   for r in report.get("records", []) if isinstance(r, dict)]
        payload = _wire.read_report(str(report.get("payload", "")))
        if payload is None:
            problems.append("a report on gpumeter's channel whose payload cannot be read")
    problems += violations
    return Channel(payload, violations, measurements if isinstance(measurements, int) else None,
                   records, problems, watched)


class StartInterrupted(OSError):
    """A starter (the warm start's ``WarmStart.start``) failed after it may have started the
    run's process: the run is not started again, since a process of it may hold its channel and
    its descriptors (a second start would share them); with ``reap_orphans`` what it left is
    killed first. ``str(error)`` says what failed."""


class Ended(NamedTuple):
    """How a process ended."""

    rc: Optional[int]  # its exit code (negative: the signal that killed it); None at the timeout
    seconds: float  # from its start to its end (or to the timeout)
    exited_ns: int  # CLOCK_MONOTONIC when its end was seen: one clock for every process of the host
    output: str  # its output when kept (no log); "" with a log
    report: Optional[Dict[str, Any]]  # its report line, when it was given an order and wrote one
    # The resident bytes its processes held when they were killed over memory_limit; else None.
    over_memory: Optional[int] = None
    channel: Optional["Channel"] = None  # with ``channel``: what the channel carried, verified


def start_service(argv: Sequence[str], *, env: Mapping[str, str], log: str,
                  pass_fds: Sequence[int] = ()) -> Any:
    """Starts a process of gpumeter's own that serves a whole run (``gpumeter evaluate``'s
    checker), in a session of its own (a candidate's session kill never reaches it), its output
    appended to ``log``; stop it with ``stop_service``. Raises OSError when it cannot start."""
    with open(log, "ab") as out:
        return subprocess.Popen(list(argv), stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=dict(env), pass_fds=tuple(pass_fds),
                                start_new_session=True)


def stop_service(process: Any) -> None:
    """Ends a process ``start_service`` started (its own end is its answer to a closed channel;
    one still running is killed) and waits for it."""
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def kill_service(process: Any) -> None:
    """Kills a process ``start_service`` started and everything under it (a service that failed:
    what it forked dies with it); ``stop_service`` then waits for it."""
    _kill(_descendants(_processes(), [process.pid]) | {process.pid})


def fork_twice(middle: Callable[[], None], child: Callable[[], None]) -> Optional[int]:
    """Forks a process that forks ``child``'s and exits at once, so ``child``'s parent becomes the
    reaper of this process's orphans (``gpumeter evaluate``, ``become_subreaper``: the warm
    start's runs), not this process. ``middle`` runs first in the process between (it closes what
    the child must not hold); ``child`` never returns (it leaves by ``os._exit``). Returns the
    child's pid once the process between has ended, None when it did not start the child; raises
    OSError when this process cannot fork."""
    read_end, write_end = os.pipe()
    between = os.fork()
    if between == 0:  # pragma: no cover  (a forked process: it leaves by os._exit)
        try:
            os.close(read_end)
            middle()
            pid = os.fork()
            if pid == 0:
                os.close(write_end)
                child()
            os.write(write_end, str(pid).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as f:
        said = f.read()
    os.waitpid(between, 0)
    return int(said) if said.isdigit() else None


class Forked:
    """A process ``fork_twice`` forked whose parent is now this process (its reaper of orphans):
    waited for as ``Popen`` is (``wait``, ``poll``, ``kill``, ``pid``), through a pidfd where the
    kernel has one, so ``run`` waits for it as for a process it started."""

    def __init__(self, pid: int, args: Sequence[str]) -> None:
        self.pid = pid
        self.args = list(args)
        self.returncode: Optional[int] = None
        self.stdout = None
        try:
            self._pidfd: Optional[int] = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self._pidfd = None

    def poll(self) -> Optional[int]:
        """Its exit code once it ended, else None; ChildProcessError where it is not this
        process's child (never was, or was reaped elsewhere) and has no exit code yet."""
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                return self.returncode
            if pid == self.pid:
                self.returncode = os.waitstatus_to_exitcode(status)
                if self._pidfd is not None:
                    os.close(self._pidfd)
                    self._pidfd = None
        return self.returncode

    def wait(self, timeout: Optional[float] = None) -> int:
        """Its exit code, waited for up to ``timeout`` seconds (``subprocess.TimeoutExpired``
        after, as ``Popen.wait``)."""
        end = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            left = None if end is None else end - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
            if self._pidfd is not None:
                select.select([self._pidfd], [], [], left)
            else:
                time.sleep(0.002 if left is None else min(0.002, left))
        assert self.returncode is not None
        return self.returncode

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def run(argv: Sequence[str], *, env: Mapping[str, str], timeout_s: float,
        log: Optional[str] = None, order: Optional[Mapping[str, Any]] = None,
        new_session: bool = False, reap_orphans: bool = False,
        keep: AbstractSet[int] = frozenset(), memory_limit: Optional[int] = None,
        pass_fds: Sequence[int] = (), channel: bool = False,
        starter: Optional[Any] = None,
        started: Optional[Callable[[], None]] = None,
        channel_key: Optional[bytes] = None,
        watch: Optional[Callable[[], str]] = None) -> Ended:
    """Runs ``argv`` to its end or ``timeout_s``. With ``order``, the process is started as
    ``argv + [FD, ORDER]`` and reports one line on FD; with ``channel`` too, as ``argv + [ORDER]``
    with the channel's descriptor and key in the variable ``CHANNEL_VARIABLE``, and reports in
    frames (``Ended.channel``; ``Ended.report`` is the verified report's payload). With ``log``,
    its output (stdout and stderr) goes there, else it is kept. With ``new_session``, it runs in a
    session of its own, which is killed whole when it ends (a candidate's own children, a
    program's workers). With ``reap_orphans``, every process left under this one when it ends
    (but those in ``keep``) is killed and reaped: what it started in sessions of their own,
    reparented here by ``become_subreaper()``. With ``memory_limit`` (bytes), the resident memory
    of its processes is read every ``_POLL_S`` and, over the limit, they are all killed
    (``Ended.over_memory``). ``pass_fds``: more descriptors it inherits (its channel to evaluate's
    checker). ``starter``: what starts the process instead of ``subprocess.Popen`` (the warm
    start's ``WarmStart.start``: it forks the process, its imports done), given the command,
    environment, output, descriptors and channel; what it returns is waited for as a ``Popen``,
    and where it returns None (it cannot fork) the process is started here, cold.
    ``watch`` is read every ``_POLL_S`` while the process runs: once it says something (evaluate's
    checker stopped or killed), the run's processes are all killed, as over the memory limit.
    ``started`` is called once the process started (the parent closes its copies of the
    descriptors). ``channel_key``: the channel's key, where the caller made it (evaluate gives
    the checker a key derived from it); else a fresh one. Raises OSError when the process cannot
    be started (StartInterrupted where the starter failed after it may have started it)."""
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
            key = channel_key if channel_key is not None else os.urandom(32)
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
            proc: Any = None
            if starter is not None and channel and out is not None:
                try:
                    proc = starter(args, env=env, stdout=out, pass_fds=tuple(pass_fds),
                                   channel_fd=write_fd, key=key, new_session=new_session)
                except StartInterrupted:
                    if reap_orphans:
                        _kill_descendants(keep)  # a process it forked before it failed
                    raise
            if proc is None:
                proc = subprocess.Popen(
                    args, stdout=out if out is not None else subprocess.PIPE,
                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                    pass_fds=tuple(pass_fds) + (() if write_fd is None else (write_fd,)),
                    start_new_session=new_session)
        finally:
            if write_fd is not None:
                os.close(write_fd)  # the child's copy only: its report ends when it exits
        if started is not None:
            started()
        if proc.stdout is not None:
            # Kept output is read beside the wait, not waited for: a process it started may hold
            # the pipe open after it exited, and its end is its exit.
            stdout = proc.stdout
            output_reader = threading.Thread(target=lambda: chunks.append(stdout.read()),
                                             daemon=True)
            output_reader.start()
        rc, over_memory = _wait(proc, start + timeout_s, memory_limit, new_session,
                                reap_orphans, keep, watch)
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
        if reap_orphans:
            _kill_descendants(keep)
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
        return Ended(rc, seconds, exited_ns, output, carried.payload, over_memory=over_memory,
                     channel=carried)
    text = b"".join(received).decode(errors="replace")
    return Ended(rc, seconds, exited_ns, output,
                 _wire.read_report(text) if order is not None else None, over_memory)


# --- what a run leaves behind, and what it holds ----------------------------------------------

_POLL_S = 0.15  # how often a run's memory is read: a 1 GiB allocation takes longer than this
_PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h


def _wait(proc: Any, deadline: float, memory_limit: Optional[int],
          new_session: bool, orphans: bool, keep: AbstractSet[int],
          watch: Optional[Callable[[], str]] = None) -> Tuple[Optional[int], Optional[int]]:
    """Waits for ``proc`` until ``deadline`` (None at the deadline), reading its processes'
    resident memory meanwhile when there is a limit; over it, kills them all and returns the exit
    with the bytes they held. Where ``watch`` says something, kills them all and returns the
    exit."""
    polled = memory_limit is not None or watch is not None
    shm_before = _shared_memory_used() if memory_limit is not None else 0
    while True:
        left = max(0.0, deadline - time.monotonic())
        try:
            return proc.wait(timeout=min(_POLL_S, left) if polled else left), None
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline:
                return None, None
        if watch is not None and watch():
            _kill(_run_processes(_processes(), proc.pid, new_session, orphans, keep))
            return proc.wait(), None
        if memory_limit is None:
            continue
        pids = _run_processes(_processes(), proc.pid, new_session, orphans, keep)
        # Memory a process holds outside its resident set counts too: a memfd or a /dev/shm file
        # held open but never mapped, and what /dev/shm grew by since the run began (a file
        # written there and closed stays in memory after its writer ends).
        held = (_resident_bytes(pids) + _open_shared_bytes(pids) +
                max(0, _shared_memory_used() - shm_before))
        if held > memory_limit:
            _kill(pids)
            return proc.wait(), held


def become_subreaper() -> Optional[str]:
    """Makes this process the reaper of its orphaned descendants (Linux's
    PR_SET_CHILD_SUBREAPER): a process a run started that left its session (``setsid``) and whose
    parent exited is reparented here, not to init, where ``run(reap_orphans=True)`` kills it.
    Returns None, or a note saying why that is unavailable (then only a run's own session and
    what is still under it are killed)."""
    why = "not Linux"
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            arg = ctypes.c_ulong  # prctl's arguments after the option are unsigned longs
            if libc.prctl(ctypes.c_int(_PR_SET_CHILD_SUBREAPER), arg(1), arg(0), arg(0),
                          arg(0)) == 0:
                return None
            why = os.strerror(ctypes.get_errno())
        except (OSError, AttributeError) as e:
            why = str(e)
    return (f"cannot become the reaper of the candidates' orphans ({why}): a process a candidate "
            "starts in a session of its own can outlive its run")


_PR_SET_PDEATHSIG = 1  # linux/prctl.h
_PARENT_WAIT_S = 5.0  # a warm run's forking middle process exits within milliseconds


def end_with(evaluator: Optional[int]) -> None:
    """Makes this process (a run of ``gpumeter evaluate``) end when ``evaluator``, the evaluate
    process, does (Linux's PR_SET_PDEATHSIG, SIGKILL): evaluate killed by SIGKILL (a job's time
    limit, an out-of-memory kill) cannot kill the run in flight, which would otherwise run on,
    holding the device, beside the batch resumed after it. A warm run's parent is evaluate only
    once the process that forked it has exited (evaluate is its subreaper), so this waits for that
    first; a parent-death signal set under that middle process would fire when it exits. Where
    evaluate is gone already, this process ends now. Elsewhere than Linux, nothing is done."""
    if evaluator is None or not sys.platform.startswith("linux"):
        return
    deadline = time.monotonic() + _PARENT_WAIT_S
    while os.getppid() != evaluator and time.monotonic() < deadline:
        time.sleep(0.001)
    if os.getppid() != evaluator:
        try:
            os.kill(evaluator, 0)
        except ProcessLookupError:  # evaluate ended: nobody waits for this run
            os._exit(1)
        except OSError:
            pass
        return  # a parent gpumeter did not arrange (a wrapper of the user's): left as it is
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        arg = ctypes.c_ulong
        libc.prctl(ctypes.c_int(_PR_SET_PDEATHSIG), arg(signal.SIGKILL), arg(0), arg(0), arg(0))
    except (OSError, AttributeError):
        return
    if os.getppid() != evaluator:  # evaluate ended before the signal was set: nobody waits
        os._exit(1)


def _processes() -> Dict[int, Tuple[int, int]]:
    """Every process of the host: {pid: (parent pid, session id)}, from /proc/PID/stat."""
    table: Dict[int, Tuple[int, int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return table
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
            # The command's name, in parentheses, may hold spaces and parentheses: read after it.
            fields = stat[stat.rindex(b")") + 2:].split()
            table[int(entry)] = (int(fields[1]), int(fields[3]))  # state ppid pgrp session
        except (OSError, ValueError, IndexError):
            continue  # it ended meanwhile
    return table


def _descendants(table: Mapping[int, Tuple[int, int]], roots: Iterable[int]) -> Set[int]:
    children: Dict[int, List[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found: Set[int] = set()
    stack = list(roots)
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def _run_processes(table: Mapping[int, Tuple[int, int]], pid: int, new_session: bool,
                   orphans: bool, keep: AbstractSet[int]) -> Set[int]:
    """A run's processes: its own, what it started (its descendants, its session's), and with
    ``orphans`` every other child of this process but ``keep`` (orphans reparented here) with
    theirs."""
    me = os.getpid()
    roots = {pid}
    if orphans:
        roots |= {p for p, (ppid, _) in table.items() if ppid == me and p not in keep}
    found = (roots & table.keys()) | _descendants(table, roots)
    if new_session:
        found |= {p for p, (_, sid) in table.items() if sid == pid}
    return found - set(keep) - {me}


def _resident_bytes(pids: Iterable[int]) -> int:
    """VmRSS summed over ``pids`` (pages two of them share count twice: a bound from above)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status", "rb") as f:
                for line in f:
                    if line.startswith(b"VmRSS:"):
                        total += int(line.split()[1]) * 1024
                        break
        except (OSError, ValueError, IndexError):
            continue
    return total


_SHARED_MEMORY = "/dev/shm"  # the tmpfs POSIX shared memory lives in on Linux


def _shared_memory_used() -> int:
    """Bytes in use on /dev/shm (0 where there is none). Its growth during a run is counted as the
    run's: a bound from above, since another process of the machine may write there too."""
    try:
        st = os.statvfs(_SHARED_MEMORY)
    except OSError:
        return 0
    return (st.f_blocks - st.f_bfree) * st.f_frsize


def _open_shared_bytes(pids: Iterable[int]) -> int:
    """Bytes of memory-backed files (a memfd, a file on /dev/shm) that ``pids`` hold open, each
    file once: pages nobody maps are in no process's VmRSS. A file both open and mapped counts twice
    (a bound from above, as VmRSS is)."""
    seen: Set[Tuple[int, int]] = set()
    total = 0
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            path = f"/proc/{pid}/fd/{fd}"
            try:
                target = os.readlink(path)
                if not (target.startswith("/memfd:") or target.startswith(_SHARED_MEMORY + "/")):
                    continue
                st = os.stat(path)
            except OSError:
                continue
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_blocks * 512  # the pages it holds, not its stated size
    return total


def end_words(rc: int) -> str:
    """How a process with exit status ``rc`` (subprocess's: negative for a signal) ended, as every
    message of the package says it: "exited with 3", "was killed by SIGKILL"."""
    if rc < 0:
        try:
            return f"was killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"was killed by signal {-rc}"
    return f"exited with {rc}"


def _kill(pids: Iterable[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _kill_descendants(keep: AbstractSet[int], give_up_s: float = 10.0) -> int:
    """Kills every process whose parent is this one but ``keep`` (and everything under them), and
    reaps them; again until none is left, since the orphans of what was killed are reparented here.
    Waits on those pids only, never on any child: a process subprocess waits for elsewhere is not
    taken from it. Returns how many were killed."""
    me = os.getpid()
    killed = 0
    end = time.monotonic() + give_up_s
    while time.monotonic() < end:
        table = _processes()
        children = {p for p, (ppid, _) in table.items() if ppid == me and p not in keep}
        if not children:
            break
        victims = (children | _descendants(table, children)) - set(keep)
        _kill(victims)
        killed += len(victims)
        for pid in children:
            _reap(pid, end)
    return killed


def _reap(pid: int, end: float) -> None:
    while True:
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return
        except ChildProcessError:
            return  # not ours after all, or reaped already
        if time.monotonic() >= end:
            return
        time.sleep(0.005)
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
