#!/usr/bin/env bash
# Installs what only the tests need, beyond scripts/setup.sh's build packages; scripts/test.sh
# runs it first, so the main job's set-up installs none of it.
set -euo pipefail
cd "$(dirname "$0")"
source ./install-packages.sh
pkgs=(clang-format)
# The record reader's fuzz target (tests/fuzz/run.sh) and the sanitizer build: Clang 14, its
# libFuzzer and sanitizer runtimes, and llvm-symbolizer for readable reports.
pkgs+=(clang-14 libclang-rt-14-dev llvm-14)
# gpumeter history's browser test (tests/browser): a headless Chromium and its WebDriver, from
# Debian's packages (a browser download of its own, as Playwright's, needs a host CI may not reach).
pkgs+=(chromium chromium-driver)
install_packages "tests" "${pkgs[@]}"
# The Python module's build and tests: a python3 that makes virtual environments (pip then
# fetches scikit-build-core, nanobind, numpy and pytest from PyPI into one).
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  install_packages "tests" python3 python3-venv python3-pip
fi
echo "setup: test dependencies present"
