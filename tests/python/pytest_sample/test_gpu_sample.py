"""GPU work, timed by CUPTI (device time): memory-bound PyTorch kernels over 256 MiB, whose
device time is proportional to the bytes they move, so 5% more elements is 5% more time. Skipped,
with the reason, where no GPU is usable (the fixture says why) or PyTorch is missing."""
import pytest

torch = pytest.importorskip("torch")

N = 64 * 1024 * 1024  # float32: 256 MiB
# Passes until the 99% interval is within 0.5% (or 8 s): the passes of two runs are the units a
# comparison across runs reads, and more of them narrow its interval.
PRECISION = dict(precision=0.005, max_time_s=8)


@pytest.fixture(scope="module")
def x():
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    return torch.rand(2 * N, device="cuda")


def test_gpu_copy(gpumeter, work_factor, x):
    n = int(N * work_factor("copy"))
    src, dst = x[:n], torch.empty(n, device="cuda")
    # PyTorch copies a contiguous tensor with cudaMemcpyAsync: the copy is the work, so it counts.
    r = gpumeter.measure(lambda: dst.copy_(src), bytes=8 * n, name="copy", count_copies=True,
                         **PRECISION)
    assert r.method == "kernel-records"


def test_gpu_scale(gpumeter, work_factor, x):
    n_add = int(N * work_factor("add"))
    out_mul, out_add = torch.empty(N, device="cuda"), torch.empty(n_add, device="cuda")

    def mul():
        return torch.mul(x[:N], 2, out=out_mul)

    def add():
        torch.add(x[:n_add], x[:n_add], out=out_add)
        return out_add[:N]

    c = gpumeter.compare({"mul": mul, "add": add}, name="scale", **PRECISION)
    assert set(c.results) == {"mul", "add"}
