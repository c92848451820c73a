"""Shared fixtures: the GPU tests skip, saying why, where no CUDA device is usable."""
import pytest


def gpu_reason():
    """Why the GPU tests cannot run here, or None when they can."""
    try:
        import gpumeter
        if not gpumeter._gpumeter.has_cuda():
            return "this gpumeter was built without the CUDA backend"
        e = gpumeter.env()
        if e.get("device") is None:
            return str(e.get("device_unavailable"))
    except Exception as exc:  # noqa: BLE001
        return f"gpumeter.env() failed: {exc}"
    return None


@pytest.fixture(scope="session")
def gpu():
    reason = gpu_reason()
    if reason is not None:
        pytest.skip(reason)
    return 0

# A sample project's tests, run by test_pytest_plugin.py in a folder of their own: not this run's.
collect_ignore = ["pytest_sample"]
