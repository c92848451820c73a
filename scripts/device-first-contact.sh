#!/usr/bin/env bash
# A new user's first contact, on the GPU machine (its own compiler, g++ 13): from the repo root,
# configure the DEFAULT configuration (tests included, no -Werror, no ccache), build the main
# job's target alone and then everything else, count the compiler's warnings, run the main job's
# example, and check the widths of what it prints and of `gpumeter report`/`compare` and
# `--help` on its record. Every log is kept under $OUT (default ./first-contact-out); a short
# table comes last.
#   OUT=DIR bash scripts/device-first-contact.sh
# Exit code: 0 when the build has no warning, the example ran (exit 0) and every line fits;
# 1 otherwise.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/first-contact-out}
mkdir -p "$OUT"
BUILD=${BUILD:-build-first-contact}
JOBS=${JOBS:-$(nproc)}
START=$(date +%s)
# Everything must end inside the device tool's 10 minutes.
DEADLINE=$((START + ${FIRST_CONTACT_BUDGET:-560}))
export GPUMETER_PROJECT_COMMIT=${GPUMETER_PROJECT_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo "")}

ROWS=()
row() { ROWS+=("$(printf '%-30s %s' "$1" "$2")"); }
left() { local l=$((DEADLINE - $(date +%s))); echo $((l > 1 ? l : 1)); }
# widest FILE: the longest line's length in characters (UTF-8 aware).
widest() { LC_ALL=C.UTF-8 awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$1"; }

{
  echo "date: $(date -u)"
  echo "commit: $GPUMETER_PROJECT_COMMIT"
  c++ --version | head -1
  cmake --version | head -1
  nvcc --version 2>/dev/null | tail -1
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
  echo "cores: $(nproc)"
} >"$OUT/environment.txt" 2>&1
row "compiler" "$(c++ --version | head -1)"

# A fresh build directory, configured as the README's commands do (no options).
rm -rf "$BUILD"
t0=$(date +%s)
cmake -S . -B "$BUILD" -G Ninja >"$OUT/configure.log" 2>&1
rc=$?
row "configure (default)" "exit $rc, $(($(date +%s) - t0)) s"

# The main job's target first (what the README's main-job command builds), then everything.
t0=$(date +%s)
timeout "$(left)" cmake --build "$BUILD" --target gpumeter-example -j "$JOBS" >"$OUT/build-example.log" 2>&1
rc_example=$?
row "build gpumeter-example" "exit $rc_example, $(($(date +%s) - t0)) s on $JOBS cores"
t0=$(date +%s)
timeout "$(left)" cmake --build "$BUILD" -j "$JOBS" >"$OUT/build-all.log" 2>&1
rc_all=$?
row "build everything (tests too)" "exit $rc_all, $(($(date +%s) - t0)) s more"
cat "$OUT/build-example.log" "$OUT/build-all.log" >"$OUT/build.log"
warnings=$(grep -c 'warning:' "$OUT/build.log")
row "compiler warnings" "$warnings (grep -c 'warning:' build.log)"
grep 'warning:' "$OUT/build.log" | sort | uniq -c | sort -rn | head -20 >"$OUT/warnings.txt"

# The main job's example, as the README runs it.
ok=1
[ "$rc_all" = 0 ] && [ "$warnings" = 0 ] || ok=0
if [ -x "$BUILD/examples/gpumeter-example" ]; then
  rm -rf "$OUT/records"
  t0=$(date +%s)
  timeout "$(left)" "$BUILD/examples/gpumeter-example" --out "$OUT/records" >"$OUT/example.log" 2>&1
  rc=$?
  row "gpumeter-example" "exit $rc, $(($(date +%s) - t0)) s, widest line $(widest "$OUT/example.log")"
  [ "$rc" = 0 ] || ok=0
  [ "$(widest "$OUT/example.log")" -le 120 ] || ok=0
  record=$(ls "$OUT"/records/gpumeter-*.json 2>/dev/null | head -1)
  cli="$BUILD/src/cli/gpumeter"
  if [ -n "$record" ] && [ -x "$cli" ]; then
    "$cli" report "$record" >"$OUT/report.txt" 2>&1
    row "gpumeter report (GPU record)" "exit $?, widest line $(widest "$OUT/report.txt")"
    [ "$(widest "$OUT/report.txt")" -le 120 ] || ok=0
    # A second run of the example to compare with (compare refuses one record given twice).
    timeout "$(left)" "$BUILD/examples/gpumeter-example" --out "$OUT/records2" >/dev/null 2>&1
    second=$(ls "$OUT"/records2/gpumeter-*.json 2>/dev/null | head -1)
    "$cli" compare "$record" "${second:-$record}" >"$OUT/compare.txt" 2>&1
    row "gpumeter compare (two runs)" "exit $?, widest line $(widest "$OUT/compare.txt")"
    [ "$(widest "$OUT/compare.txt")" -le 120 ] || ok=0
  fi
  if [ -x "$cli" ]; then
    : >"$OUT/help.txt"
    for sub in "" report compare merge env lock run plot; do
      # shellcheck disable=SC2086
      "$cli" $sub --help >>"$OUT/help.txt" 2>&1
    done
    "$BUILD/examples/gpumeter-example" --help >>"$OUT/help.txt" 2>&1
    row "--help (gpumeter, example)" "widest line $(widest "$OUT/help.txt")"
    [ "$(widest "$OUT/help.txt")" -le 100 ] || ok=0
  fi
else
  row "gpumeter-example" "not built"
  ok=0
fi
row "total" "$(($(date +%s) - START)) s"

{
  echo "first contact on $(hostname) ($(nproc) cores); logs in $OUT"
  printf '%s\n' "${ROWS[@]}"
  if [ -s "$OUT/warnings.txt" ]; then
    echo "warnings (count, first 20 distinct):"
    cat "$OUT/warnings.txt"
  fi
  [ "$ok" = 1 ] && echo "result: PASS" || echo "result: FAIL"
} | tee "$OUT/summary.txt"
[ "$ok" = 1 ]
