#!/usr/bin/env bash
# Issue 39 on the GPU machine, in one call of the device tool (under its 10 minutes): what a
# precision pass costs and how fast a comparison reaches its target, at this tree and at a
# baseline tree on the same card, with the C++ and Python GPU tests of this tree.
#   1. this tree built (default configuration, this machine's compiler; its warnings counted), the
#      Python module installed, and the baseline's gpumeter-precision built from BASE_SRC (a
#      source tree of the baseline commit, carried by the caller: git archive BASE | tar -x -C DIR);
#   2. ctest (unit and GPU tests: every known answer, the two-stream one included);
#   3. gpumeter-precision at this tree (every part) and at the baseline (time and cost), in turn;
#   (A against A with every check on, C++ and Python, when AVSA_REPEAT is set;)
#   4. the Python tests, with what time is left (-v: each test's outcome as it ends), the files
#      named in PY_FIRST first.
# Logs under $OUT; a short table last.
#   GPUMETER_PROJECT_COMMIT=$(git rev-parse HEAD) BASE_SRC=.carry/base BASE_COMMIT=... \
#     OUT=... bash scripts/device-precision.sh
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/device-precision-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
PY=${PYTHON:-python3}
SITE=/tmp/gpumeter-site-precision
BUDGET=${BUDGET:-560}
start=$(date +%s)
steps=()
left() { echo $(( BUDGET - ($(date +%s) - start) )); }
step() {  # name timeout cmd...: its output to $OUT/name.log
  local name=$1 limit=$2 t0 rc
  shift 2
  [ "$limit" -gt "$(left)" ] && limit=$(left)
  if [ "$limit" -lt 10 ]; then
    steps+=("$(printf '%-18s skipped (no time left)' "$name")")
    return 0
  fi
  t0=$(date +%s)
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  rc=$?
  steps+=("$(printf '%-18s rc %-3s %4ss' "$name" "$rc" "$(( $(date +%s) - t0 ))")")
  return $rc
}
{
  echo "commit: ${GPUMETER_PROJECT_COMMIT:-unknown}; baseline: ${BASE_COMMIT:-unknown}"
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,temperature.gpu \
    --format=csv,noheader
  c++ --version | head -1
} >"$OUT/environment.txt" 2>&1

# 1. Builds: this tree, the module and the baseline's precision program side by side.
(
  cmake -S . -B build-precision -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUMETER_CUDA=ON \
    >"$OUT/configure.log" 2>&1 && cmake --build build-precision -j 12 >"$OUT/build.log" 2>&1
  echo "build rc=$?" >>"$OUT/build.log"
) &
(
  rm -rf "$SITE"
  CMAKE_BUILD_PARALLEL_LEVEL=4 "$PY" -m pip install --no-build-isolation --no-deps \
    --target "$SITE" . >"$OUT/pip.log" 2>&1
  echo "pip rc=$?" >>"$OUT/pip.log"
) &
if [ -d "${BASE_SRC:-}" ]; then
  (
    cmake -S "$BASE_SRC" -B build-base -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DGPUMETER_CUDA=ON -DGPUMETER_TESTS=OFF >"$OUT/base-build.log" 2>&1 &&
      cmake --build build-base -j 4 --target gpumeter-precision >>"$OUT/base-build.log" 2>&1
    echo "base build rc=$?" >>"$OUT/base-build.log"
  ) &
fi
wait
steps+=("$(printf '%-18s %s, %s, %s  %4ss' builds "$(tail -1 "$OUT/build.log")" \
  "$(tail -1 "$OUT/pip.log")" "$(tail -1 "$OUT/base-build.log" 2>/dev/null)" \
  "$(( $(date +%s) - start ))")")
echo "build warnings ($(c++ --version | head -1)): $(grep -c 'warning:' "$OUT/build.log")" \
  >"$OUT/warnings.txt"

# 2. ctest, then the GPU tests' known answers.
step ctest 150 ctest --test-dir build-precision -j 4 --output-on-failure
# 3. Precision: this tree (every part), then the baseline (time and cost), one after the other.
step precision 150 build-precision/bench/cuda/gpumeter-precision --out "$OUT/precision" \
  --repeat 10 --changes 5 --time-repeat 2 --parts "${PRECISION_PARTS:-time,claims,quantization,cost}"
if [ -x build-base/bench/cuda/gpumeter-precision ]; then
  step precision-base 90 build-base/bench/cuda/gpumeter-precision --out "$OUT/precision-base" \
    --parts time,cost --time-repeat 2
fi
# A kernel of about 1.0 us (the 1-block spin's floor is about 0.87 us on the H100, 0.47 ns a cycle):
# half a 32 ns step is then 1.6% of it.
step precision-1us 60 build-precision/bench/cuda/gpumeter-precision --out "$OUT/precision-1us" \
  --parts time --time-repeat 3 --one-us-cycles 280
# A against A with every check on, C++ (4 kinds, AVSA_REPEAT each) and Python (evaluate's cost
# script), when AVSA_REPEAT is set.
export PYTHONPATH="$SITE"
if [ -n "${AVSA_REPEAT:-}" ]; then
  step a-vs-a 90 build-precision/bench/cuda/gpumeter-a-vs-a --out "$OUT/a-vs-a" \
    --repeat "$AVSA_REPEAT" --checks --no-sweep
  step cost 90 env PYTHONPATH="$SITE:$PWD/tests/python" "$PY" bench/python/evaluate_cost.py \
    --out "$OUT/cost" --repeats 12
fi
# 4. Python, with what is left.
export PYTHONPATH="$SITE"
first=()
for f in ${PY_FIRST:-}; do first+=("$f"); done
step pytest 400 "$PY" -m pytest -v -rfEs -p no:cacheprovider "${first[@]}" tests/python

{
  cat "$OUT/environment.txt" "$OUT/warnings.txt"
  printf '%s\n' "${steps[@]}"
  grep -E "tests passed|tests failed|\((Failed|Timeout)\)" "$OUT/ctest.log"
  grep -h "^KNOWN-ANSWER two streams" "$OUT/ctest.log" build-precision/Testing/Temporary/LastTest.log \
    2>/dev/null | sort -u | cut -c1-400
  echo "== precision at this tree"
  awk 'NF == 0 { n = NR } { l[NR] = $0 } END { for (i = n + 1; i <= NR; i++) print l[i] }' \
    "$OUT/precision.log"
  echo "== precision at the baseline"
  [ -f "$OUT/precision-base.log" ] && awk 'NF == 0 { n = NR } { l[NR] = $0 } END {
    for (i = n + 1; i <= NR; i++) print l[i] }' "$OUT/precision-base.log"
  echo "== precision at this tree, a kernel of about 1.0 us"
  awk 'NF == 0 { n = NR } { l[NR] = $0 } END { for (i = n + 1; i <= NR; i++) print l[i] }' \
    "$OUT/precision-1us.log"
  [ -f "$OUT/a-vs-a.log" ] && echo "== A against A (C++)" && tail -7 "$OUT/a-vs-a.log"
  [ -f "$OUT/cost.log" ] && echo "== A against A (Python)" && tail -4 "$OUT/cost.log"
  echo "== python"
  grep -E "(FAILED|ERROR) " "$OUT/pytest.log" | cut -c1-300
  tail -3 "$OUT/pytest.log"
  echo "total $(( $(date +%s) - start )) s"
} >"$OUT/summary.txt" 2>&1
cat "$OUT/summary.txt"
