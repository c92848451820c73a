#!/usr/bin/env bash
# Installs what gpumeter's build needs from Debian's packages. The CUDA toolkit is not
# installed here: when present (nvcc, cudart, CUPTI), the CUDA backend is built too.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
pkgs=(cmake ninja-build g++ git clang-format nlohmann-json3-dev libcli11-dev libfmt-dev libgtest-dev)
# The record reader's fuzz target (tests/fuzz/run.sh): Clang 14, its libFuzzer and sanitizer
# runtimes, and llvm-symbolizer for readable reports.
pkgs+=(clang-14 libclang-rt-14-dev llvm-14)
# gpumeter history's browser test (tests/browser): a headless Chromium and its WebDriver, from
# Debian's packages (a browser download of its own, as Playwright's, needs a host CI may not reach).
pkgs+=(chromium chromium-driver)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# The Python module's build and tests: a python3 that makes virtual environments (pip then
# fetches scikit-build-core, nanobind, numpy and pytest from PyPI into one).
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  echo "setup: installing python3-venv python3-pip"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3 python3-venv python3-pip >/dev/null
fi
echo "setup: build dependencies present"
