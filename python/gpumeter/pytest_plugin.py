"""Performance tests in pytest: the ``gpumeter`` fixture, the run's records, baselines and the
gate (docs/pytest.md).

Each measurement a test makes through the fixture is gpumeter.measure or gpumeter.compare,
unchanged; its record is written into this run's folder, and with ``--gpumeter-compare NAME``
it is compared with the same test's record in the baseline NAME as ``gpumeter compare`` does
(the core's comparison and conclusion, typed, through the module): a test whose rows regress beyond
``--gpumeter-fail-on-regression FRACTION`` (10% or 0.1) fails with the comparison's sentences, and
so does a test with a row the gate cannot see, as the command's gate fails.

The device lock is taken once, when the first measurement of the session starts, and held until
the session ends: no other run gets onto the device between two tests. pytest-xdist workers
running at once are refused: they share the device and the host, and each would time the
others' work.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Set, Tuple

import pytest

import gpumeter as _gm
from gpumeter import _core, _gpumeter, _wire

_INDEX = "index.json"
_INDEX_SCHEMA = "gpumeter.pytest-run"


def _usage(message: str) -> pytest.UsageError:
    return pytest.UsageError(f"gpumeter: {message}")


# A baseline's index is read as strictly as a record (B7): an index this plugin writes holds a
# few levels (tests, their measurements, each one's fields) and a few kilobytes a test; past
# these bounds it is no index of ours, and is refused before Python's parser recurses or grows.
_INDEX_MAX_BYTES = 64 << 20
_INDEX_MAX_DEPTH = 8


def _shown(text: object) -> str:
    """Text from a file as plain text: control characters escaped by the core's rule, so a test
    id cannot forge a line of the summary."""
    return _gpumeter.inert_text(str(text))


def _read_index(folder: str, path: str) -> Dict[str, Dict[str, str]]:
    """The baseline's tests: test id -> measurement name -> the record's path, every path a file
    of `folder` itself. Raises ValueError saying what is wrong."""
    size = os.path.getsize(path)
    if size > _INDEX_MAX_BYTES:
        raise ValueError(f"{size} bytes, more than the {_INDEX_MAX_BYTES} an index may be")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    index = _wire.read_bounded(text, _INDEX_MAX_DEPTH, "an index")
    if not isinstance(index, dict) or index.get("schema") != _INDEX_SCHEMA or \
            not isinstance(index.get("tests"), dict):
        raise ValueError(f"not a {_INDEX_SCHEMA} index")
    home = os.path.realpath(folder)
    tests: Dict[str, Dict[str, str]] = {}
    for nodeid, calls in index["tests"].items():
        if not isinstance(calls, dict):
            raise ValueError(f"test {_shown(nodeid)!r}: not an object of measurements")
        tests[nodeid] = {}
        for name, call in calls.items():
            record = call.get("record") if isinstance(call, dict) else None
            where = f"test {_shown(nodeid)!r}, measurement {_shown(name)!r}"
            # A record of the baseline is a file of its folder, named as this plugin names it:
            # never a path elsewhere (absolute, ../..), nor a link out of the folder.
            if not isinstance(record, str) or not record or record in (".", "..") or \
                    "/" in record or os.sep in record or "\0" in record:
                raise ValueError(f"{where}: record {_shown(record)!r} is not a file name in the "
                                 "baseline's folder")
            full = os.path.join(folder, record)
            if os.path.dirname(os.path.realpath(full)) != home:
                raise ValueError(f"{where}: record {_shown(record)!r} leads out of the "
                                 "baseline's folder")
            tests[nodeid][name] = full
    return tests


class _Verdict:
    """One measurement of one test against its baseline."""

    def __init__(self, name: str, fails: bool, message: str, notes: List[str],
                 headline: str = "") -> None:
        self.name = name
        self.fails = fails
        self.message = message
        self.notes = notes
        self.headline = headline or message.split("\n")[0]


class PytestSession:
    """Everything the plugin keeps for one pytest session (one process)."""

    def __init__(self, config: Any) -> None:
        self.config = config
        root = config.getoption("gpumeter_dir")
        self.root = root if os.path.isabs(root) else os.path.join(str(config.rootpath), root)
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        self.run_id = f"{stamp}-{os.getpid()}"
        self.run_dir = os.path.join(self.root, "runs", self.run_id)
        self.save: Optional[str] = config.getoption("gpumeter_save")
        self.compare_name: Optional[str] = config.getoption("gpumeter_compare")
        self.allow_missing: bool = config.getoption("gpumeter_allow_missing")
        self.allow_contended: bool = config.getoption("gpumeter_allow_contended")
        text = config.getoption("gpumeter_fail_on_regression")
        self.threshold: Optional[float] = None  # a fraction: 0.1 for 10%
        if text is not None:
            if self.compare_name is None:
                raise _usage("--gpumeter-fail-on-regression needs --gpumeter-compare NAME: the "
                             "baseline to judge against")
            # The core's one fraction rule, the one `gpumeter compare --fail-on-regression` reads
            # by: 10% or 0.1, a bare 10 refused with both spellings named.
            problem = _gpumeter.number_option_problem("--gpumeter-fail-on-regression", text,
                                                      "gate_threshold")
            if problem:
                raise _usage(problem)
            self.threshold = _gpumeter.read_number(text, "gate_threshold")[0]
        # The core's rule of the gate's options (gate_options), as `gpumeter compare` checks them.
        problem = _gpumeter.gate_problem(self.threshold, self.allow_missing,
                                         "--gpumeter-fail-on-regression", "--gpumeter-allow-missing")
        if problem:
            raise _usage(problem)
        if self.save is not None:
            self._check_name("--gpumeter-save", self.save)
        self.baseline: Dict[str, Dict[str, str]] = {}
        self.baseline_dir = ""
        if self.compare_name is not None:
            self._load_baseline(self.compare_name)
        # nodeid -> {measurement name -> record file name}, for this run.
        self.index: Dict[str, Dict[str, Dict[str, Any]]] = {}
        self.lines: List[Tuple[str, str]] = []  # (nodeid, what was measured) for the summary
        self.verdicts: Dict[str, List[_Verdict]] = {}
        self.failed_gate: List[str] = []
        self.notes: List[str] = []
        self.deselected: Set[str] = set()
        self.collected: Set[str] = set()
        self.locks: Dict[int, Any] = {}
        self.lock_errors: Dict[int, BaseException] = {}
        self.gpu_reasons: Dict[int, Optional[str]] = {}
        self.saved = ""
        self.gone: List[str] = []

    # --- options and baselines -------------------------------------------------------------

    @staticmethod
    def _check_name(option: str, name: str) -> None:
        if not name or name in (".", "..") or "/" in name or "\0" in name:
            raise _usage(f"{option}: {name!r} is not a baseline name (a file name: letters, "
                         "digits, '-', '_', '.')")

    def _load_baseline(self, name: str) -> None:
        folder = name if os.sep in name else os.path.join(self.root, "baselines", name)
        path = os.path.join(folder, _INDEX)
        if not os.path.isfile(path):
            there = os.path.join(self.root, "baselines")
            saved = sorted(os.listdir(there)) if os.path.isdir(there) else []
            raise _usage(f"--gpumeter-compare {name}: no baseline at {folder} (saved: "
                         f"{', '.join(saved) if saved else 'none'}); make it with "
                         f"--gpumeter-save {name}")
        try:
            tests = _read_index(folder, path)
        except (OSError, ValueError, RecursionError) as e:
            raise _usage(f"--gpumeter-compare {name}: {path} cannot be read: {_shown(e)}; save "
                         "the baseline again with --gpumeter-save") from None
        self.baseline = tests
        self.baseline_dir = folder

    @property
    def gating(self) -> bool:
        return self.threshold is not None

    @property
    def _gate(self) -> Optional[float]:
        return self.threshold

    @property
    def _threshold_text(self) -> str:
        """The threshold as the reports show it ("10%"), in the core's words."""
        return "" if self.threshold is None else _gpumeter.gate_threshold_text(self.threshold)

    def _unseen_fails(self, what: str) -> bool:
        """Whether what the gate cannot see fails it (the core's rule: unless allow_missing)."""
        return _gpumeter.conclude_missing(what, self._gate, self.allow_missing).gate_fails

    # --- measuring --------------------------------------------------------------------------

    def fixture(self, request: Any) -> "Gpumeter":
        return Gpumeter(self, request)

    def check_worker(self) -> None:
        """pytest-xdist workers, named by pytest-xdist in the environment of each."""
        worker = os.environ.get("PYTEST_XDIST_WORKER")
        count = os.environ.get("PYTEST_XDIST_WORKER_COUNT", "")
        if worker and count != "1":
            pytest.fail(
                f"gpumeter: refused in pytest-xdist worker {worker} (one of {count or 'several'}"
                "): workers run at once on one host and one device, and each would time the "
                "others' work; run the performance tests in one process (-p no:xdist, or -n 0 "
                "or -n 1)", pytrace=False)

    def gpu_reason(self, device: int) -> Optional[str]:
        """Why GPU work cannot be measured on `device` here, or None when it can."""
        if device not in self.gpu_reasons:
            reason: Optional[str] = None
            if not _gpumeter.has_cuda():
                reason = "this gpumeter was built without the CUDA backend"
            else:
                e = _gm.env(device)
                if e.get("device") is None:
                    reason = str(e.get("device_unavailable") or "no usable CUDA device")
            self.gpu_reasons[device] = reason
        return self.gpu_reasons[device]

    def hold_lock(self, device: int) -> Any:
        """The device's lock, taken at the session's first measurement and held to its end."""
        held = self.locks.get(device)
        if held is None:
            if device in self.lock_errors:
                # Refused once for the session: every later test says so at once instead of
                # waiting again for a device that stayed busy.
                raise self.lock_errors[device]
            try:
                held = _gpumeter.hold_device_lock(device, self.allow_contended)
            except _gm.Error as e:
                self.lock_errors[device] = e
                raise
            self.locks[device] = held
            # Each measure() and compare() on this device finds it held and takes none itself.
            _core._held_locks[device] = held
        return held

    def release(self) -> None:
        for device, held in self.locks.items():
            _core._held_locks.pop(device, None)
            held.release()
        self.locks.clear()

    def record_path(self, nodeid: str, name: str, result: Any) -> str:
        os.makedirs(self.run_dir, exist_ok=True)
        path = _gm.write_record(result, self.run_dir)
        first = result.results if isinstance(result, _gm.CompareResult) else {name: result}
        methods = sorted({r.method for r in first.values()})
        self.index.setdefault(nodeid, {})[name] = {
            "record": os.path.basename(path), "methods": methods}
        self._write_index()
        return path

    def _write_index(self) -> None:
        index = {"schema": _INDEX_SCHEMA, "version": 1, "run_id": self.run_id,
                 "gpumeter_version": _gm.__version__, "tests": self.index}
        fd, tmp = tempfile.mkstemp(dir=self.run_dir, prefix=".index-")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(_wire.index_text(index))
        os.replace(tmp, os.path.join(self.run_dir, _INDEX))

    def against_baseline(self, nodeid: str, name: str, path: str) -> Optional[_Verdict]:
        """The measurement against the same one of the baseline, by `gpumeter compare`."""
        if self.compare_name is None:
            return None
        # The core's comparison and conclusion, as `gpumeter compare` reaches them: the gate
        # fails on a regression or on what it cannot see (a row missing from the baseline
        # included); a record unreadable or a row that cannot be compared (another statistic or
        # timing method, a failed null test) is no pass.
        gate = self._gate
        base = self.baseline.get(nodeid, {}).get(name)
        if base is None:
            what = (f"{name}: not in the baseline {self.compare_name!r} (a row missing from the "
                    "baseline: the gate cannot judge it)")
            c = _gpumeter.conclude_missing(what, gate, self.allow_missing)
            return _Verdict(name, c.gate_fails, what, [])
        try:
            report, c = _gpumeter.compare_record_files(base, path, gate, self.allow_missing)
        except _gm.Error as e:
            why = f"a record cannot be read: {e}"
            c = _gpumeter.conclude_unreadable(why, gate, self.allow_missing)
            return _Verdict(name, c.gate_fails,
                            f"{name} against the baseline {self.compare_name!r}:\n{why}", [],
                            f"{name}: {why}")
        fails = c.gate_fails
        text = (f"gpumeter compare: {c.why}\n\n" if c.why else "") + report.rstrip()
        # The failure's first line (pytest's short summary): the regressions, each row and its
        # words, else why the gate failed.
        if c.regressions:
            headline = (f"slower than the baseline {self.compare_name!r} beyond "
                        f"{self._threshold_text}: " + "; ".join(c.regressions))
        else:
            headline = f"{name}: " + (c.why or "no difference beyond the gate")
        return _Verdict(name, fails, f"{name} against the baseline {self.compare_name!r}:\n"
                        + text, list(c.notes), headline)

    # --- judging, saving, the summary -------------------------------------------------------

    def judge(self, item: Any, report: Any) -> None:
        """Fails a test whose measurements the gate fails, at the end of its call (or of its
        setup, when it was skipped there): its own assertions run first."""
        if not self.gating:
            return
        if not (report.when == "call" or (report.when == "setup" and report.skipped)):
            return
        failing = [v for v in self.verdicts.get(item.nodeid, []) if v.fails]
        problems = [v.message for v in failing]
        headlines = [v.headline for v in failing]
        measured = self.index.get(item.nodeid, {})
        missing = [n for n in self.baseline.get(item.nodeid, {}) if n not in measured]
        if missing:
            how = "it was skipped" if report.skipped else "it did not measure them"
            if report.skipped and isinstance(report.longrepr, tuple):
                reason = str(report.longrepr[2])
                how += f" ({reason[len('Skipped: '):] if reason.startswith('Skipped: ') else reason})"
            what = (f"the baseline {self.compare_name!r} has "
                    f"{', '.join(repr(_shown(n)) for n in missing)} "
                    f"for this test and this run has not ({how}): a row missing from the new run "
                    "fails the gate; --gpumeter-allow-missing lets it pass")
            if self._unseen_fails(what):
                problems.append(what)
                headlines.append(
                    f"not measured in this run: {', '.join(_shown(n) for n in missing)}")
        if not problems:
            return
        self.failed_gate.append(item.nodeid)
        text = (f"gpumeter: {'; '.join(headlines)}\n\nthe gate (--gpumeter-fail-on-regression "
                f"{self._threshold_text}) failed for {item.nodeid}\n\n" + "\n\n".join(problems))
        if report.passed or report.skipped:
            report.outcome = "failed"
            report.longrepr = text
            if hasattr(report, "wasxfail"):
                del report.wasxfail
        else:
            report.sections.append(("gpumeter", text))

    def finish(self, session: Any) -> None:
        self.release()
        if self.save is not None and self.index:
            self.saved = self._save(self.save)
        dist = getattr(self.config.option, "numprocesses", None)
        if self.gating and not dist and self.collected:
            # A baseline test this session did not collect at all (deselected ones are
            # chosen, and named in the summary only).
            self.gone = sorted(n for n in self.baseline
                               if n not in self.collected and n not in self.deselected)
            if (self.gone and session.exitstatus == 0 and self._unseen_fails(
                    f"{len(self.gone)} test(s) of the baseline not collected")):
                session.exitstatus = 1

    def _save(self, name: str) -> str:
        """The run's folder copied as the baseline `name`, which it replaces whole."""
        baselines = os.path.join(self.root, "baselines")
        os.makedirs(baselines, exist_ok=True)
        target = os.path.join(baselines, name)
        tmp = tempfile.mkdtemp(dir=baselines, prefix=f".{name}-")
        for f in os.listdir(self.run_dir):
            if f == _INDEX or (f.startswith("gpumeter-") and f.endswith(".json")):
                shutil.copy2(os.path.join(self.run_dir, f), tmp)
        old = None
        if os.path.exists(target):
            old = tempfile.mkdtemp(dir=baselines, prefix=f".{name}-old-")
            os.replace(target, os.path.join(old, name))
        os.replace(tmp, target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return target

    def summary(self, tr: Any) -> None:
        if not self.index and not self.gone and not self.failed_gate:
            return
        tr.section("gpumeter")
        for nodeid, text in self.lines:
            tr.write_line(f"{nodeid}: {text}")
        if self.index:
            n = sum(len(calls) for calls in self.index.values())
            tr.write_line(f"records: {n} in {self.run_dir}")
        if self.saved:
            tr.write_line(f"baseline {self.save!r} saved: {self.saved}")
        elif self.save is not None:
            tr.write_line(f"baseline {self.save!r} not saved: nothing was measured")
        if self.compare_name is not None:
            gate = (f" (--gpumeter-fail-on-regression {self._threshold_text}"
                    f"{', --gpumeter-allow-missing' if self.allow_missing else ''})"
                    if self.gating
                    else " (no gate: --gpumeter-fail-on-regression FRACTION sets one)")
            tr.write_line(f"compared with the baseline {self.compare_name!r}{gate}: "
                          f"{len(self.failed_gate)} test(s) failed the gate"
                          + (": " + ", ".join(self.failed_gate) if self.failed_gate else ""))
            if self.gone:
                tr.write_line(
                    "in the baseline, not in this session: "
                    f"{', '.join(_shown(n) for n in self.gone)}"
                    + (" (--gpumeter-allow-missing let them pass)" if self.allow_missing else
                       ": the gate cannot see them, so the session fails; select them, or "
                       "--gpumeter-allow-missing"))
            if not self.gating:
                # No gate: the comparisons are the output.
                for nodeid, verdicts in self.verdicts.items():
                    for v in verdicts:
                        tr.write_line(f"\n{nodeid}: {v.message}")
            skipped = sorted(n for n in self.baseline if n in self.deselected)
            if skipped:
                tr.write_line(
                    f"in the baseline, deselected: {', '.join(_shown(n) for n in skipped)}")
        for note in self.notes:
            tr.write_line(f"Note: {note}")


class Gpumeter:
    """The ``gpumeter`` fixture: ``gpumeter(fn, ...)`` and ``gpumeter.measure(fn, ...)`` are
    gpumeter.measure, ``gpumeter.compare({...}, ...)`` is gpumeter.compare, each with its
    arguments and its result; ``name`` defaults to the test's name."""

    def __init__(self, session: PytestSession, request: Any) -> None:
        self._session = session
        self._request = request
        self._names: Set[str] = set()

    def __call__(self, fn: Callable[[], Any], **kwargs: Any) -> Any:
        return self.measure(fn, **kwargs)

    def measure(self, fn: Callable[[], Any], **kwargs: Any) -> Any:
        return self._run(_gm.measure, fn, kwargs)

    def compare(self, implementations: Mapping[str, Callable[[], Any]], **kwargs: Any) -> Any:
        return self._run(_gm.compare, implementations, kwargs)

    def _run(self, how: Callable[..., Any], what: Any, kwargs: Dict[str, Any]) -> Any:
        s = self._session
        node = self._request.node
        if "lock" in kwargs:
            raise _gm.ConfigError("lock: the pytest plugin holds the device lock for the whole "
                                  "session; leave lock out", argument="lock")
        name = kwargs.pop("name", None) or node.name
        if name in self._names:
            raise _gm.ConfigError(f"name: {name!r} is measured twice in this test: give each "
                                  "measurement its own name=", argument="name")
        timing = kwargs.get("timing", "auto")
        device = kwargs.get("device")
        index = 0 if device is None else device
        s.check_worker()
        if not _gpumeter.timing_is_host(timing):
            # GPU work: never timed on the host clock as a fallback, since its baseline and
            # its rows would then not be the device's.
            reason = s.gpu_reason(index)
            if reason is not None:
                pytest.skip(f"gpumeter: GPU work, and no usable GPU here: {reason} "
                            "(timing='host' measures host work on the host clock)")
        held = s.hold_lock(index)
        self._names.add(name)
        # Host-clock rows are measured beside the Python yardstick, so the gate reads each row
        # and its baseline's against the load of their own minutes (docs/pytest.md).
        _core._yardstick = _core._PYTHON_YARDSTICK
        try:
            result = how(what, name=name, **kwargs)
        finally:
            _core._yardstick = None
        result = _with_deviations(result, held.deviations)
        path = s.record_path(node.nodeid, name, result)
        rows = result.results.values() if isinstance(result, _gm.CompareResult) else [result]
        methods = sorted({r.method for r in rows})
        clock = "/".join(methods)
        node.user_properties.append((f"gpumeter[{name}]", clock))
        text = f"{name} [{clock}]: " + "; ".join(str(r) for r in rows)
        if isinstance(result, _gm.CompareResult):
            text += "".join(f"; {c}" for c in result.comparisons)
        s.lines.append((node.nodeid, text))
        verdict = s.against_baseline(node.nodeid, name, path)
        if verdict is not None:
            s.verdicts.setdefault(node.nodeid, []).append(verdict)
            s.notes += [n for n in verdict.notes if n not in s.notes]
        return result


def _with_deviations(result: Any, deviations: List[str]) -> Any:
    """The result with what the session's lock found (its idle check) in its record: the
    measurement took no lock of its own, so its record would not say it."""
    record = result.record
    again = _gpumeter.with_deviations(record, list(deviations))
    if len(again.deviations) == len(record.deviations):  # it said them all already
        return result
    if isinstance(result, _gm.CompareResult):
        return _gpumeter.compare_result(again)
    return again.results[0]
