#!/usr/bin/env bash
# gpumeter as its users get it: configure, build and install it (CPU only) into a temporary
# prefix, then build tests/consumer against that prefix with find_package(gpumeter), and again
# through add_subdirectory of this source tree; run the consumer each time (main.cpp says what
# it asserts). Exits nonzero on the first failure. Extra configure arguments for gpumeter's
# own build: GPUMETER_CONSUMER_CMAKE_ARGS (e.g. -DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON).
# With BUILD_DIR, a gpumeter build tree already built (scripts/test.sh passes its main build),
# the package is that build installed (its CUDA backend included where it has one) and the
# subdirectory mode alone compiles gpumeter again, CPU only: both configurations are checked, and
# the libraries are compiled once less.
#   tests/consumer/run.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
jobs=$(nproc)
work=$(mktemp -d "${TMPDIR:-/tmp}/gpumeter-consumer.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
read -r -a extra <<<"${GPUMETER_CONSUMER_CMAKE_ARGS:-}"
# Each library compiled as one unit (a unity build, as pip builds the module), without
# optimization or debug information (-O0): what is checked here is the package (what is
# installed, the exported targets, the two ways in), not the code the compiler makes of it, which
# the main build (scripts/test.sh, each file alone, -O2) and the sanitizer build (-O0) check. On 2
# cores one unit a library is a fraction of the compile time of one a file, and -O0 about half of
# -O2's (the subdirectory mode: 87 s of CPU against 163 s).
common=(-G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DGPUMETER_CUDA=OFF
  -DGPUMETER_TESTS=OFF -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=0 "${extra[@]}")
say() { echo "consumer: $*"; }
# Runs a step with its output kept aside, shown only when the step fails.
quiet() {
  if ! "$@" >"$work/step.log" 2>&1; then
    cat "$work/step.log"
    say "FAIL: $*"
    exit 1
  fi
}

from=${1:-}
if [[ -n $from ]]; then
  from=$(cd "$from" && pwd)
  [[ -f $from/cmake_install.cmake ]] || { say "FAIL: $from is not a configured gpumeter build"; exit 1; }
  say "installing gpumeter from the build in $from into $prefix"
  quiet cmake --install "$from" --prefix "$prefix"
else
  say "building and installing gpumeter into $prefix"
  # Without the examples and benchmark programs: none of them is installed.
  quiet cmake -S "$root" -B "$work/gpumeter" "${common[@]}" -DGPUMETER_EXAMPLES=OFF \
    -DCMAKE_INSTALL_PREFIX="$prefix"
  quiet cmake --build "$work/gpumeter" -j "$jobs"
  quiet cmake --install "$work/gpumeter"
fi

config=$(find "$prefix" -name gpumeterConfig.cmake -print -quit)
for f in "$prefix/bin/gpumeter" "$prefix/include/gpumeter/gpumeter.hpp" "$config" \
  "$(dirname "$config")/gpumeterConfigVersion.cmake" "$(dirname "$config")/gpumeterTargets.cmake"; do
  [ -n "$f" ] && [ -f "$f" ] || { say "FAIL: not installed: ${f:-gpumeterConfig.cmake}"; exit 1; }
done
say "ok: installed the command, the headers and the package ($config)"

# Every installed header stands alone on the installed headers and the standard library: each
# of its includes is another installed gpumeter header or a standard one (no '/', no '.').
cxx=${CXX:-c++}
# The user layer (gpumeter/*.hpp) and the extension layer for backend authors (gpumeter/backend/).
headers=$(find "$prefix/include/gpumeter" -name '*.hpp' | sort)
while IFS= read -r h; do
  while read -r inc; do
    case "$inc" in
      gpumeter/*) [ -f "$prefix/include/$inc" ] || { say "FAIL: $h includes $inc, not installed"; exit 1; } ;;
      */* | *.*) say "FAIL: $h includes $inc, not part of the package"; exit 1 ;;
    esac
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p' "$h")
done <<<"$headers"
# Each header compiled alone, as many at once as there are cores (exit 255 stops xargs at the
# first that does not compile).
printf '%s\n' "$headers" | xargs -P "$jobs" -I{} sh -c '
  echo "#include <${1#"$2/include/"}>" | "$3" -std=c++20 -fsyntax-only -I"$2/include" -x c++ - ||
    { echo "consumer: FAIL: $1 does not compile alone"; exit 255; }' sh {} "$prefix" "$cxx" ||
  exit 1
say "ok: every installed header compiles alone against the prefix"
# Every program under examples/ compiled against the installed headers alone (one front end and
# one kernel text excepted, saying why; CUDA sources where nvcc is found, $NVCC or on the PATH).
bash "$root/tests/api/build_examples.sh" "$root" "$prefix/include" "$cxx" \
  "${NVCC:-$(command -v nvcc || true)}"

# Only the two layers are installed: the private headers (src/include: the libraries' and the
# front ends' own, the option tables and the run recorder among them) stay behind, under either
# folder a copy back into include/ would put them.
private=0
for h in "$root"/src/include/gpumeter/*.hpp; do
  name=$(basename "$h")
  private=$((private + 1))
  for installed in "$prefix/include/gpumeter/$name" "$prefix/include/gpumeter/detail/$name"; do
    [ ! -e "$installed" ] || { say "FAIL: private header $name was installed ($installed)"; exit 1; }
  done
done
[ "$private" -gt 0 ] || { say "FAIL: no private header found in $root/src/include/gpumeter"; exit 1; }
say "ok: none of the $private private headers (src/include/gpumeter) was installed"

say "package mode: find_package(gpumeter) with CMAKE_PREFIX_PATH=$prefix"
quiet cmake -S "$root/tests/consumer" -B "$work/package" "${common[@]}" \
  -DGPUMETER_CONSUMER_MODE=package -DCMAKE_PREFIX_PATH="$prefix"
quiet cmake --build "$work/package" -j "$jobs"
"$work/package/gpumeter-consumer" "$work/package-records"
quiet "$work/package/gpumeter-consumer-bench" --timing host --budget 1,2 --no-lock \
  --out "$work/package-bench-records"
say "ok: package mode measured, wrote, read back and reported with the installed command"

say "subdirectory mode: add_subdirectory($root)"
quiet cmake -S "$root/tests/consumer" -B "$work/subdirectory" "${common[@]}" \
  -DGPUMETER_CONSUMER_MODE=subdirectory -DGPUMETER_SOURCE_DIR="$root"
quiet cmake --build "$work/subdirectory" -j "$jobs"
"$work/subdirectory/gpumeter-consumer" "$work/subdirectory-records"
quiet "$work/subdirectory/gpumeter-consumer-bench" --timing host --budget 1,2 --no-lock \
  --out "$work/subdirectory-bench-records"
say "ok: subdirectory mode measured, wrote, read back and reported"
say "all checks passed"
