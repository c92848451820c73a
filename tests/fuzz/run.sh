#!/usr/bin/env bash
# Builds the libFuzzer target of the record reader, `report`, `compare` and `merge` in
# build-fuzz/ (Clang 14, AddressSanitizer and UndefinedBehaviorSanitizer) and fuzzes it for
# DURATION seconds from a copy of the seed corpus (real records: tests/fuzz/corpus/), with seeds
# of two records each made from it (compared and merged). Prints the executions and the corpus
# size; exits 1
# on any crash, hang (an input over 10 s), memory blow-up (over 2 GiB) or sanitizer report,
# naming the input libFuzzer kept (add it to the unit tests as a regression test).
#   tests/fuzz/run.sh DURATION_SECONDS
# Each library is one unit (a unity build, as pip builds the module): the fuzzer needs the code
# instrumented, not each file compiled alone (the main build does that).
set -euo pipefail
cd "$(dirname "$0")/../.."
duration=${1:?usage: tests/fuzz/run.sh DURATION_SECONDS}
[[ $duration =~ ^[0-9]+$ && $duration -gt 0 ]] || { echo "fuzz: DURATION_SECONDS must be a positive integer" >&2; exit 2; }
build=build-fuzz

mkdir -p "$build"
# -O1 and line tables, as libFuzzer's documentation builds its targets: a fifth less compile time
# than RelWithDebInfo's -O2 -g, and a report still names its lines.
CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
  -DGPUMETER_CUDA=OFF -DGPUMETER_TESTS=OFF -DGPUMETER_FUZZ=ON -DGPUMETER_EXAMPLES=OFF \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=0 >"$build/configure.log" 2>&1 \
  || { cat "$build/configure.log" >&2; exit 1; }
cmake --build "$build" --target fuzz_record_reader -j "$(nproc)"

# A fresh copy each run: libFuzzer adds the inputs it finds to the first corpus directory.
corpus=$build/corpus
artifacts=$build/artifacts
rm -rf "$corpus" "$artifacts"
mkdir -p "$corpus" "$artifacts"
cp tests/fuzz/corpus/* "$corpus/"
# Pairs for `compare` and `merge`: each seed with the next one, around the separator the target
# splits on (kSecondRecord in record_property.hpp).
mapfile -t singles < <(find tests/fuzz/corpus -type f | sort)
for ((i = 0; i < ${#singles[@]}; i++)); do
  next=${singles[$(((i + 1) % ${#singles[@]}))]}
  { cat "${singles[$i]}"; printf '\n--- gpumeter fuzz: second record ---\n'; cat "$next"; } >"$corpus/pair-$i.json"
done
seeds=$(find "$corpus" -type f | wc -l)

log=$build/fuzz.log
echo "fuzz: running fuzz_record_reader (report, compare, merge) for ${duration} s from ${seeds} seeds (log: $log)"
symbolizer=/usr/lib/llvm-14/bin/llvm-symbolizer  # readable stacks in a report
[[ -x $symbolizer ]] && export ASAN_SYMBOLIZER_PATH=$symbolizer UBSAN_SYMBOLIZER_PATH=$symbolizer
rc=0
started=$SECONDS
# The outer timeout only guards against libFuzzer itself not stopping.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  timeout --signal=KILL $((duration + 300)) \
  "$build/tests/fuzz/fuzz_record_reader" -max_total_time="$duration" -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1 -dict=tests/fuzz/record.dict \
  -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1 || rc=$?

executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
files=$(find "$corpus" -type f | wc -l)
bytes=$(du -sb "$corpus" | cut -f1)
echo "fuzz: ${executions:-?} executions in $((SECONDS - started)) s; corpus ${files} files (${bytes} bytes) from ${seeds} seeds"
crashes=$(find "$artifacts" -type f | wc -l)
if [[ $rc -ne 0 || $crashes -gt 0 ]]; then
  echo "fuzz: FAILED (exit code $rc); inputs kept:" >&2
  find "$artifacts" -type f >&2
  tail -n 60 "$log" >&2
  exit 1
fi
echo "fuzz: no crash, hang or sanitizer report"
