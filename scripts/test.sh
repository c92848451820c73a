#!/usr/bin/env bash
# Checks formatting, builds gpumeter and runs every test this machine can run: the unit
# tests, the CLI tests, the GPU tests (which skip, saying why, where there is no GPU). Then the
# installed package in a consumer project, the CPU tests again under AddressSanitizer and
# UndefinedBehaviorSanitizer (all but two kinds, said below) and the fuzzer, with the Python
# module's tests beside them.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
# Each step says when it starts, in seconds since this script began: where the time goes.
started=$SECONDS
step() { echo "test: [$((SECONDS - started)) s] $*"; }
# What only the tests need (clang-format, Clang 14, Chromium, python3-venv): scripts/setup.sh
# installs the build's packages only, so the main job starts without these.
step "the tests' own packages"
bash scripts/setup-tests.sh

step "the format check"
# Formatting is part of the build's contract: the repository's .clang-format, no diffs.
# safe.directory: a checkout owned by another user (a mounted volume) is still this one.
if git -c safe.directory="$PWD" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git -c safe.directory="$PWD" ls-files -z '*.cpp' '*.hpp' '*.cu'
else  # a source tree without git
  find include src tests testkit bench examples \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' \) -print0
fi | xargs -0 clang-format --dry-run -Werror

# Warnings are errors here (GPUMETER_WERROR), never in a user's build: CI sees them first. Line
# tables only (-g1) where RelWithDebInfo gives full debug information: the same code and the same
# warnings, a quarter less compile time (the test files themselves: tests/CMakeLists.txt).
step "the main build"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUMETER_WERROR=ON \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
cmake --build build -j "$jobs"
step "the main build's tests"
ctest --test-dir build --output-on-failure -j "$jobs"
bash scripts/skipped.sh build  # a skipped test says why, in the log itself

# The Python part runs beside the C++ part below, its output kept in build/python-part.log and shown
# when both are done: pytest runs on one core for most of its three minutes, and the compiles
# below take the other. Every test must pass on a busy machine anyway (CI's may be).
python_part() {
  set -euo pipefail
  # The Python module as its users get it: pip install . into a fresh virtual environment, then
  # its tests (the host clock here; the GPU tests skip, saying why).
  rm -rf build-python-venv
  python3 -m venv build-python-venv
  build-python-venv/bin/python -m pip install -q --upgrade pip
  # matplotlib: gpumeter plot's tests (the package's "plot" extra); selenium: the history site's
  # browser test (below); mypy: the typing tests.
  step "pip install . (the module built from source)"
  build-python-venv/bin/python -m pip install -q ".[plot]" pytest mypy selenium
  step "pytest"
  build-python-venv/bin/python -m pytest -q -rs tests/python
  # The C++ command's plot through that Python: it must draw here, not skip.
  GPUMETER_PYTHON="$PWD/build-python-venv/bin/python" GPUMETER_PLOT_REQUIRED=1 \
    ctest --test-dir build --output-on-failure -R '^cli_plot_writes$'
  GPUMETER_PYTHON="$PWD/build-python-venv/bin/python" \
    ctest --test-dir build --output-on-failure -R '^cli_evaluate_passes$'
  # gpumeter history's pages in a headless Chromium (scripts/setup-tests.sh installs it): it must
  # run here, not skip.
  GPUMETER_PYTHON="$PWD/build-python-venv/bin/python" GPUMETER_BROWSER_REQUIRED=1 \
    ctest --test-dir build --output-on-failure -R '^cli_history_browser$'
  # The no-GPU table's Python rows (evaluate, the API) and the module's evaluate --help beside the
  # command's copy of it.
  GPUMETER_PYTHON="$PWD/build-python-venv/bin/python" GPUMETER_NO_GPU_PYTHON_REQUIRED=1 \
    ctest --test-dir build --output-on-failure -R '^integration[.](no_gpu|readme_and_help)$'
}
python_log=$PWD/build/python-part.log
step "the Python part started beside the rest (its log: $python_log)"
python_part >"$python_log" 2>&1 &
python_pid=$!
# A failure below stops the Python part too (its processes with it), then says where its log is.
stop_python() {
  if kill -0 "$python_pid" 2>/dev/null; then
    pkill -TERM -P "$python_pid" 2>/dev/null || true
    kill "$python_pid" 2>/dev/null || true
    echo "test: stopped the Python part (its log so far: $python_log)" >&2
  fi
}
trap stop_python EXIT

# The installed package and add_subdirectory, as a consumer project uses them: the package is
# the main build installed, the subdirectory a CPU-only build of its own.
step "the consumer project"
bash tests/consumer/run.sh build

# CPU-only under the sanitizers: the CUDA runtime is not built for ASan. Built with Clang 14,
# warnings as errors, so every C++ file is compiled warning-free by both g++ and Clang without a
# third build. Each library is compiled as one unit (a unity build, as pip builds the module; the
# test files one unit each, tests/CMakeLists.txt): the same code under the same checks, with the
# headers parsed once a library rather than once a file (the build above compiles each file
# alone).
# Line tables only: a sanitizer's report names functions, files and lines from them.
step "the sanitizer build"
CC=clang-14 CXX=clang++-14 cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only \
  -DGPUMETER_SANITIZE=ON -DGPUMETER_CUDA=OFF -DGPUMETER_WERROR=ON \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=0
cmake --build build-asan -j "$jobs"
# Every test but two kinds, each of which passed in the main build above: the precision
# calibration's thousands of synthetic trials of the same few functions (a minute and a half under
# the sanitizers for nothing a first trial does not reach), and the record property on variants of
# the fuzz corpus's records, which the fuzzer below checks under the same sanitizers from the same
# records (record_property.hpp; over a minute).
asan_skip='^(PrecisionCalibration[.].*|RecordProperty[.]VariantsOfRealRecordsAreRefusedOrKeepTheProperty)$'
step "the sanitizer build's tests"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" -E "$asan_skip"
step "the fuzzer"
bash tests/fuzz/run.sh 60  # the record reader fuzzed for 60 s from real records (B7); any crash fails

trap - EXIT
step "waiting for the Python part"
if ! wait "$python_pid"; then
  cat "$python_log"
  echo "test: FAIL: the Python part (log above: $python_log)" >&2
  exit 1
fi
cat "$python_log"
step "done"
