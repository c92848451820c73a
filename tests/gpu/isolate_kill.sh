#!/usr/bin/env bash
# On a GPU: an --isolate sweep's parent stays off the device while its case's process measures,
# and a SIGKILL of the parent leaves nothing on the device: the case's process is gone within
# 10 s, NVML lists neither process, and the next run takes the device lock at once and measures.
# Exits 77 (skipped, said why) where no CUDA device is usable.
#   isolate_kill.sh TIME_MY_KERNEL GPUMETER
set -u
program=$1
gpumeter=$2
if "$gpumeter" env --json | grep -q '"device": null'; then
  echo "skipped: no usable CUDA device"
  exit 77
fi
if ! command -v nvidia-smi >/dev/null; then
  echo "skipped: no nvidia-smi to list the device's processes"
  exit 77
fi
work=$(mktemp -d)
export GPU_LOCK="$work/gpu.lock"
pids=()
trap 'for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
on_device() {  # the pids NVML lists as compute processes, one a line
  nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | tr -d ' '
}
alive() {
  local state
  state=$(awk '/^State:/ {print $2}' "/proc/$1/status" 2>/dev/null)
  [[ -n $state && $state != Z ]]
}

# 20 s of warm-up and 20 s of measurement per implementation: a case that outlives the kill.
"$program" --isolate --budget 20000,20000 --out "$work/r" >"$work/out" 2>"$work/err" &
parent=$!
pids+=($parent)
child=""
for _ in $(seq 600); do  # 30 s: the ceilings are measured first
  child=$(pgrep -P "$parent" | head -n1)
  [[ -n $child ]] && on_device | grep -qx "$child" && break
  sleep 0.05
done
[[ -n $child ]] || fail "no process for the case: $(cat "$work/err")"
pids+=($child)
on_device | grep -qx "$child" || fail "the case's process $child never appeared on the device"
on_device | grep -qx "$parent" && fail "the sweep's parent $parent holds a context on the device"
kill -KILL "$parent"
gone=""
for _ in $(seq 200); do  # 10 s
  if ! alive "$child" && ! on_device | grep -qx "$child"; then
    gone=yes
    break
  fi
  sleep 0.05
done
[[ -n $gone ]] || fail "the case's process $child is still on the device 10 s after its parent was killed"
"$program" --budget 1,2 --lock-timeout 0 --out "$work/next" >"$work/next.out" 2>"$work/next.err" ||
  fail "the next run could not measure: $(cat "$work/next.err")"

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "isolate kill: the case's process left the device with its parent"
