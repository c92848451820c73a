#!/usr/bin/env bash
# Evidence for `gpumeter history`: real records over real commits. Builds a fresh git repository of
# toyvec (bench/history/toy/: host kernels and their gpumeter benchmark), commits 10 changes to it,
# one of which plants a regression (commit 6 turns dot/unrolled4's sums into compensated ones,
# about 3x the work on its critical path) and one of which takes it back out (commit 9), and at
# each commit builds the benchmark and runs it RUNS times on the host clock. The records, the
# commit order and the site land in OUT_DIR:
#   OUT_DIR/toyvec        the toy project's repository (git log shows what each commit did)
#   OUT_DIR/records/N-<commit>/gpumeter-*.json
#   OUT_DIR/commits.txt   git rev-list --reverse HEAD
#   OUT_DIR/site          gpumeter history OUT_DIR/records --commits OUT_DIR/commits.txt
#
#   bench/history/toy-history.sh OUT_DIR [RUNS]      (RUNS per commit, default 3)
# GPUMETER: the gpumeter command (default build/src/cli/gpumeter). CPU only; takes minutes, most
# of them the first build of gpumeter's libraries into the toy's build folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: toy-history.sh OUT_DIR [RUNS]}
runs=${2:-3}
gpumeter=${GPUMETER:-$root/build/src/cli/gpumeter}
[[ -x $gpumeter ]] || { echo "toy-history: no gpumeter command at $gpumeter (set GPUMETER)" >&2; exit 2; }
[[ ! -e $out ]] || { echo "toy-history: $out exists; choose a new folder" >&2; exit 2; }
mkdir -p "$out/records"
out=$(cd "$out" && pwd)
repo=$out/toyvec
build=$out/build
# The device lock of this study's own; no GPU is used (the host clock times host work).
export GPU_LOCK=$out/gpu.lock CUDA_VISIBLE_DEVICES=""
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

mkdir -p "$repo"
cp "$root/bench/history/toy/CMakeLists.txt" "$root/bench/history/toy/kernels.hpp" \
  "$root/bench/history/toy/bench.cpp" "$repo/"
git -C "$repo" init -q -b main
git -C "$repo" config user.name "toyvec developer"
git -C "$repo" config user.email "toyvec@example.invalid"

# One change per commit, as a developer would make it.
change() {
  case $1 in
    1) ;;  # the files as copied
    2) printf '# toyvec\n\nSmall vector kernels on the host, benchmarked with gpumeter.\n' >"$repo/README.md" ;;
    3) sed -i 's|^inline void saxpy(|// y = alpha x + y, in place.\ninline void saxpy(|' "$repo/kernels.hpp" ;;
    4)
      cat >>"$repo/kernels.hpp" <<'EOF'

namespace toyvec {

// The square of the Euclidean norm.
inline double norm2(const double* x, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += x[i] * x[i];
  return s;
}

}  // namespace toyvec
EOF
      cat >>"$repo/bench.cpp" <<'EOF'

namespace {

void norm2(gpumeter::Setup& s) {
  auto d = std::make_shared<Data>();
  s.bytes(8.0 * kN);
  s.implementation("loop", [d] { d->sink = toyvec::norm2(d->x.data(), kN); });
}
GPUMETER_BENCHMARK(norm2);

}  // namespace
EOF
      # GPUMETER_MAIN stays last.
      sed -i '/^GPUMETER_MAIN$/d' "$repo/bench.cpp"
      printf '\nGPUMETER_MAIN\n' >>"$repo/bench.cpp"
      ;;
    5) sed -i 's|^constexpr std::size_t kN = 4096;|// Every kernel runs over kN doubles: 32 KiB, resident in L1 or L2.\nconstexpr std::size_t kN = 4096;|' "$repo/bench.cpp" ;;
    6)
      # The planted regression: each of the four chains becomes a compensated (Kahan) sum.
      python3 - "$repo/kernels.hpp" <<'EOF'
import re, sys
path = sys.argv[1]
text = open(path).read()
kahan = '''inline double dot_unrolled4(const double* x, const double* y, std::size_t n) {
  // Compensated sums, for accuracy: each chain carries its rounding error along.
  double s[4] = {0, 0, 0, 0}, c[4] = {0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (int k = 0; k < 4; ++k) {
      const double v = x[i + k] * y[i + k] - c[k];
      const double t = s[k] + v;
      c[k] = (t - s[k]) - v;
      s[k] = t;
    }
  }
  for (; i < n; ++i) s[0] += x[i] * y[i];
  return (s[0] + s[1]) + (s[2] + s[3]);
}'''
new = re.sub(r'inline double dot_unrolled4\(.*?\n}', kahan, text, count=1, flags=re.S)
assert new != text
open(path, 'w').write(new)
EOF
      ;;
    7) sed -i 's|^inline void prefix_sum(|// out[i] = x[0] + ... + x[i].\ninline void prefix_sum(|' "$repo/kernels.hpp" ;;
    8) sed -i 's|^// Four accumulators: four chains in flight.|// Four accumulators: four chains in flight, so the adds overlap.|' "$repo/kernels.hpp" ;;
    9) cp "$root/bench/history/toy/kernels.hpp" "$repo/kernels.hpp.plain"
      python3 - "$repo/kernels.hpp" "$repo/kernels.hpp.plain" <<'EOF'
import re, sys
path, plain = sys.argv[1], sys.argv[2]
text = open(path).read()
original = re.search(r'inline double dot_unrolled4\(.*?\n}', open(plain).read(), flags=re.S).group(0)
new = re.sub(r'inline double dot_unrolled4\(.*?\n}', lambda m: original, text, count=1, flags=re.S)
assert new != text
open(path, 'w').write(new)
EOF
      rm "$repo/kernels.hpp.plain"
      ;;
    10) echo "0.2.0" >"$repo/VERSION" ;;
  esac
}
messages=(
  ""
  "toyvec: dot, saxpy and a prefix sum over doubles, with a gpumeter benchmark"
  "README: what toyvec is"
  "saxpy: say what it computes"
  "norm2: the square of the Euclidean norm, with its benchmark"
  "bench: say why 4096 doubles"
  "dot_unrolled4: compensated (Kahan) sums, for accuracy"
  "prefix_sum: say what it computes"
  "dot_unrolled4: say why four accumulators"
  "dot_unrolled4: plain sums again (the compensation tripled its critical path)"
  "version 0.2.0"
)

for step in $(seq 1 10); do
  change "$step"
  git -C "$repo" add -A
  git -C "$repo" commit -q -m "${messages[$step]}"
  commit=$(git -C "$repo" rev-parse HEAD)
  if [[ $step -eq 1 ]]; then
    cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DGPUMETER_SOURCE_DIR="$root" "${launcher[@]}" >"$out/configure.log"
  fi
  cmake --build "$build" --target toyvec-bench >"$out/build-$step.log"
  dir=$out/records/$(printf '%02d' "$step")-${commit:0:12}
  for run in $(seq 1 "$runs"); do
    # From inside the repository: the record names its checked-out commit.
    (cd "$repo" && "$build/toyvec-bench" --timing host --quiet --out "$dir") >/dev/null
  done
  echo "toy-history: commit $step ${commit:0:12}: $runs run(s) -> $dir"
done
git -C "$repo" rev-list --reverse HEAD >"$out/commits.txt"
"$gpumeter" history "$out/records" --commits "$out/commits.txt" --out "$out/site"
