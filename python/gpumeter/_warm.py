"""``gpumeter evaluate``'s warm start: one process of gpumeter's own (the server) imports what
every candidate's process would import before its candidate (the interpreter's modules, gpumeter,
the framework and the modules of the reference and the input generator), with no CUDA context, and
forks the process of each run from there.

What a forked run does is what a cold run does (``_child.run`` waits for it, kills it with its
session at the timeout, holds it to the memory limit, reaps what it left): it is
``gpumeter._evaluate_child`` run as ``__main__`` with the same order, the same environment, its
own session, its output in its log, its report on the authenticated channel whose key it reads as
the cold child does. Only the imports are saved. Each run is forked from the server as the server
is, so nothing a run does (a module global set, a function replaced, a CUDA context made) reaches
the server or the next run: a fork copies memory, it never shares it back.

The server is unreachable by candidates: its one descriptor to evaluate is one end of an unnamed
socket pair, which the forked process closes before anything else (no name to connect to, nothing
to inherit). It never imports a candidate, never calls the reference or the input generator (a
call could make a CUDA context), and is not forked from where it holds a thread or CUDA has been
initialized (a forked child cannot use CUDA then): there, evaluate starts every run cold, as
before, and says why.

A run is forked twice (the server forks, that child forks the run and exits), so the run's parent
is evaluate itself (the reaper of its orphans, ``_child.become_subreaper``): evaluate waits for it
as for any child of its own. Without the reaper there is no warm start.

The server side is ``serve`` (run as ``python -m gpumeter._warm CTL_FD ORDER``); evaluate's side
is ``WarmStart``.
"""

from __future__ import annotations

import array
import ctypes
import os
import socket
import struct
import sys
import time
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from . import _child, _specs, _wire

#: The one module a warm run may run: what the cold start runs with ``python -m``.
RUN_MODULE = "gpumeter._evaluate_child"
_KEY_BYTES = 32  # the report channel's key (``_child.run``)
_HEAD = struct.Struct(">I")
_MAX_FDS = 8
_SPAWN_TIMEOUT_S = 30.0  # a fork takes milliseconds; a server that does not answer has stopped
_CUDA_ERROR_NOT_INITIALIZED = 3  # cuda.h: cuInit never called, so no context exists
_CUDA_ERROR_STUB_LIBRARY = 34  # cuda.h: the toolkit's stub, no driver: no context can exist
_FRAMEWORKS = ("torch", "numpy", "cupy", "warp", "jax", "triton")


# --- the server -----------------------------------------------------------------------------


def fork_problem() -> str:
    """Why this process cannot be forked into a run's process ("" when it can): a Python thread
    besides the main one (fork copies one; a lock another held stays held, and the module that
    started it expects it), or CUDA initialized here (a CUDA context, or the driver initialized: a
    forked child cannot use CUDA). Read without initializing CUDA: where libcuda is not loaded no
    context can exist; where it is, cuInit not called (CUDA_ERROR_NOT_INITIALIZED) means none
    exists. A native library's thread pool (OpenBLAS starts one when NumPy is imported) is not
    refused: such libraries stop and restart their pools around a fork (pthread_atfork)."""
    import threading
    if threading.active_count() != 1:
        names = ", ".join(t.name for t in threading.enumerate()
                          if t is not threading.main_thread())
        return f"an import started a Python thread ({names}), which a fork does not copy"
    torch = sys.modules.get("torch")
    cuda = getattr(torch, "cuda", None)
    try:
        if cuda is not None and cuda.is_initialized():
            return "PyTorch initialized CUDA when the modules were imported"
    except Exception as e:  # noqa: BLE001  (a torch that cannot say: not forked from)
        return f"torch.cuda.is_initialized() raised {type(e).__name__}"
    try:
        driver = ctypes.CDLL("libcuda.so.1", mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
    except OSError:
        return ""  # the driver is not loaded: no CUDA context exists
    context = ctypes.c_void_p()
    result = driver.cuCtxGetCurrent(ctypes.byref(context))
    if result in (_CUDA_ERROR_NOT_INITIALIZED, _CUDA_ERROR_STUB_LIBRARY):
        return ""
    if result == 0 and context.value:
        return "a CUDA context was made when the modules were imported"
    if result == 0:
        return "the CUDA driver was initialized when the modules were imported"
    return f"the CUDA driver answers {result} to cuCtxGetCurrent"


def _imported(order: Mapping[str, Any]) -> List[str]:
    """Imports what a run's process imports before its candidate: gpumeter and the modules the
    evaluate child takes at its start, then the reference's and the input generator's modules
    (and so the framework they import). The two spec modules themselves are then forgotten, so
    each run imports them afresh, as the cold start does, with everything they import already
    here. What their functions import inside their bodies (``import torch`` in the generator) is
    imported too, read from their code (``_lazy_imports``). Returns the frameworks imported and
    the evaluator's packages, to name them."""
    import importlib

    for name in ("faulthandler", "runpy", "traceback", "types", "gpumeter", "gpumeter._checker",
                 "gpumeter._core", "gpumeter._measure", "gpumeter._wire"):
        importlib.import_module(name)  # what gpumeter._evaluate_child imports at its start

    before = set(sys.modules)
    search = list(sys.path)
    loaded = []
    targets = []
    for key in ("reference", "inputs"):
        targets.append(_specs.load(order[key])[0])
        loaded.append(order[key])
    for name in _lazy_imports(targets):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001  (not needed here: the run imports it, or fails, itself)
            pass
    added = [n for n in sys.modules if n not in before]
    for spec in loaded:
        # The spec's own module, so its import in the run is the cold start's (its globals
        # fresh, its name the one a cold run gives it).
        name = _spec_module(spec)
        path = os.path.realpath(spec["path"]) if spec.get("path") else None
        for n in [n for n in added if n in sys.modules]:
            file = getattr(sys.modules[n], "__file__", None)
            if n == name or (path is not None and isinstance(file, str) and
                             os.path.realpath(file) == path):
                del sys.modules[n]
    sys.path[:] = search  # a path spec put its folder first: the run's load does that itself
    # What to name on the first line: the frameworks now here and the evaluator's own packages.
    named = [n for n in _FRAMEWORKS if n in sys.modules]
    for spec in loaded:
        top = (spec.get("module") or "").split(".")[0]
        if top and top in sys.modules and top not in named:
            named.append(top)
    return named


def _spec_module(spec: Mapping[str, str]) -> str:
    """The name ``_specs.load`` gives a spec's module (a path's first load: its file's stem)."""
    return spec.get("module") or os.path.splitext(os.path.basename(spec["path"]))[0]


def _lazy_imports(targets: Sequence[Any]) -> List[str]:
    """The absolute imports written inside ``targets`` (the reference and the input generator)
    and the functions of their modules they call by name, transitively: what they import when
    called (``import torch`` in the generator's body), which a cold run imports when it calls the
    generator once before its capture. Read from the code, never by calling it (a call could make
    a CUDA context)."""
    import dis
    import types
    names: List[str] = []
    seen: Set[Any] = set()

    def visit(fn: Any) -> None:
        fn = getattr(fn, "__func__", fn)
        if not isinstance(fn, types.FunctionType) or fn.__code__ in seen:
            return
        stack = [fn.__code__]
        while stack:
            code = stack.pop()
            if code in seen:
                continue
            seen.add(code)
            instructions = list(dis.get_instructions(code))
            for i, ins in enumerate(instructions):
                # LOAD_CONST level, LOAD_CONST fromlist, IMPORT_NAME name: level 0 is absolute.
                if ins.opname == "IMPORT_NAME" and i >= 2 and instructions[i - 2].argval == 0:
                    names.append(str(ins.argval))
            stack += [c for c in code.co_consts if isinstance(c, types.CodeType)]
            for name in code.co_names:  # a function of its module it calls by name
                callee = fn.__globals__.get(name)
                if isinstance(callee, types.FunctionType) and \
                        callee.__globals__ is fn.__globals__:
                    visit(callee)

    for target in targets:
        visit(target)
    return list(dict.fromkeys(n for n in names if n.split(".")[0] not in sys.builtin_module_names))


def serve(control: socket.socket, order: Mapping[str, Any]) -> None:
    """The server's loop: imports, says whether it can serve, then forks one run per request
    until evaluate closes its end."""
    try:
        modules = _imported(order)
        problem = fork_problem()
    except BaseException as e:  # noqa: BLE001  (said to evaluate, which starts runs cold)
        problem, modules = f"importing the evaluator's modules raised {type(e).__name__}: " + \
            " ".join(str(e).split())[:300], []
    _send(control, {"ready": not problem, "why": problem, "modules": modules,
                    "pid": os.getpid()})
    if problem:
        return
    while True:
        request = _receive(control)
        if request is None:
            return
        header, key, fds = request
        try:
            reply = _spawn(control, header, key, fds)
        except OSError as e:
            reply = {"error": f"{type(e).__name__}: {e}"}
        finally:
            key[:] = bytes(len(key))
            for fd in fds:
                os.close(fd)
        _send(control, reply)


def _spawn(control: socket.socket, header: Dict[str, Any], key: bytearray,
           fds: List[int]) -> Dict[str, Any]:
    """Forks a child that forks the run and exits, so the run's parent is evaluate (its
    subreaper); returns {"pid": the run's pid}."""
    pid = _child.fork_twice(control.close, lambda: _run(header, key, fds))
    if pid is None:
        return {"error": "the forked process did not start the run"}
    return {"pid": pid}


def _run(header: Dict[str, Any], key: bytearray, fds: List[int]) -> None:  # pragma: no cover
    """The run's process, before anything of the run: what a cold start's process is when its
    interpreter starts (its session, its output, its environment, its descriptors, its argv), then
    ``gpumeter._evaluate_child`` as ``__main__``. Never returns."""
    try:
        # First, before anything of the run: no descriptor but its own (what the order passes)
        # reaches another process (_only_its_descriptors).
        _only_its_descriptors(set(fds))
        # Its parent is evaluate, as a cold run's is, before anything runs: the process that
        # forked it exits at once, and evaluate (the reaper of its orphans) takes it.
        parent, give_up = int(header["parent"]), time.monotonic() + 10
        while os.getppid() != parent:
            if time.monotonic() > give_up:
                os._exit(71)  # evaluate is gone: nobody waits for this run
            time.sleep(0.0005)
        if header.get("new_session"):
            os.setsid()
        stdout, channel, passed = fds[0], fds[1], fds[2:]
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(stdout, 1)
        os.dup2(stdout, 2)
        os.close(stdout)
        # The descriptors the cold start passes (pass_fds): inheritable, as there; the order
        # names each by the number it had in evaluate, so it is told the number it has here.
        numbers = dict(zip((int(n) for n in header["pass_fds"]), passed))
        for fd in passed + [channel]:
            os.set_inheritable(fd, True)
        argv = list(header["argv"])
        order = _wire.read_order(argv[-1])
        if order.get("checker_fd") is not None:
            order["checker_fd"] = numbers[int(order["checker_fd"])]
        argv[-1] = _wire.order_argument(order)
        environ = {str(k): str(v) for k, v in header["env"].items()}
        os.environ.clear()
        os.environ.update(environ)
        # The channel's key as the cold start gives it (CHANNEL_VARIABLE), where the child's
        # compiled code reads it and erases every copy (the C environment's and os.environ's).
        _give_channel(channel, key)
        numpy_random = sys.modules.get("numpy.random")
        if numpy_random is not None:
            numpy_random.seed()  # a fresh interpreter seeds NumPy's global generator afresh
        sys.stdout.flush()
        sys.stderr.flush()
        sys.argv = [argv[0]] + argv[3:]
        del header, order, argv, environ, numbers
        import runpy
        runpy.run_module(RUN_MODULE, run_name="__main__", alter_sys=True)
    except BaseException:  # noqa: BLE001  (said in the run's log; the run has no report)
        import traceback
        traceback.print_exc()
        sys.stderr.flush()
    os._exit(70)


def _only_its_descriptors(its: Set[int]) -> None:  # pragma: no cover  (in a forked run)
    """Every descriptor the run inherited from the server but 0, 1, 2 and ``its`` (its output,
    its channel, what its order passes) is pointed at /dev/null: whatever the server's imports
    left open (a log a module keeps), the server's own and another run's are never written
    through it. Replaced, not closed: an object of those modules that still holds the number
    writes nowhere, where a closed number could be reused by the run's next open file."""
    null = os.open(os.devnull, os.O_RDWR)
    try:
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            if fd > 2 and fd != null and fd not in its:
                try:
                    os.fstat(fd)  # the listing's own descriptor is closed by now
                except OSError:
                    continue
                os.dup2(null, fd)
    finally:
        os.close(null)


_HEX = b"0123456789abcdef"


def _give_channel(channel: int, key: bytearray) -> None:  # pragma: no cover  (a forked run)
    """Puts ``FD:KEY`` (the key in hex) in CHANNEL_VARIABLE with no copy of the key left behind
    in memory the candidate can read: the text is built digit by digit in one buffer (no string
    or bytes of the key freed unzeroed), copied once into the environment (the one object the
    child's compiled code zeroes in os.environ, and the C environment's copy it erases), and the
    buffer and ``key`` zeroed."""
    value = bytearray(b"%d:" % channel) + bytearray(2 * len(key))
    at = len(value) - 2 * len(key)
    for i, byte in enumerate(key):
        value[at + 2 * i] = _HEX[byte >> 4]
        value[at + 2 * i + 1] = _HEX[byte & 15]
    key[:] = bytes(len(key))
    os.environb[_child.CHANNEL_VARIABLE.encode()] = bytes(value)
    value[:] = bytes(len(value))


def _send(sock: socket.socket, message: Mapping[str, Any]) -> None:
    sock.sendall(_wire.control_message(message))


def _receive(control: socket.socket) -> Optional[Tuple[Dict[str, Any], bytearray, List[int]]]:
    """One request: a header (JSON), the channel's key and the descriptors; None at the end."""
    buffer = bytearray(1 << 20)
    fds = array.array("i")
    try:
        n, ancdata, _, _ = control.recvmsg_into([buffer], socket.CMSG_SPACE(_MAX_FDS * 4))
    except OSError:
        return None
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[:len(data) - (len(data) % fds.itemsize)])
    if n == 0:
        return None
    size = _HEAD.unpack_from(buffer)[0]
    view = memoryview(buffer)
    header = _wire.read_control_message(bytes(view[_HEAD.size:_HEAD.size + size]))
    # The key copied once, from a view (a slice of the buffer would be a second copy, freed
    # unzeroed); ``serve`` zeroes it once the run is forked, and the buffer is zeroed here.
    key = bytearray(view[_HEAD.size + size:n])
    view.release()
    buffer[:] = bytes(len(buffer))
    return header, key, list(fds)


def main() -> None:
    _specs.user_path()  # the user's folders after the interpreter's own (B11)
    control = socket.socket(fileno=int(sys.argv[1]))
    serve(control, _wire.read_order(sys.argv[2]))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


# --- evaluate's side ------------------------------------------------------------------------

_PR_GET_CHILD_SUBREAPER = 37  # linux/prctl.h


def reaper_problem() -> str:
    """Why a forked run could not be this process's child ("" when it can): a run is forked by
    the server's child, which exits, so only the reaper of this process's orphans
    (``_child.become_subreaper``) becomes the run's parent, waits for it and reaps what it left."""
    if not sys.platform.startswith("linux"):
        return "not Linux"
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        flag = ctypes.c_int(0)
        if libc.prctl(ctypes.c_int(_PR_GET_CHILD_SUBREAPER), ctypes.byref(flag), ctypes.c_ulong(0),
                      ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
            return f"cannot read whether this process reaps its orphans " \
                   f"({os.strerror(ctypes.get_errno())})"
    except (OSError, AttributeError) as e:
        return f"cannot read whether this process reaps its orphans ({e})"
    return "" if flag.value else "this process is not the reaper of its orphans"



class _NotSent(Exception):
    """A run's request that never reached the server: nothing of the run was forked."""


class WarmStart:
    """evaluate's handle on the server: started once per evaluation, ``ready`` when it can fork
    runs (else ``why`` says why not: every run starts cold). ``start`` is ``_child.run``'s
    starter: it forks a run from the server, or, where the server fails, says so once (``note``)
    and leaves the run to ``_child.run``'s cold start."""

    def __init__(self, order: Mapping[str, Any], *, python: str, env: Mapping[str, str],
                 log: str, note: Any = None) -> None:
        self.ready = False
        self.why = ""
        self.modules: List[str] = []
        self.process: Any = None
        self._note = note or (lambda text: None)
        self._control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.process = _child.start_service(
                [python, "-m", "gpumeter._warm", str(theirs.fileno()), _wire.order_argument(order)],
                env=env, log=log, pass_fds=(theirs.fileno(),))
        except OSError as e:
            self.why = f"the server did not start ({e.strerror})"
            self._control.close()
            return
        finally:
            theirs.close()

    def wait_ready(self, timeout_s: float) -> bool:
        """Waits for the server's word (its imports): ``ready``, else ``why``."""
        if self.process is None:
            return False
        self._control.settimeout(timeout_s)
        try:
            said = self._control.recv(1 << 16)
            message = _wire.read_control_message(said) if said else None
        except (OSError, ValueError) as e:
            message, self.why = None, f"the server did not answer ({type(e).__name__})"
        finally:
            self._control.settimeout(None)
        if not isinstance(message, dict):
            self.why = self.why or "the server ended before it was ready"
            self.close()
            return False
        self.ready = bool(message.get("ready"))
        self.why = str(message.get("why") or "")
        self.modules = [str(m) for m in message.get("modules") or []]
        if not self.ready:
            self.close()
        return self.ready

    def start(self, args: Sequence[str], *, env: Mapping[str, str], stdout: Any,
              pass_fds: Sequence[int], channel_fd: Optional[int], key: bytes,
              new_session: bool) -> Optional[_child.Forked]:
        """A run's process forked from the server where it serves; None where it does not (the
        server closed, and said once): ``_child.run`` then starts it cold."""
        if self.ready and list(args[1:3]) == ["-m", RUN_MODULE] and channel_fd is not None \
                and stdout is not None:
            try:
                return self._fork(args, env, stdout.fileno(), pass_fds, channel_fd, key,
                                  new_session)
            except _NotSent as e:
                self._failed(str(e))  # nothing reached the server: this run starts cold
            except (OSError, ValueError, ChildProcessError) as e:
                # The server had the run's descriptors and may have forked it: a cold start of
                # the same run would share its channel and its checker's descriptor with that
                # process. The run is not started again (StartInterrupted: its candidate is not
                # measured, what was forked is killed); the runs after it start cold.
                why = f"{type(e).__name__}: {e}"
                self._failed(why)
                raise _child.StartInterrupted(
                    f"the warm start's server failed while it forked this candidate's process "
                    f"({why}): not measured (what was forked was killed; the candidates from "
                    "here on start cold)") from None
        return None

    def _fork(self, args: Sequence[str], env: Mapping[str, str], stdout: int,
              pass_fds: Sequence[int], channel_fd: int, key: bytes,
              new_session: bool) -> _child.Forked:
        environ = {k: v for k, v in env.items() if k != _child.CHANNEL_VARIABLE}
        head = _wire.control_message({"argv": list(args), "env": environ,
                                      "new_session": new_session, "pass_fds": list(pass_fds),
                                      "parent": os.getpid()})
        fds = [stdout, channel_fd] + list(pass_fds)
        self._control.settimeout(_SPAWN_TIMEOUT_S)
        try:
            try:
                self._control.sendmsg(
                    [_HEAD.pack(len(head)), head, key],
                    [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
            except OSError as e:  # a message is sent whole or not at all (SOCK_SEQPACKET)
                raise _NotSent(f"{type(e).__name__}: {e}") from None
            said = self._control.recv(1 << 16)
        finally:
            self._control.settimeout(None)
        reply = _wire.read_control_message(said) if said else {"error": "the server ended"}
        if "pid" not in reply:
            raise ValueError(str(reply.get("error")))
        forked = _child.Forked(int(reply["pid"]), args)
        forked.poll()  # ChildProcessError where the pid is not this process's child
        return forked

    def _failed(self, why: str) -> None:
        """The server failed: it and everything under it killed, the runs from now on cold."""
        self.ready = False
        self._note(f"the warm start's server failed ({why}): the runs from here on start cold")
        if self.process is not None:
            _child.kill_service(self.process)
        self.close()

    def close(self) -> None:
        self.ready = False  # no run forked from here on, and its pid no longer gpumeter's own
        try:
            self._control.close()
        finally:
            if self.process is not None:
                _child.stop_service(self.process)


if __name__ == "__main__":
    main()
