"""A sample project's performance tests, as a user of the plugin would write them: run by
tests/python/test_pytest_plugin.py (host work, in CI) and scripts/device-pytest.sh (GPU work).

SAMPLE_SLOW names one implementation to slow down in this run and SAMPLE_SLOWDOWN by how much
(a factor of its work: 1.05 is 5% more work): the first run saves a baseline without them, the
second must fail that implementation's test only."""
import os

import pytest

SLOW = os.environ.get("SAMPLE_SLOW", "")
SLOWDOWN = float(os.environ.get("SAMPLE_SLOWDOWN", "1"))


@pytest.fixture
def work_factor():
    """The factor of `name`'s work in this run: SAMPLE_SLOWDOWN for SAMPLE_SLOW, else 1."""
    return lambda name: SLOWDOWN if name == SLOW else 1.0


def pytest_collection_modifyitems(config, items):
    """SAMPLE_SKIP: tests to skip in this run, by name, as a machine without what they need
    would skip them."""
    skip = set(filter(None, os.environ.get("SAMPLE_SKIP", "").split(",")))
    for item in items:
        if item.name in skip:
            item.add_marker(pytest.mark.skip(reason="SAMPLE_SKIP names it"))
