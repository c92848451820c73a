#!/usr/bin/env bash
# Install advice names what works from this repository: `pip install .`, `pip install '.[plot]'`
# or the checkout's path. The package named gpumeter on the public index is another project, so
# no message, doc or script may tell anyone to `pip install gpumeter` or `'gpumeter[plot]'`
# (issue 36). Fails naming the lines.
#   install_hints.sh SOURCE_DIR
set -u
root=${1:?usage: install_hints.sh SOURCE_DIR}
cd "$root" || exit 2
# Everything a user reads or runs: sources, the Python package, docs, scripts, tests; not the
# measurement logs under bench/results (what a command printed then) nor this file.
found=$(grep -rnE "pip3? install( -[A-Za-z-]+)* ['\"]?gpumeter($|[^-_./A-Za-z0-9])|gpumeter\[(plot|[a-z]+)\]" \
  README.md docs src include python scripts tests examples bench pyproject.toml CMakeLists.txt \
  --exclude-dir=results --exclude=install_hints.sh 2>/dev/null)
if [[ -n $found ]]; then
  echo "FAIL: install advice naming the public index's gpumeter (another project):" >&2
  echo "$found" >&2
  exit 1
fi
# And the hints that replace it say what works: the checkout, installed by pip.
grep -q "pip install '\" + target" src/cli/python_module.cpp ||
  { echo "FAIL: src/cli/python_module.cpp's install_hint no longer names the checkout" >&2; exit 1; }
grep -qF "pip install '.[plot]'" python/gpumeter/plot.py ||
  { echo "FAIL: python/gpumeter/plot.py's hint no longer says pip install '.[plot]'" >&2; exit 1; }
# pip install . builds outside the checkout (a build-dir in pyproject.toml left 41 MB in it), and
# the pytest plugin's page says pytest is not installed with the package.
if grep -nE '^[[:space:]]*build-dir[[:space:]]*=' pyproject.toml; then
  echo "FAIL: pyproject.toml keeps pip's build folder (build-dir): it lands in the checkout" >&2
  exit 1
fi
grep -qF "pip install pytest" docs/pytest.md ||
  { echo "FAIL: docs/pytest.md does not say pytest is installed apart (pip install pytest)" >&2; exit 1; }
# The main job's set-up installs the build's packages only (issue 51: it installed Chromium,
# LLVM and Clang 14, which only the tests need, before the main job could start): every package
# scripts/setup-tests.sh installs is absent from scripts/setup.sh.
test_only=$(grep -vE '^[[:space:]]*#' scripts/setup-tests.sh |
  grep -oE 'pkgs\+?=\([^)]*\)|install_packages "tests" [^$]*$' |
  sed -E 's/^pkgs\+?=\(//; s/\)$//; s/^install_packages "tests"//' | tr ' ' '\n' |
  grep -E '^[a-z]' | sort -u)
[[ -n $test_only ]] ||
  { echo "FAIL: no package read from scripts/setup-tests.sh (this guard reads nothing)" >&2; exit 1; }
main_job=$(grep -vE '^[[:space:]]*#' scripts/setup.sh | tr ' \\' '\n\n' | sort -u)
both=$(comm -12 <(echo "$test_only") <(echo "$main_job"))
if [[ -n $both ]]; then
  echo "FAIL: scripts/setup.sh (the main job's set-up) installs what only the tests need:" $both >&2
  exit 1
fi
echo "every install hint names this repository's package; the main job's set-up installs no test package"
