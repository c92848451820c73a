#!/usr/bin/env bash
# The pytest plugin on the GPU machine: build and install the package with that machine's Python
# (no registry there: --no-build-isolation, its nanobind and scikit-build-core; --target, so the
# plugin's entry point is found on PYTHONPATH), then tests/python/test_pytest_plugin.py: the
# sample project's host tests and its GPU tests (PyTorch, CUPTI), each run twice, the second with
# one implementation 5% slower (device time) or 4x (host clock). Logs under $OUT; every sample
# run's output in $OUT/sample-runs.log; a summary last.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/device-pytest-out}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
SITE=${SITE:-/tmp/gpumeter-pytest-site}
start=$(date +%s)
t0=$(date +%s)
if [[ -n ${REUSE_SITE:-} && -f $SITE/gpumeter/__init__.py ]]; then
  echo "pip install: reused $SITE" | tee "$OUT/steps.txt"
else
  rm -rf "$SITE"
  $PY -m pip install --no-build-isolation --no-deps --target "$SITE" . >"$OUT/pip-install.log" 2>&1
  echo "pip install: rc=$? ($(( $(date +%s) - t0 )) s)" | tee "$OUT/steps.txt"
fi
export PYTHONPATH="$SITE"
export GPUMETER_SAMPLE_LOG="$OUT/sample-runs.log"
rm -f "$GPUMETER_SAMPLE_LOG"
t0=$(date +%s)
# PYTEST_K: a -k expression (the lead's one device call runs the GPU sample alone).
timeout 420 $PY -m pytest -v -rA -p no:cacheprovider tests/python/test_pytest_plugin.py \
  ${PYTEST_K:+-k "$PYTEST_K"} >"$OUT/pytest.log" 2>&1
echo "pytest: rc=$? ($(( $(date +%s) - t0 )) s)" | tee -a "$OUT/steps.txt"
echo "total $(( $(date +%s) - start )) s"
cat "$OUT/steps.txt"
echo "--- tests (every one must pass; the GPU one must not be SKIPPED)"
grep -E "^tests/python/test_pytest_plugin.py::\S+ (PASSED|FAILED|SKIPPED|ERROR)" "$OUT/pytest.log" \
  | sed -E 's/^tests\/python\/test_pytest_plugin.py:://' | cut -c1-160
grep -E "^(SKIPPED|FAILED|ERROR) " "$OUT/pytest.log" | cut -c1-300
tail -1 "$OUT/pytest.log"
echo "--- the GPU sample's runs: rc, outcomes, regressions"
grep -E "^\\\$ pytest test_gpu_sample|^rc |^(PASSED|FAILED|SKIPPED) test_gpu|^- scale / |^- copy / |failed the gate" \
  "$GPUMETER_SAMPLE_LOG" 2>/dev/null | cut -c1-300
