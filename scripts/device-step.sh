# Sourced by the device scripts: step NAME TIMEOUT CMD... runs CMD under `timeout`, its output to
# $OUT/NAME.log, and appends "NAME rc RC SECONDS" to the array steps (the table the script prints
# last), NAME padded to STEP_WIDTH columns (default 16). Returns CMD's exit code. With DEADLINE
# (epoch seconds) set, a step gets at most the time left before it, and none (rc "skip") under
# 20 s: the device tool's 10 minutes end the whole call, and a table cut off says nothing.
step() {  # name timeout cmd...: its output to $OUT/name.log
  local name=$1 limit=$2 t0 rc
  shift 2
  t0=$(date +%s)
  if [[ -n ${DEADLINE:-} ]]; then
    (( DEADLINE - t0 < limit )) && limit=$(( DEADLINE - t0 ))
    if (( limit < 20 )); then
      steps+=("$(printf "%-${STEP_WIDTH:-16}s rc %-3s %4ss" "$name" skip 0)")
      return 124
    fi
  fi
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  rc=$?
  steps+=("$(printf "%-${STEP_WIDTH:-16}s rc %-3s %4ss" "$name" "$rc" "$(( $(date +%s) - t0 ))")")
  return $rc
}
