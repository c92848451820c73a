#!/usr/bin/env bash
# Builds gpumeter on the GPU machine and runs every GPU check in one go, from the repo root:
#   configure + build (Release, CUDA on), ctest (unit + gpu), the GPU test binary once more in
#   one process (many CUPTI phases in one process), gpumeter-cuda-info, gpumeter-vs-events,
#   ncu on the bare kernels, ncu attached to gpumeter (CUPTI must refuse with the cause),
#   gpumeter-overhead and gpumeter-a-vs-a (how often comparisons claim a difference). Logs and
#   JSON go to $OUT (default ./device-check-out). Each step's exit code is recorded and the
#   script keeps going after a failure; a summary table comes last.
#   The evaluation protocol's checks come too: gpumeter-watch-cost (what CUPTI's records add
#   per launch), gpumeter-protocol-demo (null tests, 1 GiB held), a GEMM sweep's per-sample clock
#   state, `gpumeter lock` on the device, and a GEMM ceiling with and without idle pauses.
#   DEVICE_CHECK_ONLY="ctest watch-cost ..." runs only the named steps after the build (names as
#   in the summary table's first column, without suffixes), to fit a short device budget.
#   Exit code: 0 when every step passed, 1 otherwise.
set -u
cd "$(dirname "$0")/.." || exit 1
# The device tool returns at most 8 files from $OUT: logs go to a work folder, and $OUT gets
# one archive of it plus the summary.
FINAL_OUT=${OUT:-$PWD/device-check-out}
mkdir -p "$FINAL_OUT"
OUT=$(mktemp -d /tmp/device-check.XXXXXX)
BUILD=${BUILD:-build-device}
JOBS=${JOBS:-16}
START=$(date +%s)
# Records name the measured project's commit (P2); the device copy has no .git, so the
# caller passes it (GPUMETER_PROJECT_COMMIT=$(git rev-parse HEAD) on the machine that sent it).
export GPUMETER_PROJECT_COMMIT=${GPUMETER_PROJECT_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo "")}
# Everything, summary included, must end inside the device tool's 10 minutes: each step's
# limit is cut to what is left of this budget, and a step with no time left is skipped.
DEADLINE=$(( START + ${DEVICE_CHECK_BUDGET:-540} ))

# wanted NAME: whether DEVICE_CHECK_ONLY (when set) names the step.
wanted() {
  [ -z "${DEVICE_CHECK_ONLY:-}" ] && return 0
  case " $DEVICE_CHECK_ONLY " in *" $1 "*) return 0 ;; esac
  return 1
}

STEPS=()
record() {  # name rc seconds [note]
  STEPS+=("$(printf '%-22s %4s %6ss  %s' "$1" "$2" "$3" "${4:-}")")
}
# run_step NAME TIMEOUT LOGFILE CMD...: runs CMD under a timeout, output to LOGFILE; rc kept in $RC.
run_step() {
  local name=$1 limit=$2 log=$3
  shift 3
  local t0 left
  t0=$(date +%s)
  left=$(( DEADLINE - t0 ))
  if [ "$left" -lt 15 ]; then
    RC=skipped
    record "$name" skipped 0 "no time left in the ${DEVICE_CHECK_BUDGET:-540}s budget"
    return
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  echo "== $name: $*" | tee -a "$OUT/steps.log"
  timeout --signal=TERM --kill-after=10 "$limit" "$@" >"$log" 2>&1
  RC=$?
  local note=""
  [ "$RC" = 124 ] && note="timed out after ${limit}s"
  record "$name" "$RC" "$(( $(date +%s) - t0 ))" "$note"
  echo "   rc=$RC ($(( $(date +%s) - t0 ))s) -> $log" | tee -a "$OUT/steps.log"
}

# --- environment -----------------------------------------------------------------------------
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: ${GPUMETER_PROJECT_COMMIT:-unknown} (given by the caller; the copy on this machine has no .git)"
  echo "gpu: $(nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,utilization.gpu,memory.used,memory.total --format=csv,noheader 2>&1 | head -1)"
  echo "nvcc: $(nvcc --version 2>&1 | tail -1)"
  echo "cmake: $(cmake --version 2>&1 | head -1)"
  echo "ninja: $(ninja --version 2>&1 || echo none)"
} >"$OUT/environment.txt" 2>&1
nvidia-smi -q >"$OUT/nvidia-smi-q.txt" 2>&1

# --- configure and build ---------------------------------------------------------------------
GEN=()
command -v ninja >/dev/null 2>&1 && GEN=(-G Ninja)
CONFIG=(-S . -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUMETER_CUDA=ON)
# CMake before 3.26 knows no CUDA20 dialect for nvcc and refuses targets whose CUDA standard
# is 20; nvcc 12+ takes -std=c++20, so tell such a CMake the flag.
CMAKE_VERSION=$(cmake --version | head -1 | awk '{print $3}')
if [ "$(printf '%s\n3.26\n' "$CMAKE_VERSION" | sort -V | head -1)" != 3.26 ]; then
  CONFIG+=(-DCMAKE_CUDA20_STANDARD_COMPILE_OPTION=-std=c++20
           -DCMAKE_CUDA20_EXTENSION_COMPILE_OPTION=-std=c++20)
fi
TESTS_BUILT=1
run_step configure 120 "$OUT/configure.log" cmake "${CONFIG[@]}"
if [ "$RC" != 0 ] && grep -q "GoogleTest not found" "$OUT/configure.log"; then
  echo "!! GoogleTest is missing on this machine (no CMake package, no /usr/src/googletest):" \
       "the tests cannot be built. Configuring again without tests so the examples still run." \
       | tee -a "$OUT/steps.log"
  TESTS_BUILT=0
  rm -rf "$BUILD"
  run_step configure-no-tests 120 "$OUT/configure-no-tests.log" cmake "${CONFIG[@]}" -DGPUMETER_TESTS=OFF
fi
if [ "$RC" != 0 ]; then
  grep -E "CMake Error|requires the language dialect|not found" "$OUT"/configure*.log | head -20 \
    | tee -a "$OUT/steps.log"
fi
run_step build 360 "$OUT/build.log" cmake --build "$BUILD" -j "$JOBS" -- -k 0
[ "$RC" != 0 ] && grep -E "error|FAILED" "$OUT/build.log" | head -30 | tee -a "$OUT/steps.log"
# A failed full build may still have produced our targets; build them alone so the checks
# below can run whatever exists.
if [ "$RC" != 0 ]; then
  run_step build-cuda-targets 240 "$OUT/build-cuda-targets.log" cmake --build "$BUILD" -j "$JOBS" \
    --target gpumeter-vs-events gpumeter-overhead gpumeter-cuda-info test_cuda_backend \
    test_cuda_sticky test_cuda_no_cupti test_cuda_ceilings
fi

BIN="$BUILD/bench/cuda"
TESTBIN="$BUILD/tests/gpu"

# --- tests -----------------------------------------------------------------------------------
if [ "$TESTS_BUILT" = 1 ] && wanted ctest; then
  run_step ctest 240 "$OUT/ctest.log" ctest --test-dir "$BUILD" --output-on-failure \
    --output-junit "$OUT/ctest-junit.xml" -j 4
  # All GPU tests again in ONE process: one CUPTI session across dozens of phases (graphs
  # included), as a real benchmark run uses it.
  if [ -x "$TESTBIN/test_cuda_backend" ]; then
    run_step gpu-tests-one-process 150 "$OUT/gtest-one-process.log" "$TESTBIN/test_cuda_backend" \
      --gtest_output="json:$OUT/gtest-one-process.json"
  else
    record gpu-tests-one-process missing 0 "test_cuda_backend not built"
  fi
  # The ceilings' known answers (timed like the rows; the best copy; a row of their own kernel).
  if [ -x "$TESTBIN/test_cuda_ceilings" ]; then
    run_step gpu-ceilings 120 "$OUT/gtest-ceilings.log" "$TESTBIN/test_cuda_ceilings"
  fi
elif [ "$TESTS_BUILT" != 1 ]; then
  record ctest skipped 0 "GoogleTest missing"
fi

# --- what gpumeter finds, and the examples ---------------------------------------------------
if [ -x "$BIN/gpumeter-cuda-info" ] && wanted cuda-info; then
  run_step cuda-info 120 "$OUT/cuda-info.json" "$BIN/gpumeter-cuda-info" --ceilings
fi
if [ -x "$BIN/gpumeter-vs-events" ] && wanted vs-events; then
  run_step vs-events 120 "$OUT/vs-events.log" "$BIN/gpumeter-vs-events" --json "$OUT/vs-events.json"
fi

# --- Nsight Compute: the bare kernels (no CUPTI in that process), and ncu attached to gpumeter
NCU=$(command -v ncu || true)
[ -z "$NCU" ] && for c in /usr/local/cuda/bin/ncu /usr/local/cuda/nsight-compute*/ncu \
    /opt/nvidia/nsight-compute/*/ncu /usr/local/NVIDIA-Nsight-Compute*/ncu; do
  [ -x "$c" ] && NCU=$c && break
done
[ -z "$NCU" ] && NCU=$(find / -xdev -maxdepth 6 -type f -name ncu -perm -u+x 2>/dev/null | head -1)
echo "ncu: ${NCU:-none}" >>"$OUT/environment.txt"
ncu_median_us() {  # csv kernel-substring -> median gpu__time_duration.sum in us, or "n/a"
  local values
  values=$(grep -F "gpu__time_duration.sum" "$1" 2>/dev/null | grep -F "$2" \
    | awk -F'","' '{v=$NF; gsub(/[",]/, "", v); print v}' | sort -g)
  [ -z "$values" ] && { echo "n/a"; return; }
  local unit
  unit=$(grep -F "gpu__time_duration.sum" "$1" | grep -F "$2" | head -1 | awk -F'","' '{print $(NF-1)}')
  echo "$values" | awk -v unit="$unit" '{a[NR]=$1} END {
    m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2;
    s = 1e-3;                       # nsecond -> us
    if (unit ~ /^us|usecond/) s = 1;
    if (unit ~ /^ms|msecond/) s = 1e3;
    printf "%.3f", m * s }'
}
NCU_ONE="n/a"; NCU_BW="n/a"
if [ -n "$NCU" ] && [ -x "$BIN/gpumeter-vs-events" ] && wanted ncu; then
  for k in one_block bandwidth; do
    run_step "ncu-$k" 120 "$OUT/ncu-$k.csv" "$NCU" --clock-control none \
      --metrics gpu__time_duration.sum --csv --print-units base \
      "$BIN/gpumeter-vs-events" --mode bare --kernel "$k" --iterations 20
  done
  NCU_ONE=$(ncu_median_us "$OUT/ncu-one_block.csv" empty_kernel)
  NCU_BW=$(ncu_median_us "$OUT/ncu-bandwidth.csv" copy_kernel)
  # ncu holds CUPTI in the profiled process: gpumeter must refuse (exit 3) and name the cause.
  if [ -x "$BIN/gpumeter-cuda-info" ]; then
    run_step ncu-attached-run 120 "$OUT/ncu-attached.log" "$NCU" --clock-control none \
      --metrics gpu__time_duration.sum "$BIN/gpumeter-cuda-info"
    # Judged by what gpumeter said, not by ncu's exit code (ncu may not pass the app's on).
    if grep -q "another CUPTI client" "$OUT/ncu-attached.log"; then
      record ncu-attached 0 0 "CuptiUnavailable named the profiler, as expected"
    else
      record ncu-attached 1 0 "UNEXPECTED: gpumeter did not report 'another CUPTI client'"
    fi
  fi
elif [ -z "$NCU" ]; then
  record ncu missing 0 "no ncu on this machine"
fi

# gpumeter's main job on the GPU: the bundled example work into a record, table printed. It and
# time-my-kernel print the table a user sees first (the narrow one, lines of 120); the logs below
# whose figures the documents quote (memory, clocks, every percent) are printed --wide.
if [ -x "$BUILD/examples/gpumeter-example" ] && wanted example; then
  run_step example 150 "$OUT/example.log" "$BUILD/examples/gpumeter-example" --out "$OUT/records"
fi

if [ -x "$BUILD/examples/time-my-kernel" ] && wanted time-my-kernel; then
  run_step time-my-kernel 120 "$OUT/time-my-kernel.log" "$BUILD/examples/time-my-kernel" \
    --out "$OUT/records"
fi

if [ -x "$BIN/gpumeter-overhead" ] && wanted overhead; then
  run_step overhead 120 "$OUT/overhead.log" "$BIN/gpumeter-overhead" --json "$OUT/overhead.json"
fi

# The example sweep (benchmark programs), a sweep that survives a faulting case, and the
# runtime's own cost: 100 cases of a 10 us kernel against the sum of their budgets.
EX="$BUILD/examples"
if [ -x "$EX/gpumeter-examples" ] && wanted examples-sweep; then
  run_step examples-sweep 240 "$OUT/examples-sweep.log" "$EX/gpumeter-examples" --wide --out "$OUT/sweep"
fi
if [ -x "$EX/gpumeter-fault-demo" ] && wanted fault-demo; then
  run_step fault-demo 120 "$OUT/fault-demo.log" "$EX/gpumeter-fault-demo" --isolate --timeout 60 \
    --wide --out "$OUT/fault"
  # Exit 1 is the expected outcome: case 3 fails; what matters is that 1, 2, 4, 5 were measured.
  if grep -qE "case=3.*(DeviceError|Crashed).*cudaErrorIllegalAddress|cudaErrorIllegalAddress" "$OUT/fault-demo.log" &&
     [ "$(grep -cE '^\| fault_demo +\| ' "$OUT/fault-demo.log")" -ge 5 ]; then
    record fault-demo-check 0 0 "cases 1, 2, 4, 5 measured; case 3 failed naming the CUDA error"
  else
    record fault-demo-check 1 0 "UNEXPECTED: see fault-demo.log"
  fi
fi
if [ -x "$BIN/gpumeter-sweep-cost" ] && wanted sweep-cost; then
  t0=$(date +%s%N)
  run_step sweep-cost 240 "$OUT/sweep-cost.log" "$BIN/gpumeter-sweep-cost" --quiet --out "$OUT/cost"
  t1=$(date +%s%N)
  echo "sweep of 100 cases: $(( (t1 - t0) / 1000000 )) ms of wall time against 12500 ms of budgets" \
    | tee -a "$OUT/sweep-cost.log"
fi

# Comparisons that are right about themselves: A against A, a 1% difference, the 1-block sweep.
if [ -x "$BIN/gpumeter-a-vs-a" ] && wanted a-vs-a; then
  run_step a-vs-a 300 "$OUT/a-vs-a.log" "$BIN/gpumeter-a-vs-a" --out "$OUT/a-vs-a"
fi

# Comparisons run to a target precision, every check on: time to an answer by kernel size and
# target, A against A, 1% longer copies at 1 and 20 us, and whether levels follow changes far
# below a timestamp step. Fewer repeats than the program's defaults, to fit the budget.
if [ -x "$BIN/gpumeter-precision" ] && wanted precision; then
  run_step precision 420 "$OUT/precision.log" "$BIN/gpumeter-precision" --out "$OUT/precision" \
    --repeat 10 --changes 5 --time-repeat 2
fi

# --- the evaluation protocol -------------------------------------------------------------------
# The cost of watching: 1000 tiny launches under each set of CUPTI records, each in a process of
# its own, and gpumeter's session with and without the runtime records.
if [ -x "$BIN/gpumeter-watch-cost" ] && wanted watch-cost; then
  run_step watch-cost 120 "$OUT/watch-cost.log" "$BIN/gpumeter-watch-cost" --json "$OUT/watch-cost.json"
fi
# The GEMM ceiling back to back and after idle pauses: why a ceiling's runs do not pause, and why
# a short GEMM can read "above the measured ceiling".
if [ -x "$BIN/gpumeter-ceiling-pause" ] && wanted ceiling-pause; then
  run_step ceiling-pause 60 "$OUT/ceiling-pause.log" "$BIN/gpumeter-ceiling-pause"
fi
# Null tests (one passes, one must fail: exit 1 expected) and a case holding 1 GiB, each case in a
# process of its own so its memory figures are its alone.
if [ -x "$EX/gpumeter-protocol-demo" ] && wanted protocol-demo; then
  run_step protocol-demo 120 "$OUT/protocol-demo.log" "$EX/gpumeter-protocol-demo" --isolate \
    --timeout 60 --wide --out "$OUT/protocol"
  if grep -qE "spin-ignores-scale.*FAILED its null test" "$OUT/protocol-demo.log" &&
     grep -qE "spin-scales: 4x the work took [3-4]\.[0-9]x the time: pass" "$OUT/protocol-demo.log"; then
    record protocol-demo-check 0 0 "scaled spin passes, the one ignoring its scale fails"
  else
    record protocol-demo-check 1 0 "UNEXPECTED: see protocol-demo.log"
  fi
fi
# A sweep whose per-sample clock state is worth reading: the GEMMs, which draw the most power.
if [ -x "$EX/gpumeter-examples" ] && wanted clock-sweep; then
  run_step clock-sweep 150 "$OUT/clock-sweep.log" "$EX/gpumeter-examples" --filter gemm \
    --csv --out "$OUT/clock-sweep"
fi
# The device lock on the machine: a holder and a waiter serialise; NVML's idle check reads the
# real device.
GM="$BUILD/src/cli/gpumeter"
if [ -x "$GM" ] && wanted lock; then
  run_step lock 60 "$OUT/lock.log" bash -c "
    export GPU_LOCK=\$(mktemp -u /tmp/gpumeter-lock-check.XXXXXX)
    t0=\$(date +%s%N)
    '$GM' lock --timeout 30 -- sleep 2 & first=\$!
    sleep 0.5
    '$GM' lock --timeout 30 -- true; second=\$?
    wait \$first
    t1=\$(date +%s%N)
    echo \"second holder exit \$second after \$(( (t1 - t0) / 1000000 )) ms (the first held 2000 ms)\"
    '$GM' lock --timeout 0 -- '$GM' env | head -40
  "
fi

# --- summary ---------------------------------------------------------------------------------
{
  echo
  echo "================ device-check summary ($(( $(date +%s) - START ))s) ================"
  grep -E "^(commit|gpu|cmake):" "$OUT/environment.txt"
  # The default configuration with this machine's compiler: no warning is the bar (-Wall -Wextra).
  [ -f "$OUT/build.log" ] && echo "build warnings ($(c++ --version | head -1)): $(grep -c 'warning:' "$OUT/build.log")"
  if ! grep -q "Build files have been written" "$OUT"/configure*.log 2>/dev/null; then
    echo "configure failed:"
    grep -E -A3 "CMake Error" "$OUT"/configure*.log | head -12
  fi
  echo
  printf '%-22s %4s %7s  %s\n' step rc time note
  for s in "${STEPS[@]}"; do echo "$s"; done
  echo
  if [ -f "$OUT/ctest.log" ]; then
    grep -E "tests passed|tests failed" "$OUT/ctest.log" | tail -1
    grep -E "^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess aborted|Not Run)\)" "$OUT/ctest.log"
    echo "skipped: $(grep -c '(Skipped)' "$OUT/ctest.log")"
  fi
  if [ -f "$OUT/gtest-one-process.log" ]; then
    echo "one process: $(grep -E '^\[ +(PASSED|FAILED|SKIPPED) +\] [0-9]+ test' "$OUT/gtest-one-process.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \] [A-Za-z]' "$OUT/gtest-one-process.log" | sed 's/ ([0-9]* ms)$//' | sort -u
    grep "^KNOWN-ANSWER" "$OUT/gtest-one-process.log"
  fi
  [ -f "$OUT/gtest-ceilings.log" ] && grep -E '^KNOWN-ANSWER|^\[  FAILED  \] [A-Za-z]' "$OUT/gtest-ceilings.log"
  echo
  echo "kernel      gpumeter device_busy us | CUDA events us | ncu gpu__time_duration us | gpumeter, write-only flush us"
  for k in one_block bandwidth; do
    line=$(grep "^RESULT kernel=$k " "$OUT/vs-events.log" 2>/dev/null)
    c=$(echo "$line" | sed -n 's/.*cupti_us=\([^ ]*\).*/\1/p')
    e=$(echo "$line" | sed -n 's/.*events_us=\([^ ]*\).*/\1/p')
    n=$NCU_ONE; [ "$k" = bandwidth ] && n=$NCU_BW
    d=$(echo "$line" | sed -n 's/.*cupti_dirty_us=\([^ ]*\).*/\1/p')
    printf '%-11s %27s | %14s | %24s | %s\n' "$k" "${c:-n/a}" "${e:-n/a}" "$n" "${d:-n/a}"
  done
  echo "(ncu reads ~0.8 us above CUPTI on the 1-block kernel in every committed run; on the copy the two agree within 0.5 us either way)"
  echo
  [ -f "$OUT/overhead.log" ] && cat "$OUT/overhead.log"
  echo
  [ -f "$OUT/a-vs-a.log" ] && cat "$OUT/a-vs-a.log"
  echo
  # gpumeter-precision prints its lines as they come, then all of them again after a blank line.
  [ -f "$OUT/precision.log" ] && awk 'NF == 0 { n = NR } { l[NR] = $0 } END { for (i = n + 1; i <= NR; i++) print l[i] }' "$OUT/precision.log"
  echo
  [ -f "$OUT/sweep-cost.log" ] && tail -1 "$OUT/sweep-cost.log"
  [ -f "$OUT/fault-demo.log" ] && grep -E "^\| fault_demo|not measured:" "$OUT/fault-demo.log" | cut -c1-200
  [ -f "$OUT/examples-sweep.log" ] && grep -E "^\| (bandwidth|gemm)|^- " "$OUT/examples-sweep.log" | cut -c1-220
  echo
  [ -f "$OUT/watch-cost.log" ] && cat "$OUT/watch-cost.log"
  echo
  [ -f "$OUT/ceiling-pause.log" ] && cat "$OUT/ceiling-pause.log"
  [ -f "$OUT/protocol-demo.log" ] && grep -E "null test|FAILED|GPU memory|^\| (null_test|holds_memory)" "$OUT/protocol-demo.log" | cut -c1-260
  # The clock columns by name (their positions move as columns are added).
  [ -f "$OUT/clock-sweep.log" ] && awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^(case|implementation|params|time_median_us)$/ || $i ~ /clock|_samples$/) k[++n] = i }
    { s = ""; for (j = 1; j <= n; j++) s = s (j > 1 ? "," : "") $k[j]; print s }' "$OUT/clock-sweep.log" | head -20
  [ -f "$OUT/lock.log" ] && head -3 "$OUT/lock.log"
  echo
  [ -f "$OUT/cuda-info.json" ] && grep -E '"(name|arch|version|usable|drop_counter_live|bytes_per_s|flops_per_s|timing_method|work)"' "$OUT/cuda-info.json"
} | tee "$OUT/summary.txt"
cp "$OUT/summary.txt" "$FINAL_OUT/summary.txt"
[ -f "$OUT/example.log" ] && cp "$OUT/example.log" "$FINAL_OUT/example.log"
tar czf "$FINAL_OUT/device-check.tgz" -C "$OUT" . 2>/dev/null

for s in "${STEPS[@]}"; do
  rc=$(echo "$s" | awk '{print $2}')
  case "$s" in ncu-attached-run*|protocol-demo\ *) continue ;; esac  # judged by their -check rows
  [ "$rc" != 0 ] && exit 1
done
exit 0
