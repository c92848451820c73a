"""Records and the environment: gpumeter.write_record(), read_record(), env() and
release_cupti()."""

from __future__ import annotations

import os
from typing import Any, Dict, Mapping, Union

from . import _gpumeter, _wire
from ._checks import _bad, _integer
from ._errors import ConfigError
from ._gpumeter import CompareResult, Record, Result
from ._phases import PhasesResult
from ._sweep import SweepResult


def write_record(result: Union[Result, CompareResult, "PhasesResult", "SweepResult", Record,
                              Mapping[str, Any]],
                 directory: Union[str, os.PathLike[str]] = "gpumeter-results") -> str:
    """Writes the record of a result as ``gpumeter-<run id>.json`` in ``directory``.

    Written atomically and never over an existing file; ``gpumeter report`` (or
    ``python -m gpumeter report``) renders it, ``gpumeter compare`` compares two.

    Args:
        result: What measure(), compare(), phases() or sweep() returned, a Record, or a record
            as a dict (read as strictly as a file).
        directory: Where to write; created if needed.

    Returns:
        str: The path written.

    Raises:
        ConfigError: ``result`` or ``directory`` of the wrong type.
        InvalidRecord: a dict that is not a record gpumeter can stand behind.
        Error: the file exists already, or cannot be written.
    """
    if not isinstance(directory, (str, os.PathLike)):
        raise _bad("directory", "a path", directory)
    record: Record
    if isinstance(result, SweepResult) and result.record is None:
        raise ConfigError(f"result: {result}; there is no record to write",
                          argument="result")
    if isinstance(result, (Result, CompareResult, PhasesResult, SweepResult)):
        record = result.record
    elif isinstance(result, Record):
        record = result
    elif isinstance(result, Mapping):
        record = Record.from_json(_wire.record_text(result), "(the dict given to write_record)")
    else:
        raise _bad("result", "what measure() or compare() returned, a Record, or a record's "
                   "dict", result)
    return _gpumeter.write_record(record, os.fspath(directory))


def read_record(path: Union[str, os.PathLike[str]]) -> Record:
    """Reads a record file with the checks of ``gpumeter report``.

    Every derived value (summaries, rates, comparisons) is recomputed from the raw samples, and
    a record whose stored values differ is refused.

    Args:
        path: The record's file.

    Returns:
        Record: typed; ``.to_dict()`` for its JSON as a dict.

    Raises:
        ConfigError: ``path`` is not a path.
        InvalidRecord: the file is missing, unreadable, not UTF-8, not JSON, truncated, altered
            or oversized; ``path`` and ``problem`` say which and why.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise _bad("path", "a path", path)
    return _gpumeter.read_record(os.fspath(path))


def env(device: int = 0) -> Dict[str, Any]:
    """The host, the device and its state, as a record made now would hold them.

    Args:
        device: CUDA device index.

    Returns:
        dict: what ``gpumeter env --json`` prints: ``host``, ``device`` (None without a usable
        device, then ``device_unavailable`` says why), ``device_state``, ``cupti`` and
        ``not_available``.

    Raises:
        ConfigError: ``device`` is not an index.
    """
    index = _integer("device", device, "a CUDA device index")
    try:
        rc, out, err = _gpumeter.cli(["env", "--json", "--device", str(index)])
    finally:
        _gpumeter.release_cupti()  # reading CUPTI's state claimed it: a profiler may follow
    if rc != 0:
        raise ConfigError(err.strip(), argument="device")
    return _wire.read_object(out)


def release_cupti() -> None:
    """Gives CUPTI back until the next measurement. Kept for older code: every measure(),
    compare() and env() already gives CUPTI back when it returns.

    CUPTI serves one client per process. gpumeter claims it while it measures and releases it
    after every measurement phase, so PyTorch's profiler started between two calls records the
    GPU. The next measurement claims CUPTI again; if another client holds it then, gpumeter
    names that client and measures nothing, except PyTorch's profiler after its context has
    ended, which keeps its subscription while collecting nothing. A no-op without CUDA.
    """
    _gpumeter.release_cupti()
