"""Issue 50: the report channel of ``gpumeter evaluate``'s candidates (evaluation_channel.cpp and
gpumeter/_child.py): the hash and MAC it is built on (known vectors), the frames the parent
accepts and the ones it refuses, the key erased in the child, and the stack a report must come
from."""

import hashlib
import hmac
import json
import os
import sys

from gpumeter import _child, _gpumeter

# --- the crypto: FIPS 180-4 (SHA-256) and RFC 4231 (HMAC-SHA256) vectors ---------------------

SHA256_VECTORS = [
    (b"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    (b"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    (b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqr"
     b"lmnopqrsmnopqrstnopqrstu",
     "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    (b"a" * 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
]

HMAC_VECTORS = [  # RFC 4231 test cases 1, 2, 3, 4, 6 and 7 (5 truncates its output)
    (b"\x0b" * 20, b"Hi There",
     "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
    (b"Jefe", b"what do ya want for nothing?",
     "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
    (b"\xaa" * 20, b"\xdd" * 50,
     "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
    (bytes(range(1, 26)), b"\xcd" * 50,
     "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
    (b"\xaa" * 131, b"Test Using Larger Than Block-Size Key - Hash Key First",
     "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    (b"\xaa" * 131, b"This is a test using a larger than block-size key and a larger than "
     b"block-size data. The key needs to be hashed before being used by the HMAC algorithm.",
     "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
]


def test_sha256_known_vectors():
    for data, digest in SHA256_VECTORS:
        assert _gpumeter.sha256_hex(data) == digest
    # Every length around the padding's block boundaries, against hashlib.
    for n in range(0, 200):
        data = bytes(range(256))[:n] * 1
        assert _gpumeter.sha256_hex(data) == hashlib.sha256(data).hexdigest(), n


def test_hmac_sha256_known_vectors():
    for key, data, mac in HMAC_VECTORS:
        assert _gpumeter.hmac_sha256_hex(key, data) == mac
        assert hmac.new(key, data, hashlib.sha256).hexdigest() == mac


# --- the frames the parent accepts ----------------------------------------------------------

KEY = bytes(range(32))


def frame(seq, kind, body, key=KEY):
    data = json.dumps(body).encode()
    head = f"gpumeter-channel 1 {seq} {kind} {len(data)}\n".encode() + data
    return head + hmac.new(key, head, hashlib.sha256).hexdigest().encode() + b"\n"


def report(payload, **extra):
    return dict({"payload": json.dumps(payload), "violations": [], "measurements": 2,
                 "records": []}, **extra)


def test_a_report_frame_is_read_with_what_the_compiled_code_added():
    read = _child.read_channel(frame(0, "report", report(
        {"ok": True}, records=[{"path": "/r.json", "sha256": "ab"}])), KEY)
    assert read.payload == {"ok": True} and read.problems == []
    assert read.measurements == 2 and read.records == [{"path": "/r.json", "sha256": "ab"}]


def test_what_gpumeter_did_not_write_is_a_problem():
    good = frame(0, "report", report({"ok": True}))
    for data in (b'{"ok": true, "tampered": []}\n',          # a line of its own
                 frame(0, "report", report({"ok": True}), key=bytes(32)),  # another key
                 good.replace(b'"measurements": 2', b'"measurements": 3'),  # a body changed
                 b'{"ok": true}\n' + good,                  # bytes before gpumeter's frame
                 good[:-3]):                                 # a frame cut short
        read = _child.read_channel(data, KEY)
        assert _child.NOT_GPUMETERS in read.problems, data
    # After a frame of gpumeter's, nothing is believed.
    read = _child.read_channel(good + b"junk", KEY)
    assert read.problems == [_child.NOT_GPUMETERS] and read.payload == {"ok": True}


def test_frames_out_of_order_a_second_report_and_violations_are_problems():
    violation = frame(0, "violation", {"violation": "a second report", "measurements": 0})
    repeated = _child.read_channel(violation + violation, KEY)
    assert "a frame missing from gpumeter's channel, or one sent twice" in repeated.problems
    skipped = _child.read_channel(frame(1, "report", report({"ok": True})), KEY)
    assert "a frame missing from gpumeter's channel, or one sent twice" in skipped.problems
    two = _child.read_channel(frame(0, "report", report({"ok": True})) +
                              frame(1, "report", report({"ok": True})), KEY)
    assert two.problems == ["a second report on gpumeter's channel"]
    listed = _child.read_channel(violation + frame(1, "report", report(
        {"ok": True}, violations=["a second report", "another"])), KEY)
    assert listed.violations == ["a second report", "another"]
    assert listed.problems == listed.violations


# --- the child's side -----------------------------------------------------------------------


def run_child(code, order=None):
    return _child.run([sys.executable, "-c", code], env=os.environ, timeout_s=60,
                      order={} if order is None else order, channel=True)


ERASED = r'''
import ctypes, json, os, posix
from gpumeter import _gpumeter
name = "GPUMETER_EVALUATION_CHANNEL"
given = os.environ[name]
key = given.split(":")[1].encode()
opened = _gpumeter.evaluation_channel_open()
with open("/proc/self/environ", "rb") as f:
    environ = f.read()
libc = ctypes.CDLL(None)
libc.getenv.restype = ctypes.c_char_p
_gpumeter.evaluation_report(json.dumps({
    "opened": opened, "reopened": _gpumeter.evaluation_channel_open(),
    "os.environ": name in os.environ, "posix.environ": name.encode() in posix.environ,
    "getenv": libc.getenv(name.encode()) is not None, "/proc/self/environ": key in environ,
    "argv": len(__import__("sys").argv)}))
'''


def test_the_key_is_erased_in_the_child_as_the_channel_opens():
    ended = run_child(ERASED)
    assert ended.rc == 0, ended.output
    assert ended.channel is not None and ended.channel.problems == [], ended.channel
    assert ended.report == {"opened": True, "reopened": False, "os.environ": False,
                            "posix.environ": False, "getenv": False,
                            "/proc/self/environ": False, "argv": 2}, ended.report
    # Nothing of the channel on the command line: the order alone.
    assert ended.channel.measurements == 0


FOREIGN = r'''
import json, threading
from gpumeter import _gpumeter

def run():
    _gpumeter.evaluation_channel_seal()
    space = {"_gpumeter": _gpumeter}
    exec(compile("sent = _gpumeter.evaluation_report('{\"ok\": true}')", "cand.py", "exec"), space)
    thread = threading.Thread(target=_gpumeter.evaluation_report, args=("{}",))
    thread.start()
    thread.join()
    return space["sent"]

def main():
    assert _gpumeter.evaluation_channel_open()
    sent = run()
    first = _gpumeter.evaluation_report(json.dumps({"ok": True, "foreign_sent": sent}))
    assert first
    assert not _gpumeter.evaluation_report("{}")

main()
'''


def test_a_report_from_code_not_gpumeters_is_a_violation_and_the_real_one_carries_it():
    ended = run_child(FOREIGN)
    assert ended.rc == 0, ended.output
    carried = ended.channel
    assert ended.report == {"ok": True, "foreign_sent": False}
    assert carried.violations[0] == \
        "a report asked for by code that is not gpumeter's (cand.py:1 in <module>)"
    assert carried.violations[1].startswith(
        "a report asked for by code that is not gpumeter's (threading.py:"), carried.violations
    assert carried.violations[2] == "a second report"
    assert carried.problems == carried.violations


TAG_OUTSIDE = r'''
import json
from gpumeter import _gpumeter

def run():
    _gpumeter.evaluation_channel_seal()
    space = {"_gpumeter": _gpumeter}
    exec(compile("tag = _gpumeter.evaluation_check_tag('c', 5)", "cand.py", "exec"), space)
    return space["tag"]

def main():
    assert _gpumeter.evaluation_channel_open()
    tag = run()
    _gpumeter.evaluation_report(json.dumps({"ok": True, "tag": tag}))

main()
'''


def test_a_checks_tag_asked_for_outside_the_drivers_check_is_a_violation():
    """Issue 50: the tag the checker accepts is given only while the driver checks a call; one
    asked for at any other time (a check the candidate sends itself) is a violation, and empty."""
    ended = run_child(TAG_OUTSIDE)
    assert ended.rc == 0, ended.output
    assert ended.report == {"ok": True, "tag": ""}, ended.report
    assert ended.channel.violations == [
        "a check's tag asked for outside gpumeter's check of a call (a check the candidate sent "
        "itself)"], ended.channel.violations
    # The parent's key and the checker's tag are the compiled side's, one derivation.
    key = _gpumeter.evaluation_check_key(b"k" * 32)
    assert len(key) == 32 and key != b"k" * 32
    tag = _gpumeter.evaluation_check_tag_of(key, "c", 5)
    assert len(tag) == 64 and tag != _gpumeter.evaluation_check_tag_of(key, "c", 6)
    assert tag != _gpumeter.evaluation_check_tag_of(key, "d", 5)


def test_without_a_channel_the_evaluation_child_refuses_to_run():
    import subprocess
    proc = subprocess.run([sys.executable, "-m", "gpumeter._evaluate_child", "{}"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "no report channel" in proc.stderr


MEASURED = r'''
import functools, json, threading, weakref
import numpy as np
import gpumeter
from gpumeter import _gpumeter

def inputs(seed):
    return (np.random.default_rng(seed).standard_normal((8, 8)),)

def reference(a):
    return a * 2

def measure(*implementations, lock=True):
    impls = {"reference": reference, "other": reference}
    impls.update(("nested%d" % i, f) for i, f in enumerate(implementations))
    gpumeter.compare(impls, fresh_inputs=inputs, timing="host", budget=(1, 4), lock=lock)

def nested(a):
    measure(lock=False)  # the running measurement holds the lock
    return reference(a)

class Candidate:
    pass

def run():
    _gpumeter.evaluation_channel_seal()
    measure()  # gpumeter's own stack (this file sealed it): no violation
    thread = threading.Thread(target=measure)
    thread.start()
    thread.join()
    weakref.finalize(Candidate(), measure)  # called as the object dies, by weakref's code
    # A measurement its own stack cannot tell from gpumeter's: a C callable (functools.partial)
    # called by the running measurement leaves no frame. (The inner one confuses the outer's
    # attribution: what is tested is the violation sent as it starts.)
    try:
        measure(functools.partial(nested))
    except gpumeter.Error:
        pass

def main():
    assert _gpumeter.evaluation_channel_open()
    run()
    _gpumeter.evaluation_report(json.dumps({"ok": True}))

main()
'''


def test_measurements_from_a_thread_a_finalizer_or_inside_another_are_violations():
    ended = run_child(MEASURED)
    assert ended.rc == 0, ended.output
    carried = ended.channel
    assert ended.report == {"ok": True}
    foreign = "a measurement started by code that is not gpumeter's ("
    assert carried.violations[0].startswith(foreign + "threading.py:"), carried.violations
    assert carried.violations[1].startswith(foreign + "weakref.py:"), carried.violations
    assert carried.violations[2:] == ["a measurement started inside a measurement"] * \
        (len(carried.violations) - 2) and len(carried.violations) > 2, carried.violations
    assert carried.measurements is not None and carried.measurements >= 5


def test_the_parent_judges_only_reported_records_inside_the_folder_as_written(tmp_path):
    from gpumeter import _evaluate
    folder = tmp_path / "001-candidate"
    (folder / "end-to-end").mkdir(parents=True)
    record = folder / "gpumeter-x.json"
    record.write_text('{"a": 1}')
    wall = folder / "end-to-end" / "gpumeter-y.json"
    wall.write_text('{"b": 2}')

    def reported(*paths):
        return {"channel": {"records": [
            {"path": str(p), "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
            for p in paths]}}
    found, why, trouble = _evaluate._reported_records(str(folder), reported(record, wall))
    assert why == "" and trouble == "" and found == {"record": os.path.realpath(record),
                                                     "end_to_end": os.path.realpath(wall)}
    # Changed after it was written: tampered (the core says which trouble is tampering).
    claim = reported(record)
    record.write_text('{"a": 2}')
    assert _evaluate._reported_records(str(folder), claim) == \
        ({}, "its record changed after gpumeter wrote it", "changed")
    # A record elsewhere, however it is reached.
    outside = tmp_path / "gpumeter-z.json"
    outside.write_text("{}")
    link = folder / "link.json"
    link.symlink_to(outside)
    for path in (outside, link):
        found, why, trouble = _evaluate._reported_records(str(folder), reported(path))
        assert found == {} and trouble == "elsewhere", why
        assert why.startswith("its report names a record outside"), why
    # None reported: what lies in the folder is not looked at.
    assert _evaluate._reported_records(str(folder), {"channel": {"records": []}}) == \
        ({}, "its report names 0 records in its folder, not 1", "miscounted")
    # What each trouble is, by the core's rule: tampering, but a miscount (no record to judge).
    for trouble, verdict in (("changed", "tampered"), ("elsewhere", "tampered"),
                             ("unreadable", "tampered"), ("miscounted", "not measured")):
        line, _ = _evaluate._judged_run({"record_trouble": trouble, "record_trouble_why": "w"})
        assert line["verdict"] == verdict and line["why"] == "w", (trouble, line)
        assert line.get("tampered") == (["w"] if verdict == "tampered" else None), line
