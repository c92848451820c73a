#!/usr/bin/env bash
# The Python module on the GPU machine, in one go: build and install it with that machine's
# Python (no registry there: --no-build-isolation, its nanobind and scikit-build-core), run
# tests/python (the GPU tests included), then gpumeter beside do_bench and CUDA events in three
# fresh processes. Logs under $OUT; a summary last.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/device-python-out}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
SITE=/tmp/gpumeter-site
start=$(date +%s)
{
  echo "python: $($PY --version 2>&1) at $(command -v $PY)"
  $PY -m pip show nanobind scikit-build-core torch triton cupy-cuda13x jax 2>/dev/null | grep -E "^(Name|Version)"
} >"$OUT/python-env.txt" 2>&1
rm -rf "$SITE"
t0=$(date +%s)
$PY -m pip install --no-build-isolation --no-deps --target "$SITE" -v . >"$OUT/pip-install.log" 2>&1
echo "pip install: rc=$? ($(( $(date +%s) - t0 )) s)" | tee "$OUT/steps.txt"
export PYTHONPATH="$SITE"
t0=$(date +%s)
timeout 420 $PY -m pytest -q -s -rfEs tests/python >"$OUT/pytest.log" 2>&1
echo "pytest: rc=$? ($(( $(date +%s) - t0 )) s)" | tee -a "$OUT/steps.txt"
for k in 1 2 3; do
  timeout 120 $PY bench/python/compare_tools.py --out "$OUT/tools" >>"$OUT/tools.log" 2>&1
  echo "compare_tools run $k: rc=$?" | tee -a "$OUT/steps.txt"
done
$PY bench/python/summarize_tools.py "$OUT/tools" >"$OUT/tools-table.md" 2>&1
echo "total $(( $(date +%s) - start )) s"
cat "$OUT/steps.txt"
grep -E "passed|failed|error" "$OUT/pytest.log" | tail -3
# The failed tests by name (the short summary of -rfE), first: a log may not come back whole.
grep -E "^(FAILED|ERROR) tests/" "$OUT/pytest.log" | cut -c1-400
grep -oE "(NULL-TEST|LOCK|MEMORY-CLOCK|KNOWN-ANSWER|PYTHON-GAP|TORCH|OFFTHREAD|FIXED|REFUSED|BESIDE|AFTER|AGAIN|GPUMETER|PROFILER|MEASURED|ERROR|FAILED|SKIPPED).*" "$OUT/pytest.log" | cut -c1-300
cat "$OUT/tools-table.md"
