#!/usr/bin/env bash
# Every program under examples/ compiled against the installed headers only (INCLUDE_DIR: an
# install prefix's include/, or the source tree's include/, which is installed whole) and its own
# folder, the way a user builds it from the package: a program that needs a header the package
# does not install does not compile here. C++ sources and headers by CXX (-fsyntax-only), CUDA
# sources by NVCC (--cuda: the whole front end, host and device code, without the device
# compile). Every program is compiled (gpumeter's main job, a front end, is in src/main_job, not
# here); not compiled, each for the reason said when it is skipped:
#   - examples/python/saxpy.cu: a kernel's text for NVRTC and `nvcc -cubin` (no host code, no
#     gpumeter header), built by the Python example that loads it.
#   - CUDA sources, and C++ sources that include CUDA's headers, where NVCC is not given or
#     CUDA's headers are not found: said, not failed (a CPU-only machine cannot build them).
# Exits nonzero naming the first file that does not compile.
#   build_examples.sh SOURCE_DIR INCLUDE_DIR CXX [NVCC]
set -uo pipefail
root=${1:?usage: build_examples.sh SOURCE_DIR INCLUDE_DIR CXX [NVCC]}
inc=${2:?usage: build_examples.sh SOURCE_DIR INCLUDE_DIR CXX [NVCC]}
cxx=${3:?usage: build_examples.sh SOURCE_DIR INCLUDE_DIR CXX [NVCC]}
nvcc=${4:-}
cuda_inc=""
if [[ -n $nvcc ]]; then
  cuda_inc=$(cd "$(dirname "$(command -v "$nvcc")")/../include" 2>/dev/null && pwd)
fi
say() { echo "examples: $*"; }

built=0
skipped=0
while IFS= read -r f; do
  rel=${f#"$root/"}
  dir=$(dirname "$f")
  case "$rel" in
    examples/python/saxpy.cu)
      say "not built: $rel (see this script's header)"
      skipped=$((skipped + 1))
      continue
      ;;
  esac
  uses_cuda=0
  grep -qE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<(cuda|cublas|cufft|curand|nvrtc)[^>]*>' "$f" &&
    uses_cuda=1
  case "$f" in
    *.cu | *.cuh)
      if [[ -z $nvcc ]]; then
        say "not built: $rel (CUDA source, no nvcc given)"
        skipped=$((skipped + 1))
        continue
      fi
      "$nvcc" -std=c++20 --cuda -I"$inc" -I"$dir" "$f" -o /dev/null ||
        { say "FAIL: $rel does not compile against $inc"; exit 1; }
      ;;
    *)
      extra=()
      if [[ $uses_cuda -eq 1 ]]; then
        if [[ -z $cuda_inc || ! -d $cuda_inc ]]; then
          say "not built: $rel (includes CUDA's headers, which are not found here)"
          skipped=$((skipped + 1))
          continue
        fi
        extra=(-isystem "$cuda_inc")
      fi
      # A header is compiled as a source that includes it (a header as the main file warns).
      echo "#include \"$f\"" | "$cxx" -std=c++20 -fsyntax-only -Wall -Wextra -Werror -I"$inc" \
        -I"$dir" "${extra[@]}" -x c++ - || { say "FAIL: $rel does not compile against $inc"; exit 1; }
      ;;
  esac
  built=$((built + 1))
done < <(find "$root/examples" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' \
  -o -name '*.cuh' \) | sort)
say "ok: $built compiled against $inc alone, $skipped not built (said above)"
