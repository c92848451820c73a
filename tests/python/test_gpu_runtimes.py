"""Runtimes on a GPU, with the real frameworks: a Warp candidate resolved and recorded, Warp's
CPU device refused before it runs, each runtime synchronizing the measured device, JAX's
preallocation, and examples/python/warp_saxpy.py's candidates computing y = a * x + y. Every
test skips, saying why, without a usable GPU or without the framework it needs."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import gpumeter
from gpumeter import _runtimes

pytestmark = pytest.mark.usefixtures("gpu")

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "examples", "python")


def test_warp_candidate_is_resolved_recorded_and_measured():
    wp = pytest.importorskip("warp")
    wp.init()

    @wp.kernel
    def scale(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = 2.0 * x[i]

    n = 1 << 20
    x = wp.ones(n, dtype=float, device="cuda:0")
    y = wp.zeros(n, dtype=float, device="cuda:0")
    fn = gpumeter.warp(lambda: wp.launch(scale, dim=n, inputs=[x, y], device="cuda:0"),
                       device="cuda:0")
    info = _runtimes.resolve_runtimes({"scale": fn}, 0)[0]
    device = wp.get_device("cuda:0")
    assert (info.runtime, info.version, info.device_alias, info.synchronized_by) == (
        "warp", wp.config.version, "cuda:0", "warp")
    assert info.arch == f"sm_{device.arch}" == gpumeter.env()["device"]["arch"]
    r = gpumeter.measure(fn)
    assert r.method == "kernel-records" and r.max_n_kernels == 1


def test_warps_cpu_device_is_refused_on_a_gpu_machine_before_it_runs():
    wp = pytest.importorskip("warp")
    np = pytest.importorskip("numpy")
    wp.init()

    @wp.kernel
    def add_one(y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = y[i] + 1.0

    y = wp.zeros(16, dtype=float, device="cpu")
    with pytest.raises(gpumeter.WrongDevice, match="launched kernel .* on Warp's CPU device"):
        gpumeter.measure(lambda: wp.launch(add_one, dim=16, inputs=[y], device="cpu"))
    assert np.array_equal(y.numpy(), np.zeros(16, dtype=np.float32))  # it never ran
    with pytest.raises(gpumeter.WrongDevice, match="resolved to Warp's CPU device 'cpu'"):
        gpumeter.measure(gpumeter.warp(lambda: None, device="cpu"))


@pytest.mark.parametrize("runtime", ["warp", "cupy", "torch"])
def test_each_runtime_synchronizes_the_measured_device(runtime):
    module = pytest.importorskip(runtime)
    if runtime == "warp":
        module.init()
    sync, name = _runtimes.synchronizer(0, runtime)
    assert name == runtime
    sync()


def _cubin(tmp_path):
    """saxpy.cu built by nvcc for the device's architecture, or None without nvcc."""
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                    if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    if nvcc is None:
        return None
    arch = gpumeter.env()["device"]["arch"]  # "sm_90", as the record names it
    out = str(tmp_path / "saxpy.cubin")
    subprocess.run([nvcc, "-cubin", f"-arch={arch}", "-o", out,
                    os.path.join(EXAMPLES, "saxpy.cu")], check=True, timeout=300)
    return out


@pytest.mark.parametrize("name", ["warp", "cupy", "torch", "cupy_nvrtc", "cupy_cubin"])
def test_the_saxpy_example_candidates_compute_saxpy(name, tmp_path, monkeypatch):
    np = pytest.importorskip("numpy")
    pytest.importorskip({"cupy_nvrtc": "cupy", "cupy_cubin": "cupy"}.get(name, name))
    monkeypatch.syspath_prepend(EXAMPLES)
    import warp_saxpy

    if name == "cupy_cubin":
        cubin = _cubin(tmp_path)
        if cubin is None:
            pytest.skip("no nvcc to build saxpy.cubin")
        monkeypatch.setenv(warp_saxpy.CUBIN_VARIABLE, cubin)
    n = 1 << 20
    steps = warp_saxpy.CANDIDATES[name](n)
    for step in ("init", "compile", "convert", "kernel", "sync"):
        if steps[step] is not None:
            steps[step]()
    assert np.allclose(steps["result"](), warp_saxpy.expected(n), rtol=1e-6, atol=0)
    steps["call"]()  # the public call converts again: y is reset, then updated once
    steps["sync"]()
    assert np.allclose(steps["result"](), warp_saxpy.expected(n), rtol=1e-6, atol=0)
    runtime = "cupy" if name.startswith("cupy") else name
    r = gpumeter.measure(gpumeter.candidate(steps["kernel"], runtime))
    assert r.max_n_kernels == 1


def test_jax_runs_with_preallocation_off_or_says_it_did_not():
    pytest.importorskip("jax")
    code = """
        import os
        {first}
        from gpumeter import _runtimes
        import jax, jax.numpy as jnp
        jnp.zeros(4).block_until_ready()  # JAX's backend has started
        info = _runtimes.resolve_runtimes(
            {{"j": gpumeter.candidate(lambda: jnp.zeros(4), "jax")}}, 0)[0]
        print(os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE"), "|", info.notes, "|", info.arch)
    """
    env = {k: v for k, v in os.environ.items() if k != "XLA_PYTHON_CLIENT_PREALLOCATE"}
    after = subprocess.run([sys.executable, "-c", textwrap.dedent(code.format(
        first="import gpumeter"))], capture_output=True, text=True, timeout=300, env=env)
    assert after.returncode == 0, after.stderr[-3000:]
    assert "false | ('allocator preallocation off',) | sm_" in after.stdout
    before = subprocess.run([sys.executable, "-c", textwrap.dedent(code.format(
        first="import jax, jax.numpy as jnp; jnp.zeros(1).block_until_ready(); import gpumeter"
    ))], capture_output=True, text=True, timeout=300, env=env)
    assert before.returncode == 0, before.stderr[-3000:]
    assert "jax imported before gpumeter set it off" in before.stdout
