#!/usr/bin/env bash
# Installs what the main job's build needs from Debian's packages: the compiler, CMake, Ninja and
# the libraries gpumeter builds against (GoogleTest too: the default configuration declares the
# tests, so CMake looks for it even when only the example is built). What only the tests need
# (clang-format, Clang 14 and its sanitizer runtimes, Chromium, a Python that makes virtual
# environments) is installed by scripts/test.sh (scripts/setup-tests.sh), not here. The CUDA
# toolkit is not installed here: when present (nvcc, cudart, CUPTI), the CUDA backend is built too.
set -euo pipefail
cd "$(dirname "$0")"
source ./install-packages.sh
install_packages "build" cmake ninja-build g++ git nlohmann-json3-dev libcli11-dev libfmt-dev \
  libgtest-dev
echo "setup: build dependencies present"
