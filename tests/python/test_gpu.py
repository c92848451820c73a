"""gpumeter from Python on a GPU: the frameworks its users time (PyTorch eager, cuBLAS,
torch.compile, Triton, CuPy, Warp, CUDA graphs), the off-thread launches of autograd and JAX,
the PyTorch profiler in the same process, and a known answer: a kernel that spins 20 us on
%globaltimer and writes its own stamps. Every test skips, saying why, without a usable GPU.
Tests that need a fresh process (the profiler, JAX) run one."""
import os
import subprocess
import sys
import textwrap
import warnings

import pytest

import gpumeter

pytestmark = pytest.mark.usefixtures("gpu")


def run_fresh(code: str) -> subprocess.CompletedProcess:
    """Runs `code` in a new Python process (CUPTI and the profiler are per process)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300, env=dict(os.environ))


def test_known_answer_cupy_spin_20us_within_1us():
    cp = pytest.importorskip("cupy")
    spin = cp.RawKernel(r'''
    extern "C" __global__ void spin(unsigned long long ns, unsigned long long* stamps, int slot) {
      unsigned long long start, now;
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
      now = start;
      while (now - start < ns) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
      stamps[2 * slot] = start;
      stamps[2 * slot + 1] = now;
    }''', "spin")
    slots = 8192
    stamps = cp.zeros(2 * slots, dtype=cp.uint64)
    calls = [0]

    def launch():
        spin((1,), (1,), (cp.uint64(20000), stamps, cp.int32(calls[0] % slots)))
        calls[0] += 1

    r = gpumeter.measure(launch)
    assert r.method == "kernel-records" and r.max_n_kernels == 1
    n = r.n_samples
    s = stamps.get().reshape(-1, 2)
    own = sorted(int(s[k % slots, 1] - s[k % slots, 0]) for k in range(calls[0] - n, calls[0]))
    own_median = own[len(own) // 2]
    print(f"KNOWN-ANSWER python cupy spin 20 us: device_busy median {r.device_busy.median_ns:.0f} "
          f"ns, own stamps median {own_median} ns")
    assert own_median >= 20000
    assert abs(r.device_busy.median_ns - own_median) < 1000


def test_protocol_on_the_gpu_null_test_lock_memory_clock():
    """The evaluation protocol from Python on a device: a 20 us spin whose `scaled` hook spins
    4x as long passes the null test; one whose hook ignores the scale fails it and its
    comparison is refused; the lock is taken with its idle check; memory and clock are read."""
    cp = pytest.importorskip("cupy")
    spin = cp.RawKernel(r'''
    extern "C" __global__ void spin_for(unsigned long long ns) {
      unsigned long long start, now;
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
      now = start;
      while (now - start < ns) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    }''', "spin_for")

    def run(ns):
        spin((1,), (1,), (cp.uint64(ns),))

    c = gpumeter.compare({"honest": lambda: run(20000), "ignores": lambda: run(20000)},
                         scaled={"honest": lambda k: run(20000 * k),
                                 "ignores": lambda k: run(20000)}, verify=False)
    honest, ignores = c.results["honest"], c.results["ignores"]
    print(f"NULL-TEST honest: {honest.null_test}; ignores: {ignores.null_test}; "
          f"refusal: {c.comparisons[0].refusal!r}")
    assert honest.method == "kernel-records" and not honest.null_test_failed, honest.null_test
    assert ignores.null_test_failed, ignores.null_test
    assert c.comparisons[0].refusal != "" and "null test failed" in c.comparisons[0].text
    lock_notes = [d for d in c.record.deviations if d.startswith("device lock")]
    print(f"LOCK deviations: {lock_notes}")
    assert not any("without the idle check" in d or "not taken" in d for d in lock_notes)
    assert honest.median_sm_clock_mhz is not None and honest.median_sm_clock_mhz > 0
    assert honest.clock_flagged_samples is not None
    assert honest.min_sm_clock_mhz <= honest.median_sm_clock_mhz <= honest.max_sm_clock_mhz
    assert honest.clock_below_reference_samples <= honest.clock_flagged_samples
    # Memory: everything this process holds above its context floor, so 64 MiB taken between
    # two measurements (straight from the driver, not from CuPy's pool) shows as 64 MiB more.
    before = gpumeter.measure(lambda: run(1000))
    held = cp.cuda.runtime.malloc(64 << 20)
    try:
        after = gpumeter.measure(lambda: run(1000))
    finally:
        cp.cuda.runtime.free(held)
    assert before.gpu_workload_bytes is not None and after.gpu_workload_bytes is not None
    grew = after.gpu_workload_bytes - before.gpu_workload_bytes
    print(f"MEMORY-CLOCK 64 MiB held: workload {before.gpu_workload_bytes} -> "
          f"{after.gpu_workload_bytes} bytes (+{grew}); median SM clock "
          f"{honest.median_sm_clock_mhz} MHz [{honest.min_sm_clock_mhz}, "
          f"{honest.max_sm_clock_mhz}], {honest.clock_flagged_samples} samples flagged, "
          f"reasons {honest.throttle_reason_samples}")
    assert abs(grew - (64 << 20)) <= (2 << 20)


def test_torch_elementwise_and_the_python_call_is_not_device_time():
    torch = pytest.importorskip("torch")
    x = torch.randn(1 << 24, device="cuda")
    with warnings.catch_warnings():
        warnings.simplefilter("error", gpumeter.FallbackWarning)  # a GPU: no fallback, no warning
        r = gpumeter.measure(lambda: x * 2 + 1, bytes=3 * 4 * x.numel())
    assert r.method == "kernel-records" and r.max_n_kernels >= 1
    assert r.tbs is not None and r.tbs > 0.5
    # Python between two kernels: a gap in latency, never device time.
    y = torch.randn(1 << 10, device="cuda")

    def with_python_between():
        a = y * 2
        sum(range(20000))  # about a millisecond of Python
        return a + 1

    r2 = gpumeter.measure(with_python_between)
    assert r2.max_n_kernels == 2
    assert r2.latency.median_ns > r2.device_busy.median_ns + 100_000
    print(f"PYTHON-GAP two tiny kernels with Python between: device_busy "
          f"{r2.device_busy.median_ns:.0f} ns, latency {r2.latency.median_ns:.0f} ns")


def test_torch_matmul_through_cublas():
    torch = pytest.importorskip("torch")
    n = 4096
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    r = gpumeter.measure(lambda: a @ b, flops=2 * n**3)
    assert r.tflops is not None and r.tflops > 100
    # The ceilings were timed like the row (CUPTI's device_busy, the fastest sample), and a
    # percent above 100 is marked as such.
    c = r.record.ceilings
    assert (c.method, c.statistic, c.rule) == ("kernel-records", "device_busy", "fastest_sample")
    assert c.flops_per_s is not None
    assert r.pct_of_peak_flops is not None
    assert r.above_flops_ceiling == (r.pct_of_peak_flops > 100)
    print(f"TORCH-MATMUL 4096^3 bf16: {r.tflops:.0f} TFLOP/s, {r.pct_of_peak_flops:.1f}% of the "
          f"measured GEMM ceiling {c.flops_per_s / 1e12:.0f} TFLOP/s"
          f"{' (above the measured ceiling)' if r.above_flops_ceiling else ''}")


def test_compare_eager_and_compiled():
    torch = pytest.importorskip("torch")
    x = torch.randn(1 << 22, device="cuda")

    def f(t):
        return torch.relu(t * 1.5 - 0.25).sum()

    compiled = torch.compile(f)
    c = gpumeter.compare({"eager": lambda: f(x), "compiled": lambda: compiled(x)}, inputs=[x],
                         rtol=1e-4, atol=1e-2)
    assert c.results["eager"].max_n_kernels >= 2
    assert c.comparisons[0].rule == "relative_difference"
    print("TORCH-COMPILE", c.comparisons[0])


def test_triton_kernel():
    torch = pytest.importorskip("torch")
    triton = pytest.importorskip("triton")
    import triton.language as tl

    @triton.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = i < n
        tl.store(out_ptr + i, tl.load(x_ptr + i, mask=m) + tl.load(y_ptr + i, mask=m), mask=m)

    n = 1 << 24
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    r = gpumeter.measure(lambda: add[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024),
                         bytes=12 * n)
    assert r.max_n_kernels == 1 and r.tbs > 1.0
    assert torch.allclose(out, x + y)


def test_cupy_raw_kernel():
    cp = pytest.importorskip("cupy")
    k = cp.RawKernel(r'''
    extern "C" __global__ void twice(const float* x, float* y, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) y[i] = 2.0f * x[i];
    }''', "twice")
    n = 1 << 24
    x = cp.random.rand(n, dtype=cp.float32)
    y = cp.empty_like(x)
    r = gpumeter.measure(lambda: k(((n + 255) // 256,), (256,), (x, y, cp.int32(n))), bytes=8 * n)
    assert r.max_n_kernels == 1 and r.tbs > 1.0
    assert cp.allclose(y, 2 * x)


def test_warp_kernel():
    wp = pytest.importorskip("warp")
    wp.init()

    @wp.kernel
    def scale(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = 2.0 * x[i]

    n = 1 << 22
    x = wp.array([1.0] * n, dtype=float, device="cuda:0")
    y = wp.zeros(n, dtype=float, device="cuda:0")
    r = gpumeter.measure(lambda: wp.launch(scale, dim=n, inputs=[x, y], device="cuda:0"))
    assert r.max_n_kernels == 1


def test_cuda_graph_replay_counts_every_kernel_of_the_graph():
    torch = pytest.importorskip("torch")
    x = torch.randn(1 << 16, device="cuda")
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):  # warm up before capture
            y = ((x * 2) + 1).relu()
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        y = ((x * 2) + 1).relu()
    r = gpumeter.measure(g.replay)
    assert r.max_n_kernels == 3, r.max_n_kernels
    assert min(s.n_kernels for s in r.samples) == 3


def test_autograd_backward_is_off_thread_and_the_documented_fix_works():
    p = run_fresh('''
        import torch, gpumeter
        x = torch.randn(1 << 20, device="cuda", requires_grad=True)
        def backward():
            (x * x).sum().backward()
        try:
            gpumeter.measure(backward)
            print("MEASURED")
        except gpumeter.OffThreadLaunch as e:
            print("OFFTHREAD", str(e))
            print(f"OFFTHREAD-FIELDS n_kernels={e.n_kernels} example_kernel={e.example_kernel!r} "
                  f"loss_ruled_out={e.loss_ruled_out}")
        torch.autograd.set_multithreading_enabled(False)  # the documented fix
        r = gpumeter.measure(backward)
        print("FIXED", r.max_n_kernels, r.device_busy.median_ns)
    ''')
    assert p.returncode == 0, p.stderr[-3000:]
    assert "OFFTHREAD" in p.stdout and "set_multithreading_enabled(False)" in p.stdout, p.stdout
    # The error's fields, from the core: how many kernels, and one of their names.
    fields = p.stdout.split("OFFTHREAD-FIELDS ")[1].split("\n")[0]
    assert int(fields.split("n_kernels=")[1].split()[0]) >= 1, fields
    assert "example_kernel=''" not in fields, fields
    assert "FIXED" in p.stdout, p.stdout
    print(p.stdout)


def test_profiler_active_is_refused_naming_it_and_gpumeter_works_after():
    p = run_fresh('''
        import torch, gpumeter
        x = torch.randn(1 << 20, device="cuda")
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            (x * 2).sum()
            try:
                gpumeter.measure(lambda: x * 2)
                print("BESIDE")
            except gpumeter.CuptiUnavailable as e:
                print("REFUSED", str(e))
        print("PROFILER-EVENTS", len(prof.events()))
        r = gpumeter.measure(lambda: x * 2)
        print("AFTER", r.method, r.max_n_kernels)
    ''')
    print(p.stdout, p.stderr[-2000:])
    assert p.returncode == 0, p.stderr[-3000:]
    assert "REFUSED" in p.stdout and "PyTorch's profiler is running" in p.stdout, p.stdout
    assert "AFTER kernel-records 1" in p.stdout, p.stdout


def test_profiler_after_gpumeter_records_the_gpu_and_gpumeter_works_again():
    # No release_cupti() needed: every measure() gives CUPTI back when it returns, so a profiler
    # started after a measurement (or after gpumeter.env()) records GPU activity, and gpumeter
    # measures again after it, twice.
    p = run_fresh('''
        import torch, gpumeter
        x = torch.randn(1 << 20, device="cuda")
        gpumeter.env()
        r = gpumeter.measure(lambda: x * 2)
        print("GPUMETER", r.method)
        for cycle in (1, 2):
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                (x * 2).sum()
                torch.cuda.synchronize()
            kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
            print(f"PROFILER-CUDA-EVENTS cycle {cycle}: {len(kernels)}")
            r = gpumeter.measure(lambda: x * 2)
            print(f"AGAIN cycle {cycle}: {r.method} {r.max_n_kernels}")
    ''')
    print(p.stdout, p.stderr[-2000:])
    assert p.returncode == 0, p.stderr[-3000:]
    for cycle in (1, 2):
        assert f"AGAIN cycle {cycle}: kernel-records 1" in p.stdout, p.stdout
        events = int(p.stdout.split(f"PROFILER-CUDA-EVENTS cycle {cycle}: ")[1].split()[0])
        assert events > 0, p.stdout


def test_after_the_profiler_a_20us_spin_still_reads_20us_and_the_profiler_reads_it_too():
    """PyTorch's profiler registers the CPU's TSC as CUPTI's clock and leaves it registered; every
    gpumeter reading after it used to be 2.1x too long. Profiler first, then gpumeter, then the
    profiler again: each reads the spin's own 20 us."""
    pytest.importorskip("cupy")
    p = run_fresh('''
        import torch, cupy as cp, gpumeter
        spin = cp.RawKernel(r"""
        extern "C" __global__ void spin(unsigned long long ns, unsigned long long* stamps, int slot) {
          unsigned long long start, now;
          asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
          now = start;
          while (now - start < ns) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
          stamps[2 * slot] = start;
          stamps[2 * slot + 1] = now;
        }""", "spin")
        slots = 8192
        stamps = cp.zeros(2 * slots, dtype=cp.uint64)
        calls = [0]
        def launch():
            spin((1,), (1,), (cp.uint64(20000), stamps, cp.int32(calls[0] % slots)))
            calls[0] += 1
        def profiled(label):
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
                launch()
                torch.cuda.synchronize()
            ks = [e.duration_ns() for e in prof.profiler.kineto_results.events() if "spin" in e.name()]
            print(f"PROFILER {label}: {ks}")
        profiled("before")
        r = gpumeter.measure(launch)
        n = r.n_samples
        s = stamps.get().reshape(-1, 2)
        own = sorted(int(s[k % slots, 1] - s[k % slots, 0]) for k in range(calls[0] - n, calls[0]))
        tc = r.timestamp_check
        print(f"MEASURED {r.method} busy {r.device_busy.median_ns:.0f} own {own[len(own) // 2]} "
              f"check {tc.phases} phases, {tc.converted} converted")
        profiled("after")
    ''')
    print(p.stdout, p.stderr[-2000:])
    assert p.returncode == 0, p.stderr[-3000:]
    line = p.stdout.split("MEASURED ")[1].split("\n")[0].split()
    assert line[0] == "kernel-records", p.stdout
    busy, own = float(line[2]), float(line[4])
    assert own >= 20000 and abs(busy - own) < 1000, p.stdout
    for label in ("before", "after"):
        readings = eval(p.stdout.split(f"PROFILER {label}: ")[1].split("\n")[0])
        assert readings and all(abs(d - 20000) < 2000 for d in readings), p.stdout


def test_jax():
    p = run_fresh('''
        import os
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        import jax, jax.numpy as jnp, gpumeter
        x = jnp.ones((1 << 20,))
        f = jax.jit(lambda v: v * 2 + 1)
        f(x).block_until_ready()
        try:
            r = gpumeter.measure(lambda: f(x).block_until_ready())
            print("MEASURED", r.method, r.max_n_kernels)
        except gpumeter.OffThreadLaunch as e:
            print("OFFTHREAD", str(e)[:200])
        except gpumeter.Error as e:
            print("ERROR", type(e).__name__, str(e)[:300])
    ''')
    print(p.stdout, p.stderr[-2000:])
    if "No module named 'jax'" in p.stderr:
        pytest.skip("JAX is not installed")
    assert p.returncode == 0, p.stderr[-3000:]
    assert "MEASURED kernel-records" in p.stdout or "OFFTHREAD" in p.stdout, p.stdout
