"""``gpumeter evaluate``'s checker: the process where candidates' answers are checked, which never
imports a candidate (B11).

One checker runs per evaluation, started by the parent before the reference alone and before any
candidate. It imports gpumeter, the reference and the input generator, and nothing else of the
evaluation. For every checked iteration of every run (the reference alone's, then each
candidate's), gpumeter's code in that run's process sends the implementation's answer and the
iteration's seed here; the checker rebuilds the inputs from the seed, runs the reference on them
and compares, with its own framework and its own comparison (``_answers._default_verify``), and
answers the run's process so that a wrong answer stops the run at once. What it checked, per
implementation, and the first wrong answer it saw, go to the parent directly, on a channel no
candidate holds: the correctness verdict is the checker's, and the parent refuses a record that
claims checks the checker never made.

Answers travel without pickling (no code of a run's process ever runs here): numbers and text as
JSON, host arrays as their bytes, and a PyTorch CUDA tensor by CUDA IPC (the allocation's handle,
opened and copied here; the run's process waits for the reply, so the buffer stays as it was
until it is copied). Anything the checker cannot read as an answer is a problem of the channel,
which the parent reads as tampering.

The three sides are here: ``Checker`` (the parent's handle), ``CheckerLink`` (a run's process)
and ``serve`` (this process's loop, run as ``python -m gpumeter._checker CTL_FD ORDER``).
"""

from __future__ import annotations

import array
import ctypes
import hmac
import importlib
import importlib.abc
import importlib.util
import os
import re
import select
import socket
import struct
import sys
import time
from typing import Any, Dict, List, Optional, Set, Tuple

from . import _child, _gpumeter, _wire
from ._answers import _constant_answer_problem, _default_verify, _host, _largest_magnitude
from ._errors import ConfigError, VerificationFailed
from ._inputs import _FreshInputs
from ._specs import load, user_path

# A message: 4 bytes of header length, 8 bytes of payload length (big-endian), the header (a JSON
# object), the payload (the bytes of the arrays the header describes).
_FRAME = struct.Struct(">IQ")
# A header far beyond any description of an answer (a tuple of arrays) is no answer.
_MAX_HEADER_BYTES = 1 << 20
# The most any message on the parent's channel may carry (a run's account is a few kB).
_MAX_PAYLOAD_BYTES = 1 << 36
# A run's answer may be larger than the reference's by this factor (float64 against the
# reference's float8), plus this headroom (headers of small answers, a shape padded): anything
# larger is no answer of this problem, and is refused before it is read (a run cannot make the
# checker hold more memory than that).
_ANSWER_SLACK = 8
_ANSWER_HEADROOM = 1 << 20
# The frameworks whose answers the checker rebuilds (the run's process sends every other kind as
# NumPy's): imported at its start where installed, since it imports nothing once ready.
_FRAMEWORKS = ("numpy", "torch")
# How long evaluate waits for the checker's answer to its ping before a run: an idle checker
# answers in microseconds; one that does not in this long is stopped or stuck, and is restarted.
_PING_S = 10.0
# How often evaluate reads whether the checker still runs while it waits for a run's account.
_STATE_POLL_S = 0.2
# Nested tuples or lists of an answer, as the default check reads them (_answers._MAX_ANSWER_DEPTH).
_MAX_DEPTH = 8


class ChannelError(Exception):
    """Bytes on a checker's channel that are no message gpumeter wrote."""


def _send(sock: socket.socket, header: Dict[str, Any], payload: bytes = b"") -> None:
    head = _wire.message_header(header)
    sock.sendall(_FRAME.pack(len(head), len(payload)) + head)
    if payload:
        sock.sendall(payload)


def _recv_exactly(sock: socket.socket, n: int) -> bytes:
    chunks: List[bytes] = []
    got = 0
    while got < n:
        chunk = sock.recv(min(n - got, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _recv(sock: socket.socket, most: int = _MAX_PAYLOAD_BYTES) -> Tuple[Dict[str, Any], bytes]:
    """One message of at most ``most`` payload bytes; EOFError at a clean end, ChannelError for
    bytes that are no message."""
    try:
        first = sock.recv(1, socket.MSG_PEEK)
    except ConnectionResetError:
        raise EOFError from None
    if not first:
        raise EOFError
    try:
        head_size, payload_size = _FRAME.unpack(_recv_exactly(sock, _FRAME.size))
        if head_size > _MAX_HEADER_BYTES or payload_size > most:
            raise ChannelError(f"a message of {head_size} + {payload_size} bytes, larger than any "
                               f"answer of this problem ({most} bytes at most)")
        head = _recv_exactly(sock, head_size)
        payload = _recv_exactly(sock, payload_size) if payload_size else b""
    except EOFError:
        raise ChannelError("a message cut short") from None
    try:
        header = _wire.read_bounded(head.decode(), 64, "a message of gpumeter's checker")
    except (ValueError, UnicodeDecodeError) as e:
        raise ChannelError(f"a message whose header is not JSON ({e})") from None
    if not isinstance(header, dict):
        raise ChannelError("a message whose header is not an object")
    return header, payload


# --- an answer, described in a run's process and rebuilt in the checker ---------------------


def _describe(x: Any, chunks: List[bytes], offset: List[int], staging: Optional["_Staging"] = None,
              depth: int = 0) -> Dict[str, Any]:
    """What the checker needs to rebuild answer ``x``; array bytes appended to ``chunks``, a CUDA
    tensor's copied into ``staging``."""
    t = type(x)
    if x is None:
        return {"kind": "none"}
    if t in (bool, int, float):
        return {"kind": "number", "type": t.__name__, "value": x}
    if t is complex:
        return {"kind": "number", "type": "complex", "value": [x.real, x.imag]}
    if t is str:
        return {"kind": "text", "value": x}
    if t is bytes:
        return {"kind": "bytes", "value": x.hex()}
    if t in (tuple, list):
        if depth >= _MAX_DEPTH:
            raise ValueError(f"an answer nested more than {_MAX_DEPTH} deep")
        return {"kind": "seq", "type": t.__name__,
                "items": [_describe(v, chunks, offset, staging, depth + 1) for v in x]}
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(x, torch.Tensor):
        if x.is_cuda and staging is not None and x.numel() > 0:
            shared = staging.put(torch, x)
            if shared is not None:
                return shared
        host = x.detach().contiguous().cpu()
        data = host.reshape(-1).view(torch.uint8).numpy().tobytes() if host.numel() else b""
        return _host_array("torch", str(host.dtype).replace("torch.", ""), list(host.shape),
                           data, chunks, offset)
    import numpy as np
    if not isinstance(x, np.ndarray) and not isinstance(x, np.generic):
        x = _host(x)  # CuPy's get(), Warp's numpy()
    a = np.ascontiguousarray(np.asarray(x))
    if a.dtype.hasobject:
        raise ValueError(f"an answer of {type(x).__name__} holding Python objects")
    return _host_array("numpy", a.dtype.str, list(a.shape), a.tobytes(), chunks, offset)


def _host_array(framework: str, dtype: str, shape: List[int], data: bytes, chunks: List[bytes],
                offset: List[int]) -> Dict[str, Any]:
    out = {"kind": "array", "framework": framework, "dtype": dtype, "shape": shape,
           "offset": offset[0], "nbytes": len(data)}
    chunks.append(data)
    offset[0] += len(data)
    return out


class _Staging:
    """A run's CUDA answers on their way to the checker: one buffer per device, shared once by
    CUDA IPC (PyTorch's own sharing, as torch.multiprocessing sends a tensor), into which each
    answer's bytes are copied before it is sent. Sharing the answers' own allocations instead
    would park each in PyTorch's IPC limbo until the allocator runs out, so the timed calls
    would allocate anew; one buffer keeps the allocator as it was."""

    def __init__(self) -> None:
        self._buffers: Dict[int, Tuple[Any, Dict[str, Any]]] = {}

    def put(self, torch: Any, x: Any) -> Optional[Dict[str, Any]]:
        """The description of ``x`` copied into the device's buffer (the copy finished), or None
        where the buffer cannot be shared (an allocator of expandable segments): then the answer
        goes through the host."""
        flat = x.detach().contiguous().reshape(-1).view(torch.uint8)
        device = flat.device.index if flat.device.index is not None else torch.cuda.current_device()
        held = self._buffers.get(device)
        if held is None or held[0].numel() < flat.numel():
            try:
                buffer = torch.empty(flat.numel(), dtype=torch.uint8, device=flat.device)
                _, args = _reductions().reduce_tensor(buffer)
                (_, _, _, _, _, _, index, handle, storage_bytes, storage_offset_bytes, _,
                 ref_handle, ref_offset, event_handle, event_sync) = args
            except Exception:  # noqa: BLE001  (no IPC here: through the host)
                return None
            shared = {"device": int(index), "handle": bytes(handle).hex(),
                      "storage_bytes": int(storage_bytes),
                      "storage_offset_bytes": int(storage_offset_bytes),
                      "ref_handle": bytes(ref_handle).hex() if ref_handle is not None else None,
                      "ref_offset": int(ref_offset) if ref_offset is not None else None,
                      "event_handle": bytes(event_handle).hex() if event_handle is not None
                      else None, "event_sync": bool(event_sync), "length": int(buffer.numel())}
            held = self._buffers[device] = (buffer, shared)
        buffer, shared = held
        buffer[:flat.numel()].copy_(flat)
        torch.cuda.current_stream(flat.device).synchronize()  # copied before the checker reads
        return {"kind": "cuda", "dtype": str(x.dtype).replace("torch.", ""),
                "shape": list(x.shape), "nbytes": int(flat.numel()), "buffer": shared}


def _torch() -> Any:
    """PyTorch, as the checker imported it at its start (it imports nothing once ready): an answer
    of PyTorch where it is not installed is no answer."""
    torch = sys.modules.get("torch")
    if torch is None:
        raise ChannelError("an answer of PyTorch, which is not installed where the checker runs")
    return torch


def _reductions() -> Any:
    """PyTorch's own sharing of CUDA memory between processes (torch.multiprocessing's)."""
    return importlib.import_module("torch.multiprocessing.reductions")


_NAME = re.compile(r"^[a-z0-9_]{1,40}$")


def _torch_dtype(torch: Any, name: Any) -> Any:
    dtype = getattr(torch, name, None) if isinstance(name, str) and _NAME.match(name) else None
    if not isinstance(dtype, torch.dtype):
        raise ChannelError(f"an answer of dtype {name!r}, which is no PyTorch dtype")
    return dtype


def _ints(value: Any, what: str) -> List[int]:
    if not isinstance(value, list) or not all(type(v) is int and v >= 0 for v in value) \
            or len(value) > 64:
        raise ChannelError(f"an answer whose {what} is not a list of sizes")
    return value


def _rebuild(d: Any, payload: bytes, opened: Dict[str, Any], most: int = _MAX_PAYLOAD_BYTES,
             depth: int = 0) -> Any:
    """The answer a description stands for, as the checker's own objects (copies: nothing of the
    run's process stays referenced); a CUDA answer of more than ``most`` bytes is refused."""
    if not isinstance(d, dict) or depth > _MAX_DEPTH:
        raise ChannelError("an answer description that is not an object")
    kind = d.get("kind")
    if kind == "none":
        return None
    if kind == "number":
        kinds = {"bool": bool, "int": int, "float": float}
        value = d.get("value")
        if d.get("type") == "complex" and isinstance(value, list) and len(value) == 2 and \
                all(type(v) in (int, float) for v in value):
            return complex(float(value[0]), float(value[1]))
        want = kinds.get(str(d.get("type")))
        if want is None or type(value) not in (bool, int, float) or \
                (want is bool) != (type(value) is bool):
            raise ChannelError("a number answer of no number type")
        return want(value)
    if kind == "text" and isinstance(d.get("value"), str):
        return d["value"]
    if kind == "bytes" and isinstance(d.get("value"), str):
        try:
            return bytes.fromhex(d["value"])
        except ValueError:
            raise ChannelError("a bytes answer that is not hex") from None
    if kind == "seq" and d.get("type") in ("tuple", "list") and isinstance(d.get("items"), list):
        items = [_rebuild(v, payload, opened, most, depth + 1) for v in d["items"]]
        return tuple(items) if d["type"] == "tuple" else items
    if kind == "array":
        return _rebuild_array(d, payload)
    if kind == "cuda":
        return _rebuild_cuda(d, opened, most)
    raise ChannelError(f"an answer of kind {kind!r}")


def _rebuild_array(d: Dict[str, Any], payload: bytes) -> Any:
    import numpy as np
    shape = _ints(d.get("shape"), "shape")
    start, size = d.get("offset"), d.get("nbytes")
    if type(start) is not int or type(size) is not int or start < 0 or size < 0 or \
            start + size > len(payload):
        raise ChannelError("an array answer whose bytes are not in its message")
    data = payload[start:start + size]
    count = 1
    for n in shape:
        count *= n
    if d.get("framework") == "torch":
        torch = _torch()
        dtype = _torch_dtype(torch, d.get("dtype"))
        element = torch.empty((), dtype=dtype).element_size()
        if count * element != size:
            raise ChannelError("a PyTorch answer whose bytes do not fill its shape")
        flat = torch.frombuffer(bytearray(data), dtype=torch.uint8) if size else \
            torch.empty(0, dtype=torch.uint8)
        return flat.view(dtype).reshape(shape).clone()
    if d.get("framework") != "numpy":
        raise ChannelError("an array answer of no framework gpumeter reads")
    try:
        dtype = np.dtype(str(d.get("dtype")))
    except TypeError:
        raise ChannelError(f"an array answer of dtype {d.get('dtype')!r}") from None
    if dtype.hasobject or count * dtype.itemsize != size:
        raise ChannelError("an array answer whose bytes do not fill its shape")
    return np.frombuffer(data, dtype=dtype).reshape(shape).copy()


def _allocation_end(pointer: int) -> int:
    """Where the device allocation holding ``pointer`` ends (the driver's cuMemGetAddressRange):
    what a buffer opened by its IPC handle really holds, whatever its description says."""
    try:
        driver = ctypes.CDLL("libcuda.so.1")
        fn = driver.cuMemGetAddressRange_v2
        fn.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_size_t),
                       ctypes.c_uint64]
        base, size = ctypes.c_uint64(0), ctypes.c_size_t(0)
        result = fn(ctypes.byref(base), ctypes.byref(size), ctypes.c_uint64(pointer))
    except (OSError, AttributeError) as e:
        raise ChannelError(f"a CUDA answer whose allocation cannot be measured here ({e})") \
            from None
    if result != 0:
        raise ChannelError(f"a CUDA answer in no allocation the driver knows (error {result})")
    return int(base.value) + int(size.value)


def _rebuild_cuda(d: Dict[str, Any], opened: Dict[str, Any], most: int) -> Any:
    """A CUDA answer: its bytes copied out of the run's buffer (opened once per run by its IPC
    handle, kept in ``opened``) into a tensor of the checker's own. Its sizes are held to the
    allocation the handle really opens before anything is copied: a copy past its end would read
    another allocation or fault, and a fault ends every later check of the checker's context."""
    torch = _torch()
    rebuild_cuda_tensor = _reductions().rebuild_cuda_tensor
    buffer = d.get("buffer")
    if not isinstance(buffer, dict):
        raise ChannelError("a CUDA answer with no buffer")

    def hexed(key: str, optional: bool = False) -> Optional[bytes]:
        v = buffer.get(key)
        if v is None and optional:
            return None
        try:
            if not isinstance(v, str):
                raise TypeError
            return bytes.fromhex(v)
        except (TypeError, ValueError):
            raise ChannelError(f"a CUDA answer whose {key} is not hex") from None

    def size(value: Any, what: str) -> int:
        if type(value) is not int or value < 0:
            raise ChannelError(f"a CUDA answer whose {what} is not a size")
        return int(value)

    def optional_size(value: Any, what: str) -> Optional[int]:
        return None if value is None else size(value, what)
    dtype = _torch_dtype(torch, d.get("dtype"))
    shape = _ints(d.get("shape"), "shape")
    nbytes = size(d.get("nbytes"), "nbytes")
    length = size(buffer.get("length"), "length")
    count = 1
    for n in shape:
        count *= n
    element = torch.empty((), dtype=dtype).element_size()
    if count * element != nbytes or nbytes > length or type(buffer.get("event_sync")) is not bool:
        raise ChannelError("a CUDA answer whose bytes do not fill its shape")
    if nbytes > most:
        raise ChannelError(f"a CUDA answer of {nbytes} bytes, larger than any answer of this "
                           f"problem ({most} bytes at most)")
    key = str(buffer.get("handle"))
    shared = opened.get(key)
    if shared is None:
        try:
            shared = rebuild_cuda_tensor(
                torch.Tensor, torch.Size([length]), (1,), 0, torch.storage.UntypedStorage,
                torch.uint8, size(buffer.get("device"), "device"), hexed("handle"),
                size(buffer.get("storage_bytes"), "storage_bytes"),
                size(buffer.get("storage_offset_bytes"), "storage_offset_bytes"), False,
                hexed("ref_handle", True), optional_size(buffer.get("ref_offset"), "ref_offset"),
                hexed("event_handle", True), buffer["event_sync"])
        except ChannelError:
            raise
        except Exception as e:  # noqa: BLE001  (a handle that opens nothing is no answer)
            raise ChannelError(f"a CUDA answer that cannot be opened here ({type(e).__name__}: "
                               f"{' '.join(str(e).split())[:200]})") from None
        with torch.cuda.device(shared.device):
            end = _allocation_end(int(shared.data_ptr()))
        if int(shared.data_ptr()) + length > end:
            raise ChannelError(f"a CUDA answer whose buffer of {length} bytes runs past the end of "
                               "the allocation its handle opens")
        opened[key] = shared
    if nbytes > shared.numel():
        raise ChannelError("a CUDA answer larger than the buffer it was sent in")
    return shared[:nbytes].clone().view(dtype).reshape(shape)


# --- a run's process ------------------------------------------------------------------------


class CheckerLink:
    """A run's side: sends each checked answer with its seed, and raises VerificationFailed when
    the checker found it wrong. Whatever the run's process does with this object, the checker
    counts what it checked: a record claiming more checks than the checker made is refused.

    Each check carries the tag the child's compiled code gives gpumeter's own code only while the
    driver checks that call (``_gpumeter.evaluation_check_tag``): a check the candidate sends
    itself (seeds of its own choosing, at import or in a call) has none the checker accepts.
    ``tag`` replaces that source (the checker's tests, which have no channel)."""

    def __init__(self, fd: int, tag: Optional[Any] = None) -> None:
        self._sock = socket.socket(fileno=fd)
        self._staging = _Staging()
        self._tag = tag if tag is not None else _gpumeter.evaluation_check_tag

    def check(self, implementation: str, seed: int, answer: Any, untimed: bool) -> None:
        chunks: List[bytes] = []
        try:
            described = _describe(answer, chunks, [0], self._staging)
        except ValueError as e:
            raise VerificationFailed(f"{implementation}: its answer cannot be checked: {e}") \
                from None
        _send(self._sock, {"op": "check", "implementation": implementation, "seed": int(seed),
                           "untimed": bool(untimed), "answer": described,
                           "tag": self._tag(implementation, int(seed))}, b"".join(chunks))
        reply, _ = _recv(self._sock)
        if reply.get("ok") is True:
            return
        if reply.get("refused") == "tolerance":
            raise ConfigError(str(reply.get("message")), argument="atol")
        raise VerificationFailed(str(reply.get("message", "the checker refused the answer")))


# --- the checker process --------------------------------------------------------------------


class _Account:
    """What the checker saw of one run: its checks per implementation, the first wrong answer,
    and anything on its channel that gpumeter did not write."""

    def __init__(self, label: str, key: bytes = b"") -> None:
        self.label = label
        self.key = key  # the run's check key: every check's tag is verified with it
        self.timed: Dict[str, int] = {}
        self.untimed: Dict[str, int] = {}
        self.seeds: Set[int] = set()
        self.mismatch = ""
        self.problem = ""
        self.opened: Dict[str, Any] = {}  # the run's CUDA buffers, open while it runs

    def as_report(self) -> Dict[str, Any]:
        return {"label": self.label, "timed_checks": self.timed, "untimed_checks": self.untimed,
                "mismatch": self.mismatch, "problem": self.problem}


class _NoImports(importlib.abc.MetaPathFinder):
    """The checker's first import finder once it is ready: every import refused, never run, and
    named (``asked``). The checker imported everything it reads answers with at its start; an
    import asked for later can only be one a run's answer led to, and a module found then could
    be a file a candidate wrote."""

    def __init__(self) -> None:
        self.asked: List[str] = []

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        self.asked.append(fullname)
        raise ImportError(f"gpumeter's checker imports nothing once it is ready ({fullname})")


_NO_IMPORTS = _NoImports()


def _frameworks() -> None:
    """Every framework whose answers the checker rebuilds, imported now where installed (found
    before any candidate ran, so no file of a candidate's), with PyTorch's sharing of CUDA
    memory."""
    for name in _FRAMEWORKS:
        if name not in sys.modules and importlib.util.find_spec(name) is None:
            continue
        importlib.import_module(name)
        if name == "torch":
            _reductions()


def _answer_bytes(x: Any, depth: int = 0) -> int:
    """The bytes of an answer as the run's process sends it (its arrays' and its text's)."""
    if isinstance(x, (tuple, list)) and depth < _MAX_DEPTH:
        return sum(_answer_bytes(v, depth + 1) for v in x)
    if isinstance(x, (str, bytes)):
        return len(x)
    nbytes = getattr(x, "nbytes", None)
    if isinstance(nbytes, int):
        return nbytes
    numel, element = getattr(x, "numel", None), getattr(x, "element_size", None)
    if callable(numel) and callable(element):
        return int(numel()) * int(element())
    return 0


def _poisoned(x: Any, depth: int = 0) -> Any:
    """A wrong answer of the same kind as ``x`` (NaN or one more in every element), for the
    checker's first pass through a mismatch before it is ready."""
    if isinstance(x, (tuple, list)) and depth < _MAX_DEPTH:
        return type(x)(_poisoned(v, depth + 1) for v in x)
    try:
        return x + 1
    except Exception:  # noqa: BLE001  (an answer that adds nothing: itself)
        return x


def _rehearse(expected: Any, rtol: float, atol: float) -> None:
    """Everything a check runs, once on the reference's own answer, right and wrong, before the
    checker is ready: what the comparison imports when first called is imported now."""
    chunks: List[bytes] = []
    for answer in (expected, _poisoned(expected)):
        for rebuild in (False, True):
            try:
                if rebuild:
                    answer = _rebuild(_describe(answer, chunks, [0]), b"".join(chunks), {})
                _default_verify(rtol, atol)("reference", answer, expected)
            except Exception:  # noqa: BLE001  (a rehearsal: what it imported is what counts)
                pass
            chunks.clear()


def _check_one(header: Dict[str, Any], payload: bytes, account: _Account, fresh: Any,
               reference: Any, verify: Any, most: int = _MAX_PAYLOAD_BYTES) -> Dict[str, Any]:
    """One checked answer: the reply to the run's process."""
    implementation, seed = header.get("implementation"), header.get("seed")
    if not isinstance(implementation, str) or type(seed) is not int or not 0 <= seed < 2**64 \
            or type(header.get("untimed")) is not bool:
        raise ChannelError("a check that names no implementation or seed")
    # Issue 50: a check the driver made carries the tag only gpumeter's compiled code gives, and
    # only while it checks that call; one without it was sent by other code (a count padded with
    # seeds of the candidate's choosing).
    tag = header.get("tag")
    try:
        expected = _gpumeter.evaluation_check_tag_of(account.key, implementation, seed).encode()
    except (TypeError, ValueError):  # a name that is no text the compiled side reads
        expected = b""
    if not isinstance(tag, str) or not account.key or not expected or not hmac.compare_digest(
            tag.encode("utf-8", "surrogateescape"), expected):
        raise ChannelError(f"a check of seed {seed} that gpumeter's driver did not make (its tag "
                           "is not the run's)")
    if seed in account.seeds:
        # Each call's seed is new: a seed checked twice is an answer offered for a call it did not
        # answer.
        raise ChannelError(f"a check of seed {seed}, checked already")
    account.seeds.add(seed)
    counts = account.untimed if header["untimed"] else account.timed
    counts[implementation] = counts.get(implementation, 0) + 1
    answer = _rebuild(header.get("answer"), payload, account.opened, most)
    args = fresh.make(seed)
    expected = fresh.output_of(args, reference(*args))
    try:
        verify(implementation, answer, expected)
    except VerificationFailed as e:
        message = str(e)
        if not account.mismatch:
            kind = "untimed answer" if header["untimed"] else \
                f"checked answer {account.timed[implementation]}"
            account.mismatch = f"{implementation}'s {kind}: {message}"
        return {"ok": False, "message": message}
    except ConfigError as e:
        return {"ok": False, "refused": "tolerance", "message": str(e)}
    return {"ok": True}


def serve(control: socket.socket, order: Dict[str, Any]) -> None:
    """The checker's loop: one run at a time, begun and ended by the parent."""
    step = "importing the frameworks whose answers the checker reads"
    try:
        # Before the user's folders join the path (B11): a framework found now is an installed
        # one, never a file a candidate left in the current folder (a checker restarted).
        _frameworks()
        user_path()
        step = "importing the reference"
        reference = load(order["reference"])[0]
        step = "importing the input generator"
        generate = load(order["inputs"])[0]
        step = "checking the input generator"
        fresh = _FreshInputs(generate, order.get("outputs") or ())
        fresh.check_pure()
        step = "calling the reference"
        rtol, atol = float(order["rtol"]), float(order["atol"])
        args = fresh.make(int.from_bytes(os.urandom(8), "little"))
        expected = fresh.output_of(args, reference(*args))
        # Bad tolerances cost nothing: refused here, before any run, by the core's rules.
        problem = _gpumeter.tolerance_problem(rtol, atol) or \
            _gpumeter.absolute_tolerance_problem(rtol, atol, _largest_magnitude(expected)) or \
            _constant_answer_problem(expected, rtol, atol)
        if not problem:
            step = "checking the reference's own answer"
            _rehearse(expected, rtol, atol)
        # The most a run's answer may carry: the reference's, with its slack (_ANSWER_SLACK).
        most = _ANSWER_SLACK * _answer_bytes(expected) + _ANSWER_HEADROOM
        del args, expected
    except BaseException as e:  # noqa: BLE001  (the parent says whose code failed)
        _send(control, {"ready": False, "step": step, "type": type(e).__name__,
                        "message": " ".join(str(e).split())[:2000]})
        return
    # B11: from here on no import runs (the first finder refuses all and names them).
    sys.meta_path.insert(0, _NO_IMPORTS)
    _send(control, {"ready": True, "pid": os.getpid(), "tolerance": problem})
    if problem:
        return
    while True:
        try:
            header, _ = _recv(control)
        except (EOFError, ChannelError):
            return
        if header.get("op") == "ping":  # evaluate's word before each run: still serving
            _send(control, {"pong": True})
            continue
        if header.get("op") != "begin":
            return
        fds = _received_fds(control)
        if len(fds) != 1:
            return
        try:
            key = bytes.fromhex(str(header.get("key", "")))
        except ValueError:
            key = b""
        account = _Account(str(header.get("label", "")), key)
        _serve_run(control, socket.socket(fileno=fds[0]), account, fresh, reference,
                   _default_verify(rtol, atol), most)
        account.opened.clear()  # the run's buffers closed before the next run
        _send(control, account.as_report())


def _serve_run(control: socket.socket, run: socket.socket, account: _Account, fresh: Any,
               reference: Any, verify: Any, most: int = _MAX_PAYLOAD_BYTES) -> None:
    """A run's checks, until the parent says it ended. Whatever a message does to the checker
    (an exception of any kind while it is read, rebuilt or checked, an import it asks for) is
    that run's problem: the run's channel is closed, and the checker serves the next run."""
    open_run = True
    try:
        while True:
            ready, _, _ = select.select([control] + ([run] if open_run else []), [], [])
            # What the run sent first: the parent says a run ended only after its process did, so
            # every check it made is already here.
            if control in ready and run not in ready:
                try:
                    header, _ = _recv(control)
                except (EOFError, ChannelError):
                    sys.exit(0)
                if header.get("op") == "end":
                    return
                continue
            problem = ""
            try:
                header, payload = _recv(run, most)
            except EOFError:
                open_run = False
                continue
            except Exception as e:  # noqa: BLE001  (any failure to read a message: the run's)
                problem = _problem(e)
            asked = len(_NO_IMPORTS.asked)
            if not problem:
                try:
                    if header.get("op") != "check":
                        raise ChannelError(f"a message {header.get('op')!r} that is no check")
                    reply = _check_one(header, payload, account, fresh, reference, verify, most)
                except Exception as e:  # noqa: BLE001  (whatever a message raises is the run's)
                    problem = _problem(e)
            if len(_NO_IMPORTS.asked) > asked:
                problem = (f"a check that made gpumeter's checker import "
                           f"{', '.join(_NO_IMPORTS.asked[asked:][:4])} after it was ready "
                           "(refused, never run: a module found then could be a candidate's file)")
            if problem:
                account.problem = account.problem or problem
                # The run's sends fail at once (never block on a checker that reads no more).
                open_run = _closed(run)
                continue
            try:
                _send(run, reply)
            except OSError:
                open_run = False
    finally:
        run.close()


def _closed(run: socket.socket) -> bool:
    """The run's channel shut after a problem: nothing more is read from it, and the run's
    process, waiting for a reply, sees its end at once rather than at its time limit. False
    (the run is no longer read)."""
    try:
        run.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    return False


def _problem(e: BaseException) -> str:
    """An exception a run's message raised in the checker, as the run's problem."""
    if isinstance(e, ChannelError):
        return str(e)
    return (f"a message gpumeter's checker could not read ({type(e).__name__}: "
            f"{' '.join(str(e).split())[:200]})")


def _received_fds(control: socket.socket) -> List[int]:
    """The descriptors the parent sent beside its last message (one byte of its own)."""
    fds = array.array("i")
    msg, ancdata, _, _ = control.recvmsg(1, socket.CMSG_LEN(4 * fds.itemsize))
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[:len(data) - (len(data) % fds.itemsize)])
    return list(fds)


def main() -> None:
    control = socket.socket(fileno=int(sys.argv[1]))
    order = _wire.read_order(sys.argv[2])
    serve(control, order)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


# --- the parent's side ----------------------------------------------------------------------


class CheckerFailed(Exception):
    """The checker could not start: the evaluator's reference or input generator failed."""

    def __init__(self, step: str, error: str, message: str) -> None:
        super().__init__(f"{step}: {error}: {message}")
        self.step, self.error, self.message = step, error, message


class Checker:
    """The parent's handle on the checker: started once, then a run begun and ended for every
    process that checks answers."""

    def __init__(self, order: Dict[str, Any], *, python: str, env: Dict[str, str], log: str,
                 timeout_s: float = 600.0) -> None:
        self._started_as = (order, python, env, log, timeout_s)  # for ``restarted``
        self._control, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.process = _child.start_service(
                [python, "-m", "gpumeter._checker", str(child_end.fileno()),
                 _wire.order_argument(order)], env=env, log=log,
                pass_fds=(child_end.fileno(),))
        finally:
            child_end.close()
        self._control.settimeout(timeout_s)
        try:
            ready, _ = _recv(self._control)
        except (EOFError, ChannelError, OSError) as e:
            self.close()
            raise CheckerFailed("starting gpumeter's checker", type(e).__name__,
                                f"{e}; its output is in {log}") from None
        self._control.settimeout(None)
        if not ready.get("ready"):
            self.close()
            raise CheckerFailed(str(ready.get("step")), str(ready.get("type")),
                                str(ready.get("message")))
        self.pid = int(ready.get("pid", self.process.pid))
        #: The tolerances' problem the checker found on the reference's answer ("" when none).
        self.tolerance_problem = str(ready.get("tolerance") or "")
        self._run: Optional[socket.socket] = None

    def state(self) -> str:
        """Why the checker cannot serve now ("" while it can): it ended (killed, exited) or is
        stopped (SIGSTOP, a tracer), read from the process itself, not from its silence."""
        rc = self.process.poll()
        if rc is not None:
            return _child.end_words(rc)
        try:
            with open(f"/proc/{self.process.pid}/stat", "rb") as f:
                stat = f.read()
            if stat[stat.rindex(b")") + 2:].split()[0] in (b"T", b"t"):
                return "was stopped (SIGSTOP or a tracer)"
        except (OSError, ValueError, IndexError):
            pass
        return ""

    def ping(self, timeout_s: float = _PING_S) -> str:
        """Asks the checker whether it serves, waiting ``timeout_s`` at most (evaluate's word
        before each run): "" when it answered, else why not."""
        problem = self.state()
        if problem:
            return problem
        self._control.settimeout(timeout_s)
        try:
            _send(self._control, {"op": "ping"})
            said, _ = _recv(self._control)
        except (EOFError, ChannelError, OSError) as e:
            return self.state() or f"did not answer in {timeout_s:g} s ({type(e).__name__})"
        finally:
            self._control.settimeout(None)
        return "" if said.get("pong") is True else "answered no ping of gpumeter's"

    def restarted(self) -> "Checker":
        """A new checker started as this one was, this one killed first (it may be stopped):
        what a run did to it reaches no later run. Raises CheckerFailed as the constructor."""
        _child.kill_service(self.process)
        self.close()
        order, python, env, log, timeout_s = self._started_as
        return Checker(order, python=python, env=env, log=log, timeout_s=timeout_s)

    def begin(self, label: str, key: bytes) -> int:
        """A new run: the descriptor its process inherits (``started`` closes this side's copy
        once the process started). ``key``: the run's check key
        (``_gpumeter.evaluation_check_key`` of its channel's key), which every check's tag is
        verified with."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            _send(self._control, {"op": "begin", "label": label, "key": key.hex()})
            self._control.sendmsg([b"\0"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                             array.array("i", [ours.fileno()]))])
        finally:
            ours.close()
        self._run = theirs
        return theirs.fileno()

    def started(self) -> None:
        """The run's process has its copy of the descriptor: the parent keeps none (called once
        the process started, and by ``end`` where it never did)."""
        if self._run is not None:
            self._run.close()
            self._run = None

    def end(self, timeout_s: float = 600.0) -> Dict[str, Any]:
        """The checker's account of the run that just ended. A checker that was stopped or
        killed while the run ran says so at once (not after ``timeout_s``): the run's problem."""
        self.started()
        deadline = time.monotonic() + timeout_s
        try:
            _send(self._control, {"op": "end"})
            while True:
                # Waited for in short steps, reading between them whether the checker still
                # runs: a stopped one would otherwise hold every run to the timeout.
                problem = self.state()
                if problem:
                    raise OSError(f"gpumeter's checker {problem} while this run ran")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise OSError(f"gpumeter's checker did not answer in {timeout_s:g} s")
                ready, _, _ = select.select([self._control], [], [], min(left, _STATE_POLL_S))
                if ready:
                    account, _ = _recv(self._control)
                    return account
        except (EOFError, ChannelError, OSError) as e:
            said = self.state()
            if "gpumeter's checker" in str(e):
                why = str(e)
            elif said:
                why = f"gpumeter's checker {said} while this run ran"
            else:
                why = f"gpumeter's checker did not answer ({type(e).__name__}: {e})"
            return {"problem": why, "timed_checks": {}, "mismatch": ""}

    def close(self) -> None:
        """Ends the checker: its channel closed, it leaves."""
        try:
            self._control.close()
        finally:
            _child.stop_service(self.process)


if __name__ == "__main__":
    main()
