"""The runtime of each candidate, resolved before timing (python/gpumeter/_runtimes.py): Warp's
device through Warp's own lookup, refusals by name, the record's runtime fields, which runtime
synchronizes, and JAX's allocator. Runs without a GPU and without Warp, CuPy, PyTorch or JAX:
each is a fake module in sys.modules, as gpumeter finds a framework that is already imported."""
import os
import re
import subprocess
import sys
import types

import numpy as np
import pytest

import gpumeter
from gpumeter import _runtimes

QUICK = (1.0, 2.0)  # budgets in ms: these tests check what happens, not how fast
HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = os.path.join(HERE, "..", "..", "include", "gpumeter", "detail", "phases.hpp")


class FakeDevice:
    """Warp's Device as gpumeter reads it: ordinal -1 is Warp's CPU device."""

    def __init__(self, alias, ordinal, arch=90):
        self.alias = alias
        self.ordinal = ordinal
        self.arch = arch if ordinal >= 0 else 0

    @property
    def is_cpu(self):
        return self.ordinal < 0

    @property
    def is_cuda(self):
        return self.ordinal >= 0

    def __repr__(self):
        return f"FakeDevice({self.alias!r})"


class Kernel:
    def __init__(self, key):
        self.key = key


def make_warp(monkeypatch, default="cuda:0", gpus=1, version="1.9.1"):
    """A fake `warp` (and `warp.context`, defining launch) in sys.modules. `wp.ran` lists the
    kernels that really ran, `wp.syncs` the devices synchronized."""
    wp = types.ModuleType("warp")
    context = types.ModuleType("warp.context")
    devices = {"cpu": FakeDevice("cpu", -1)}
    for i in range(gpus):
        devices[f"cuda:{i}"] = FakeDevice(f"cuda:{i}", i)
    wp.default = default
    wp.ran = []
    wp.syncs = []

    def get_device(ident=None):
        if isinstance(ident, FakeDevice):
            return ident
        name = wp.default if ident is None else ("cuda:0" if ident == "cuda" else ident)
        if name not in devices:
            raise ValueError(f"Invalid device identifier: {name}")
        return devices[name]

    def launch(kernel, dim, inputs=(), outputs=(), adj_inputs=(), adj_outputs=(), device=None,
               stream=None):
        wp.ran.append((kernel.key, get_device(device).alias))

    wp.get_device = get_device
    wp.launch = context.launch = launch
    wp.synchronize_device = lambda device=None: wp.syncs.append(get_device(device).alias)
    wp.config = types.SimpleNamespace(version=version)
    wp.context = context
    monkeypatch.setitem(sys.modules, "warp", wp)
    monkeypatch.setitem(sys.modules, "warp.context", context)
    return wp


def saxpy_on(wp, device=None):
    """A candidate launching one Warp kernel, counting its calls in `calls`."""
    calls = []

    def saxpy():
        calls.append(1)
        wp.launch(Kernel("saxpy_kernel"), dim=16, inputs=[], device=device)
    return saxpy, calls


def candidate_runtime_fields():
    """The fields of the C++ struct CandidateRuntime, as its header declares them."""
    text = open(HEADER, encoding="utf-8").read()
    body = re.search(r"struct CandidateRuntime \{(.*?)\};", text, re.S).group(1)
    return re.findall(r"^\s*std::[\w:<>]+\s+(\w+);", body, re.M)


# --- Warp: refused before timing --------------------------------------------------------------


def test_a_launch_on_warps_cpu_device_is_refused_by_name_before_timing(monkeypatch):
    wp = make_warp(monkeypatch, default="cpu")  # Warp found no CUDA driver: its default is cpu
    saxpy, calls = saxpy_on(wp)
    with pytest.raises(gpumeter.WrongDevice) as refused:
        gpumeter.measure(saxpy, timing="host", budget=QUICK)
    e = refused.value
    assert len(calls) <= 1  # the detection call, never a timed one
    assert wp.ran == []  # the spy refused the launch before Warp ran it on the CPU
    assert "warp candidate 'saxpy'" in str(e) and "'saxpy_kernel'" in str(e)
    assert "Warp's CPU device 'cpu'" in str(e) and "device='cuda:0'" in str(e)
    assert (e.kernel, e.ran_on, e.measured, e.iteration) == ("saxpy_kernel", -1, 0, -1)


def test_a_declared_warp_candidate_on_the_cpu_is_refused_before_any_call(monkeypatch):
    wp = make_warp(monkeypatch)
    saxpy, calls = saxpy_on(wp)
    with pytest.raises(gpumeter.WrongDevice,
                       match=r"warp candidate 'saxpy' resolved to Warp's CPU device 'cpu': "
                             r"gpumeter times GPU work.*pass device='cuda:0'"):
        gpumeter.measure(gpumeter.warp(saxpy, device="cpu"), timing="host", budget=QUICK)
    assert calls == []


def test_a_device_warp_cannot_resolve_is_refused(monkeypatch):
    wp = make_warp(monkeypatch)
    saxpy, calls = saxpy_on(wp)
    with pytest.raises(gpumeter.WrongDevice, match=r"Warp cannot resolve device 'cuda:7' "
                                                   r"\(ValueError: Invalid device"):
        gpumeter.measure(gpumeter.warp(saxpy, device="cuda:7"), timing="host", budget=QUICK)
    assert calls == []


def test_a_declared_device_other_than_the_measured_one_is_refused(monkeypatch):
    wp = make_warp(monkeypatch, gpus=2)
    saxpy, calls = saxpy_on(wp, device="cuda:1")
    with pytest.raises(gpumeter.WrongDevice, match=r"Warp device 'cuda:1' \(CUDA device 1\), "
                                                   r"but gpumeter measures CUDA device 0") as e:
        gpumeter.measure(gpumeter.warp(saxpy, device="cuda:1"), timing="host", budget=QUICK)
    assert (e.value.ran_on, e.value.measured) == (1, 0) and calls == []
    # Undeclared, the launch itself on cuda:1 is refused, before it runs.
    with pytest.raises(gpumeter.WrongDevice, match=r"launched kernel 'saxpy_kernel' on Warp "
                                                   r"device 'cuda:1'"):
        gpumeter.measure(saxpy, timing="host", budget=QUICK)
    assert wp.ran == [] and len(calls) == 1


def test_a_declared_warp_device_whose_launches_go_elsewhere_is_refused(monkeypatch):
    wp = make_warp(monkeypatch, gpus=2)
    saxpy, _ = saxpy_on(wp, device="cuda:1")
    with pytest.raises(gpumeter.WrongDevice, match="launched kernel 'saxpy_kernel'"):
        _runtimes.resolve_runtimes({"saxpy": gpumeter.warp(saxpy, device="cuda:0")}, 0)


def test_a_refusal_the_candidate_catches_is_refused_still(monkeypatch):
    wp = make_warp(monkeypatch, default="cpu")

    def stubborn():
        try:
            wp.launch(Kernel("k"), dim=1)
        except gpumeter.WrongDevice:
            pass
    with pytest.raises(gpumeter.WrongDevice, match="launched kernel 'k' on Warp's CPU device"):
        gpumeter.measure(stubborn, timing="host", budget=QUICK)


def test_compare_refuses_the_implementation_on_the_cpu_by_name_before_timing(monkeypatch):
    wp = make_warp(monkeypatch)
    gpu, gpu_calls = saxpy_on(wp, device="cuda:0")
    cpu, cpu_calls = saxpy_on(wp, device="cpu")
    with pytest.raises(gpumeter.WrongDevice, match="warp candidate 'on_cpu'"):
        gpumeter.compare({"on_gpu": gpu, "on_cpu": cpu}, timing="host", budget=QUICK,
                         verify=False)
    assert len(gpu_calls) == 1 and len(cpu_calls) == 1  # the detection calls only


# --- Warp: detection and what is recorded -----------------------------------------------------


def test_detection_restores_warps_launch_functions_even_when_the_candidate_raises(monkeypatch):
    wp = make_warp(monkeypatch)
    original = wp.launch
    assert wp.context.launch is original

    def broken():
        wp.launch(Kernel("k"), dim=1)
        raise ValueError("bad shape")
    with pytest.raises(gpumeter.UserCodeError) as e:
        gpumeter.measure(broken, timing="host", budget=QUICK)
    assert isinstance(e.value.__cause__, ValueError)
    assert e.value.exception_type == "ValueError" and e.value.exception_message == "bad shape"
    assert "untimed call that finds its runtime" in e.value.step
    assert wp.launch is original and wp.context.launch is original
    # And after a refusal, and after a measurement.
    with pytest.raises(gpumeter.WrongDevice):
        gpumeter.measure(saxpy_on(wp, device="cpu")[0], timing="host", budget=QUICK)
    assert wp.launch is original and wp.context.launch is original
    gpumeter.measure(saxpy_on(wp)[0], timing="host", budget=QUICK)
    assert wp.launch is original and wp.context.launch is original


def test_a_warp_candidate_on_the_measured_gpu_is_measured(monkeypatch):
    wp = make_warp(monkeypatch)
    saxpy, calls = saxpy_on(wp)
    r = gpumeter.measure(gpumeter.warp(saxpy, device="cuda:0"), timing="host", budget=QUICK)
    assert r.name == "saxpy"  # the declared candidate is labelled by its function
    assert len(calls) > 1 and set(wp.ran) == {("saxpy_kernel", "cuda:0")}


def test_warps_version_alias_and_architecture_are_recorded(monkeypatch):
    wp = make_warp(monkeypatch)
    saxpy, _ = saxpy_on(wp)
    declared, detected = _runtimes.resolve_runtimes(
        {"declared": gpumeter.warp(saxpy), "detected": saxpy}, 0)
    for info in (declared, detected):
        assert (info.runtime, info.version, info.device_alias, info.arch,
                info.synchronized_by) == ("warp", "1.9.1", "cuda:0", "sm_90", "warp")
    assert declared.implementation == "declared" and detected.implementation == "detected"
    # Keyed by the record's field names, as the C++ struct spells them.
    fields = candidate_runtime_fields()
    assert fields == ["implementation", "runtime", "version", "device_alias", "arch",
                      "synchronized_by", "notes"]
    assert list(declared.to_dict()) == fields
    assert declared.to_dict()["notes"] == []


def test_warps_version_falls_back_to_dunder_version(monkeypatch):
    wp = make_warp(monkeypatch)
    wp.config = types.SimpleNamespace()
    wp.__version__ = "1.8.0"
    saxpy, _ = saxpy_on(wp)
    assert _runtimes.resolve_runtimes({"s": saxpy}, 0)[0].version == "1.8.0"


def test_without_warp_no_extra_call_and_no_runtime(monkeypatch):
    monkeypatch.delitem(sys.modules, "warp", raising=False)
    calls = []
    infos = _runtimes.resolve_runtimes({"f": lambda: calls.append(1)}, 0)
    assert calls == [] and infos[0].runtime == "" and infos[0].version == ""


def test_the_reset_runs_before_the_detection_call(monkeypatch):
    wp = make_warp(monkeypatch)
    order = []

    def f():
        order.append("call")
        wp.launch(Kernel("k"), dim=1)
    _runtimes.resolve_runtimes({"f": f}, 0, resets={"f": lambda: order.append("reset")})
    assert order == ["reset", "call"]


def test_launch_tiled_and_a_streams_device_are_seen(monkeypatch):
    wp = make_warp(monkeypatch, gpus=2)

    def launch_tiled(kernel, dim, inputs=(), device=None, stream=None, block_dim=256):
        wp.ran.append((kernel.key, "tiled"))
    wp.launch_tiled = launch_tiled
    stream = types.SimpleNamespace(device=wp.get_device("cuda:1"))
    with pytest.raises(gpumeter.WrongDevice, match="'tile_k' on Warp device 'cuda:1'"):
        _runtimes.resolve_runtimes(
            {"f": lambda: wp.launch_tiled(Kernel("tile_k"), dim=[4], stream=stream)}, 0)
    assert wp.launch_tiled is launch_tiled and wp.ran == []


# --- other runtimes ---------------------------------------------------------------------------


def make_torch(monkeypatch, gpus=1):
    torch = types.ModuleType("torch")
    torch.__version__ = "2.9.0"
    torch.syncs = []
    torch.cuda = types.SimpleNamespace(
        is_available=lambda: gpus > 0, device_count=lambda: gpus,
        get_device_capability=lambda i: (9, 0), synchronize=lambda i: torch.syncs.append(i))
    monkeypatch.setitem(sys.modules, "torch", torch)
    return torch


def make_cupy(monkeypatch, gpus=1):
    cupy = types.ModuleType("cupy")
    cupy.__version__ = "13.6.0"
    cupy.syncs = []

    class Device:
        def __init__(self, i):
            self.id = i
            self.compute_capability = "90"

        def synchronize(self):
            cupy.syncs.append(self.id)
    cupy.cuda = types.SimpleNamespace(
        Device=Device, runtime=types.SimpleNamespace(getDeviceCount=lambda: gpus))
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    return cupy


def test_torch_and_cupy_candidates_are_recorded(monkeypatch):
    monkeypatch.delitem(sys.modules, "warp", raising=False)
    make_torch(monkeypatch)
    make_cupy(monkeypatch)
    t, c = _runtimes.resolve_runtimes(
        {"t": gpumeter.candidate(lambda: None, "torch"),
         "c": gpumeter.candidate(lambda: None, runtime="cupy", device="cuda:0")}, 0)
    assert (t.runtime, t.version, t.device_alias, t.arch, t.synchronized_by) == (
        "torch", "2.9.0", "cuda:0", "sm_90", "torch")
    assert (c.runtime, c.version, c.device_alias, c.arch, c.synchronized_by) == (
        "cupy", "13.6.0", "cuda:0", "sm_90", "cupy")


def test_a_declared_cuda_device_other_than_the_measured_one_is_refused(monkeypatch):
    make_torch(monkeypatch, gpus=2)
    with pytest.raises(gpumeter.WrongDevice, match=r"torch candidate 't' declared device 1"):
        _runtimes.resolve_runtimes({"t": gpumeter.candidate(lambda: None, "torch", 1)}, 0)
    with pytest.raises(gpumeter.WrongDevice, match=r"declared device 'cpu'"):
        _runtimes.resolve_runtimes({"t": gpumeter.candidate(lambda: None, "torch", "cpu")}, 0)


def test_a_candidate_calls_its_function_and_refuses_an_unknown_runtime():
    c = gpumeter.candidate(lambda x=2: x * 3, "cuda")
    assert c() == 6 and c(5) == 15 and c.runtime == "cuda" and c.device is None
    assert "runtime='cuda'" in repr(c)
    with pytest.raises(gpumeter.ConfigError, match="runtime: must be one of") as e:
        gpumeter.candidate(print, "opencl")
    assert e.value.argument == "runtime"
    with pytest.raises(gpumeter.ConfigError):
        gpumeter.warp(42)


# --- synchronization --------------------------------------------------------------------------


def test_synchronization_prefers_warp_then_cupy_then_torch(monkeypatch):
    wp = make_warp(monkeypatch)
    cupy = make_cupy(monkeypatch)
    torch = make_torch(monkeypatch)
    sync, name = _runtimes.synchronizer(0)
    sync()
    assert name == "warp" and wp.syncs == ["cuda:0"] and cupy.syncs == torch.syncs == []
    monkeypatch.delitem(sys.modules, "warp")
    sync, name = _runtimes.synchronizer(0)
    sync()
    assert name == "cupy" and cupy.syncs == [0] and torch.syncs == []
    monkeypatch.delitem(sys.modules, "cupy")
    sync, name = _runtimes.synchronizer(0)
    sync()
    assert name == "torch" and torch.syncs == [0]


def test_the_candidates_own_runtime_synchronizes_first(monkeypatch):
    make_warp(monkeypatch)
    make_cupy(monkeypatch)
    torch = make_torch(monkeypatch)
    assert _runtimes.synchronizer(0, "torch")[1] == "torch"
    assert _runtimes.synchronizer(0, "triton")[1] == "torch"  # Triton launches on torch's stream
    assert _runtimes.synchronizer(0, "cupy")[1] == "cupy"
    assert _runtimes.synchronizer(0, "jax")[1] == "warp"
    _runtimes.synchronizer(0, "torch")[0]()
    assert torch.syncs == [0]


def test_a_runtime_that_cannot_reach_the_device_is_passed_over(monkeypatch):
    make_warp(monkeypatch, gpus=0)  # Warp without CUDA: it has no 'cuda:0'
    make_cupy(monkeypatch, gpus=0)
    torch = make_torch(monkeypatch, gpus=2)
    sync, name = _runtimes.synchronizer(1)
    sync()
    assert name == "torch" and torch.syncs == [1]  # the measured device, not the current one


def test_nothing_to_synchronize_is_a_device_error(monkeypatch):
    for name in ("warp", "cupy", "torch"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    with pytest.raises(gpumeter.DeviceError, match=r"nothing can synchronize CUDA device 0, .*"
                                                   r"warp: not imported; cupy: not imported; "
                                                   r"torch: not imported"):
        _runtimes.synchronizer(0)
    make_torch(monkeypatch, gpus=0)
    with pytest.raises(gpumeter.DeviceError, match=r"torch: RuntimeError: torch.cuda"):
        _runtimes.synchronizer(0, "torch")
    # Recorded as no runtime, not raised, until a wall-clock phase needs one.
    info = _runtimes.resolve_runtimes({"t": gpumeter.candidate(lambda: None, "torch")}, 0)[0]
    assert info.runtime == "torch" and info.synchronized_by == ""


# --- JAX --------------------------------------------------------------------------------------


PREALLOCATE = "XLA_PYTHON_CLIENT_PREALLOCATE"


def test_child_processes_start_with_jax_preallocation_off():
    env = _runtimes.child_environment({PREALLOCATE: "true", "PATH": "/bin"})
    assert env == {PREALLOCATE: "false", "PATH": "/bin"}
    assert _runtimes.child_environment()[PREALLOCATE] == "false"


def test_importing_gpumeter_turns_preallocation_off_unless_jax_came_first():
    env = {k: v for k, v in os.environ.items() if k != PREALLOCATE}
    show = f"import os; print(os.environ.get({PREALLOCATE!r}))"
    first = subprocess.run([sys.executable, "-c", f"import gpumeter; {show}"], env=env,
                           capture_output=True, text=True, timeout=120)
    assert first.stdout.strip() == "false", first.stderr[-2000:]
    jax_first = ("import sys, types; sys.modules['jax'] = types.ModuleType('jax'); "
                 f"import gpumeter; {show}")
    late = subprocess.run([sys.executable, "-c", jax_first], env=env, capture_output=True,
                          text=True, timeout=120)
    assert late.stdout.strip() == "None", late.stderr[-2000:]


def make_jax(monkeypatch, started=True, gpu=True):
    jax = types.ModuleType("jax")
    jax.__version__ = "0.7.2"
    device = types.SimpleNamespace(platform="gpu" if gpu else "cpu", id=0,
                                   compute_capability="9.0")
    jax.devices = lambda: [device]
    monkeypatch.setitem(sys.modules, "jax", jax)
    bridge = types.ModuleType("jax._src.xla_bridge")
    bridge._backends = {"cuda": object()} if started else {}
    monkeypatch.setitem(sys.modules, "jax._src.xla_bridge", bridge)
    return jax


def test_jax_imported_with_preallocation_on_is_noted_as_a_deviation(monkeypatch):
    monkeypatch.delenv(PREALLOCATE, raising=False)
    monkeypatch.delitem(sys.modules, "warp", raising=False)
    make_jax(monkeypatch, started=True)
    info = _runtimes.resolve_runtimes({"j": gpumeter.candidate(lambda: None, "jax")}, 0)[0]
    note = "JAX allocator preallocation was on (jax imported before gpumeter set it off)"
    assert info.notes == (note,)
    assert (info.runtime, info.version, info.device_alias, info.arch) == (
        "jax", "0.7.2", "cuda:0", "sm_90")
    assert _runtimes.deviations([info]) == [f"j: {note}"]
    assert PREALLOCATE not in os.environ  # nothing pretends it was changed


def test_jax_not_started_yet_is_set_off(monkeypatch):
    monkeypatch.setenv(PREALLOCATE, "true")
    make_jax(monkeypatch, started=False)
    info = _runtimes.resolve_runtimes({"j": gpumeter.candidate(lambda: None, "jax")}, 0)[0]
    assert info.notes == ("allocator preallocation off",)
    assert os.environ[PREALLOCATE] == "false" and _runtimes.deviations([info]) == []


def test_jax_started_with_preallocation_off_says_so(monkeypatch):
    monkeypatch.setenv(PREALLOCATE, "false")
    make_jax(monkeypatch, started=True)
    assert _runtimes.jax_preallocation_note() == "allocator preallocation off"


def test_a_jax_candidate_without_a_gpu_is_refused(monkeypatch):
    monkeypatch.setenv(PREALLOCATE, "false")
    make_jax(monkeypatch, gpu=False)
    with pytest.raises(gpumeter.WrongDevice, match="jax candidate 'j': JAX has no GPU device 0"):
        _runtimes.resolve_runtimes({"j": gpumeter.candidate(lambda: None, "jax")}, 0)


# --- Warp arrays as outputs and inputs --------------------------------------------------------


class WarpArray:
    """A Warp array as compare() reads it: no copy() or get(); numpy() copies it to the host."""

    def __init__(self, values):
        self.values = np.asarray(values, dtype=np.float32)

    def numpy(self):
        return self.values.copy()


WarpArray.__module__ = "warp.types"


def test_an_array_that_only_names_itself_warps_is_not_plain(monkeypatch):
    monkeypatch.delitem(sys.modules, "warp", raising=False)
    monkeypatch.delitem(sys.modules, "warp.types", raising=False)
    with pytest.raises(gpumeter.AnswerNotPlain, match="warp.types.WarpArray"):
        gpumeter.compare({"a": lambda: WarpArray([1, 2, 3]), "b": lambda: WarpArray([1, 2, 3])},
                         timing="host", budget=QUICK)


def test_compare_checks_warp_arrays_as_outputs_and_inputs(monkeypatch):
    monkeypatch.delitem(sys.modules, "warp", raising=False)
    # Warp's array class is where Warp keeps it (warp.types.array): only that class is read as a
    # plain answer, never one that merely names itself so (issue 38).
    types_module = types.ModuleType("warp.types")
    types_module.array = WarpArray  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "warp.types", types_module)
    shared = WarpArray([1, 2, 3])
    c = gpumeter.compare({"a": lambda: WarpArray([1, 2, 3]), "b": lambda: WarpArray([1, 2, 3])},
                         inputs=[shared], timing="host", budget=QUICK)
    assert set(c.results) == {"a", "b"}
    with pytest.raises(gpumeter.VerificationFailed, match="b: output differs"):
        gpumeter.compare({"a": lambda: WarpArray([1, 2, 3]), "b": lambda: WarpArray([1, 2, 4])},
                         timing="host", budget=QUICK)

    def overwrite():
        shared.values[0] = 9
        return WarpArray([1, 2, 3])
    with pytest.raises(gpumeter.InputsModified):
        gpumeter.compare({"a": lambda: WarpArray([1, 2, 3]), "b": overwrite}, inputs=[shared],
                         timing="host", budget=QUICK)
