# Shared by the test scripts that drive gpumeter's programs (tests/cli, tests/benchmark,
# tests/integration), sourced once their arguments are read. It gives:
#   - $work, a folder removed at exit (kept when KEEP is set, to look into after a failure), and
#     pids, the processes a script started in the background, killed at exit;
#   - fail MESSAGE, counting $failures (a script ends with `exit $((failures > 0))` or its own);
#   - run_program PROGRAM NAME ARGS...: leaves $work/NAME.out, $work/NAME.err and $rc, run in a
#     subshell so that a program aborting on purpose is reported in its log, not by this shell;
#   - fake_idle_device FAKE_NVML: the device as the fake NVML reports it, idle, with no real GPU
#     seen (whose uuid the fake would not know) and no note of a lock from the caller's run;
#   - no_scheduler_index: no Slurm array task or Kubernetes indexed Job of the machine deals the
#     test's cases.
work=$(mktemp -d)
pids=()
cleanup_work() {
  local p
  for p in "${pids[@]}"; do
    kill -KILL "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  [[ -n ${KEEP:-} ]] || rm -rf "$work"
}
trap cleanup_work EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

run_program() {
  local program=$1 name=$2
  shift 2
  ("$program" "$@"; exit $?) >"$work/$name.out" 2>"$work/$name.err"
  rc=$?
}

fake_idle_device() {
  export GPUMETER_NVML_LIBRARY="$1"
  export CUDA_VISIBLE_DEVICES=""
  export GPUMETER_FAKE_NVML_PROCESSES=""
  unset GPUMETER_FAKE_NVML_FREE_BYTES GPUMETER_LOCK_HELD GPUMETER_LOCK_NOTE
}

no_scheduler_index() {
  unset SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_COUNT SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_MAX \
    SLURM_ARRAY_TASK_STEP JOB_COMPLETION_INDEX JOB_COMPLETIONS
}
