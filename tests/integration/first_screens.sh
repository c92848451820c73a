#!/usr/bin/env bash
# What a new user sees first:
#   - the main job as the README runs it prints a table that fits 120 columns, with no cell it
#     did not measure shown as a number (the host backend's gap and uncounted copy read "not
#     measured" in the wide table);
#   - a program of GPU work on a machine without a usable GPU says so in one line, exit 5, and
#     measures nothing;
#   - a power-of-two range on an integer axis; a filter that selects nothing is exit 2 with and
#     without --list; --out is checked before anything is measured; an unknown gpumeter command
#     is an error naming it, also before --help;
#   - programs that do not call cuBLAS do not link it.
#   first_screens.sh GPUMETER_EXAMPLE GPUMETER BENCHMARK_PROGRAM FAKE_NVML
set -u
example=$1
gpumeter=$2
bench=$3
fake_nvml=$4
examples_dir=$(dirname "$example")
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
export GPU_LOCK="$work/gpu.lock"
export GPUMETER_NVML_LIBRARY="$fake_nvml"
# The lines of a file's first markdown table.
table_of() {
  sed -n '/^| case/,/^$/p' "$1" | sed '/^$/d'
}
widest() {
  awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }'
}

# --- the main job, as the README runs it ----------------------------------------------------
mkdir -p "$work/main"
(cd "$work/main" && "$example") >"$work/main.out" 2>"$work/main.err"
rc=$?
[[ $rc -eq 0 ]] || fail "main job: exit code $rc: $(cat "$work/main.err")"
if ! grep -q "^No usable GPU" "$work/main.out"; then
  # A GPU here. --timing host means what it means in every program: the synchronized wall clock
  # around the GPU work, on the GPU (the main job once ran its CPU work for it).
  gpu_line=$(grep "^Measuring " "$work/main.out")
  (cd "$work/main" && "$example" --timing host) >"$work/host.out" 2>"$work/host.err" ||
    fail "main job --timing host: $(cat "$work/host.err")"
  host_line=$(grep "^Measuring " "$work/host.out")
  [[ ${host_line% (*} == "${gpu_line% (*}" && $host_line == *"(host-clock)" ]] ||
    fail "main job --timing host: '$host_line', not the GPU work of '$gpu_line' on the wall clock"
  # The host pipeline is the one this checks: the GPU hidden.
  (cd "$work/main" && CUDA_VISIBLE_DEVICES="" "$example") >"$work/main.out" 2>"$work/main.err"
  grep -q "^No usable GPU" "$work/main.out" || fail "main job, GPU hidden: $(head -n3 "$work/main.out")"
fi
table_of "$work/main.out" >"$work/main.table"
[[ $(wc -l <"$work/main.table") -ge 4 ]] || fail "main job: no table: $(cat "$work/main.out")"
width=$(widest <"$work/main.table")
[[ $width -le 120 ]] || fail "main job: a table line of $width characters: $(cat "$work/main.table")"
# Above the comparisons, every line fits too (the notes and sources are broken into lines).
width=$(sed '/^Comparisons (/,$d' "$work/main.out" | widest)
[[ $width -le 120 ]] || fail "main job: a line of $width characters before the comparisons"
grep -qF "not measured" "$work/main.table" && fail "main job: a cell not measured: $(cat "$work/main.table")"
# The wide table keeps every column; the host clock measured no gap and no copy.
record=$(ls "$work"/main/gpumeter-results/gpumeter-*.json | tail -n1)
"$gpumeter" report --wide "$record" >"$work/wide.md" || fail "main job: its record does not read"
header=$(head -n1 "$work/wide.md")
for title in "gap (us)" "uncounted copy (us)" "n_kernels (max)" "host peak RSS (MiB)"; do
  [[ $header == *"$title"* ]] || fail "wide: no column '$title'"
done
gap_column=$(head -n1 "$work/wide.md" | tr '|' '\n' | sed 's/^ *//;s/ *$//' | grep -n '^gap (us)$' | cut -d: -f1)
gap=$(grep -E '^\| sum-f64 ' "$work/wide.md" | head -n1 | tr '|' '\n' | sed -n "${gap_column}p" | sed 's/^ *//;s/ *$//')
[[ $gap == "not measured" ]] || fail "wide: a host row's gap reads '$gap', not 'not measured'"

# --- programs of GPU work without a GPU ---------------------------------------------------------
if "$gpumeter" env --json | grep -q '"device": null'; then
  # The main job asked for the GPU: exit 5 and one line, as every program of GPU work (a build
  # without the CUDA backend says that instead, a usage error).
  (cd "$work" && "$example" --timing cupti) >"$work/cuda.out" 2>"$work/cuda.err"
  rc=$?
  if grep -qF "needs the CUDA backend" "$work/cuda.err"; then
    [[ $rc -eq 2 ]] || fail "example --timing cupti (no CUDA backend): exit code $rc, expected 2"
  else
    [[ $rc -eq 5 ]] || fail "example --timing cupti: exit code $rc without a GPU, expected 5"
    [[ $(wc -l <"$work/cuda.err") -eq 1 ]] || fail "example --timing cupti: not one line: $(cat "$work/cuda.err")"
    grep -qE "^gpumeter-example: .+; nothing was measured; --timing host times host work on the host clock$" \
      "$work/cuda.err" || fail "example --timing cupti: $(cat "$work/cuda.err")"
  fi
  [[ -s "$work/cuda.out" ]] && fail "example --timing cupti: printed $(head -n3 "$work/cuda.out")"
  for name in time-my-kernel gpumeter-examples gpumeter-fault-demo gpumeter-protocol-demo; do
    program="$examples_dir/$name"
    [[ -x $program ]] || continue
    mkdir -p "$work/$name"
    (cd "$work/$name" && "$program") >"$work/$name.out" 2>"$work/$name.err"
    rc=$?
    [[ $rc -eq 5 ]] || fail "$name: exit code $rc without a GPU, expected 5"
    [[ -s "$work/$name.out" ]] && fail "$name: printed a table without a GPU: $(head -n3 "$work/$name.out")"
    [[ $(wc -l <"$work/$name.err") -eq 1 ]] || fail "$name: not one line: $(cat "$work/$name.err")"
    grep -qE "^$name: .+; nothing was measured; --timing host times host work on the host clock$" \
      "$work/$name.err" || fail "$name: $(cat "$work/$name.err")"
    [[ -e "$work/$name/gpumeter-results" ]] && fail "$name: made a record folder"
    # Listing needs no device.
    "$program" --list >/dev/null 2>&1 || fail "$name: --list fails without a GPU"
  done
else
  echo "note: a GPU is usable here; the no-GPU answer of the CUDA examples is not checked"
fi

# --- axes, filters, --out, commands ------------------------------------------------------------
"$bench" --list --filter sum --axis n=2^10:2^14:2 >"$work/axis.out" 2>"$work/axis.err" ||
  fail "axis: a power-of-two range on an integer axis is refused: $(cat "$work/axis.err")"
[[ $(cut -f2 "$work/axis.out" | tr '\n' ';') == \
  "sum (kind=plain, n=1024);sum (kind=plain, n=2048);sum (kind=plain, n=4096);sum (kind=plain, n=8192);sum (kind=plain, n=16384);" ]] ||
  fail "axis: $(cat "$work/axis.out")"

"$bench" --filter zzz --list >"$work/list.out" 2>"$work/list.err"
list_rc=$?
"$bench" --filter zzz --timing host >"$work/run.out" 2>"$work/run.err"
run_rc=$?
[[ $list_rc -eq 2 && $run_rc -eq 2 ]] || fail "filter: --list exits $list_rc, a run $run_rc; both should be 2"
[[ $(head -n1 "$work/list.err") == "$(head -n1 "$work/run.err")" ]] ||
  fail "filter: --list says '$(head -n1 "$work/list.err")', a run '$(head -n1 "$work/run.err")'"
[[ -s "$work/list.out" ]] && fail "filter: --list printed cases that do not match"

touch "$work/a-file"
start=$(date +%s%N)
"$example" --timing host --out "$work/a-file" >"$work/out.out" 2>"$work/out.err"
rc=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
[[ $rc -eq 2 ]] || fail "example --out FILE: exit code $rc, expected 2"
grep -qF -- "--out $work/a-file" "$work/out.err" || fail "example --out FILE: $(cat "$work/out.err")"
grep -q "Measuring" "$work/out.out" && fail "example --out FILE: measured before failing"
echo "note: example --out FILE answered in $elapsed_ms ms"
"$bench" --out "$work/a-file" --timing host >"$work/bout.out" 2>"$work/bout.err"
rc=$?
[[ $rc -eq 2 ]] && grep -qF -- "--out $work/a-file" "$work/bout.err" ||
  fail "benchmark --out FILE: exit code $rc: $(cat "$work/bout.err")"

"$gpumeter" launch --help >"$work/cmd.out" 2>"$work/cmd.err"
rc=$?
[[ $rc -eq 2 ]] || fail "gpumeter launch --help: exit code $rc, expected 2"
[[ $(head -n1 "$work/cmd.err") == "gpumeter: unknown command 'launch'" ]] ||
  fail "gpumeter launch --help: $(cat "$work/cmd.err")"
[[ -s "$work/cmd.out" ]] && fail "gpumeter launch --help: printed help"
"$gpumeter" report --help >/dev/null || fail "gpumeter report --help fails"

# --- which programs link cuBLAS --------------------------------------------------------------
if command -v readelf >/dev/null; then
  needs_cublas() { readelf -d "$1" 2>/dev/null | grep -q 'NEEDED.*libcublas'; }
  for program in "$gpumeter" "$example" "$bench" "$examples_dir/time-my-kernel" \
    "$examples_dir/gpumeter-fault-demo" "$examples_dir/gpumeter-protocol-demo"; do
    [[ -x $program ]] || continue
    needs_cublas "$program" && fail "$(basename "$program") links cuBLAS, and calls none of it"
  done
  # The example sweep calls cuBLAS (its GEMMs): the check can see a link where there is one.
  if [[ -x "$examples_dir/gpumeter-examples" ]]; then
    needs_cublas "$examples_dir/gpumeter-examples" || fail "gpumeter-examples: its cuBLAS link is not seen"
  fi
else
  echo "note: no readelf; the link check did not run"
fi

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "first screens: all checks passed"
