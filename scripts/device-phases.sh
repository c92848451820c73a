#!/usr/bin/env bash
# Issue 17's evidence on the GPU machine in one go: install the Python module with that machine's
# Python, Warp from a carried archive (.carry/warp*.tar.xz, unpacked beside it), a cubin of
# examples/python/saxpy.cu built by nvcc; then tests/python (the GPU tests included) and
# bench/python/phases_sweeps.py (phases of Warp, CuPy and PyTorch; NVRTC against the cubin; the
# sweeps). Records and logs under $OUT; a summary last.
#   WARP_ARCHIVE=.carry/warp122.tar.xz OUT=... bash scripts/device-phases.sh [--skip-tests]
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/device-phases-out}
mkdir -p "$OUT/records"
PY=${PYTHON:-python3}
SITE=/tmp/gpumeter-site
start=$(date +%s)
rm -rf "$SITE"
t0=$(date +%s)
$PY -m pip install --no-build-isolation --no-deps --target "$SITE" -v . >"$OUT/pip-install.log" 2>&1
echo "pip install: rc=$? ($(( $(date +%s) - t0 )) s)" | tee "$OUT/steps.txt"
WARP_DIR=/tmp/gpumeter-warp
if [ -n "${WARP_ARCHIVE:-}" ] && [ -f "$WARP_ARCHIVE" ]; then
  rm -rf "$WARP_DIR" && mkdir -p "$WARP_DIR" && tar -xJf "$WARP_ARCHIVE" -C "$WARP_DIR"
  echo "warp: unpacked $WARP_ARCHIVE: rc=$?" | tee -a "$OUT/steps.txt"
fi
export PYTHONPATH="$SITE:$WARP_DIR"
$PY -c "import warp; print('warp', warp.config.version)" 2>&1 | tail -1 | tee -a "$OUT/steps.txt"
nvcc -cubin -arch=sm_90 -o /tmp/saxpy.cubin examples/python/saxpy.cu >"$OUT/nvcc.log" 2>&1
echo "nvcc cubin: rc=$?" | tee -a "$OUT/steps.txt"
export GPUMETER_SAXPY_CUBIN=/tmp/saxpy.cubin
if [ "${1:-}" != "--skip-tests" ]; then
  t0=$(date +%s)
  timeout 400 $PY -m pytest -q -rs tests/python >"$OUT/pytest.log" 2>&1
  echo "pytest: rc=$? ($(( $(date +%s) - t0 )) s)" | tee -a "$OUT/steps.txt"
fi
t0=$(date +%s)
timeout ${PHASES_TIMEOUT:-300} $PY bench/python/phases_sweeps.py "$OUT/records" ${PHASES_ARGS:-} \
  >"$OUT/phases.log" 2>&1
echo "phases and sweeps: rc=$? ($(( $(date +%s) - t0 )) s)" | tee -a "$OUT/steps.txt"
echo "total $(( $(date +%s) - start )) s"
cat "$OUT/steps.txt"
grep -E "passed|failed|error" "$OUT/pytest.log" 2>/dev/null | tail -3
grep -E "FAILED|Error|record:" "$OUT/phases.log" | head -20
