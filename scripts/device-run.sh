#!/usr/bin/env bash
# Issue 18's evidence on the GPU machine in one go (`gpumeter run`): builds the command, the
# collector and the test programs; runs the CPU checks (tests/cli/test_run.sh) and the device's
# known answers (tests/gpu/test_run_gpu.sh); then a PyTorch training step through `gpumeter run`
# twice as it is and once with a slower optimizer, `gpumeter compare` of them, Nsight Systems'
# projected span beside it where nsys is installed, and gpumeter.measure of the same parts (the
# Python module installed with that machine's Python). Records, reports and logs under $OUT; a
# summary table last.
#   OUT=... bash scripts/device-run.sh [--skip-python]
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/device-run-out}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
B=${BUILD:-build-run}
STEPS=()
step() {  # name rc seconds
  STEPS+=("$(printf '%-26s %4s %5ss' "$1" "$2" "$3")")
}
timed() {  # name log cmd...: runs cmd, output to log
  local name=$1 log=$2
  shift 2
  local t0=$(date +%s)
  "$@" >"$log" 2>&1
  local rc=$?
  step "$name" "$rc" "$(( $(date +%s) - t0 ))"
  return $rc
}
GEN=()
command -v ninja >/dev/null 2>&1 && GEN=(-G Ninja)
timed configure "$OUT/configure.log" cmake -S . -B "$B" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DGPUMETER_CUDA=ON -DGPUMETER_PYTHON=OFF -DGPUMETER_EXAMPLES=OFF
timed build "$OUT/build.log" cmake --build "$B" -j 16 --target gpumeter gpumeter_collector gpumeter_cupti_guard \
  gpumeter_nvtx_program gpumeter_nvtx_gpu_program
G=$B/src/cli/gpumeter
timed cli-run-checks "$OUT/cli-run.log" bash tests/cli/test_run.sh "$G" \
  "$B/tests/cli/gpumeter_nvtx_program" "$B/lib/libgpumeter_collector.so"
timed gpu-known-answers "$OUT/gpu-run.log" bash tests/gpu/test_run_gpu.sh "$G" \
  "$B/tests/gpu/gpumeter_nvtx_gpu_program" "$OUT/known"

# The training step: two records as it is, one with the slower optimizer, each of three runs (a
# comparison's units are runs).
T=bench/program/train_step.py
for name in base again; do
  timed "train-$name" "$OUT/train-$name.log" "$G" run --repeat 3 --out "$OUT/train-$name" \
    --label train -- "$PY" "$T"
done
timed train-slow "$OUT/train-slow.log" "$G" run --repeat 3 --out "$OUT/train-slow" --label train \
  -- "$PY" "$T" --slow-optimizer
timed train-once "$OUT/train-once.log" "$G" run --out "$OUT/train-once" --label train \
  -- "$PY" "$T"
first() { ls "$1"/*.json 2>/dev/null | head -n1; }
timed compare-again "$OUT/compare-again.md" "$G" compare "$(first "$OUT/train-base")" \
  "$(first "$OUT/train-again")"
timed compare-slow "$OUT/compare-slow.md" "$G" compare "$(first "$OUT/train-base")" \
  "$(first "$OUT/train-slow")"
timed compare-once "$OUT/compare-once.md" "$G" compare "$(first "$OUT/train-once")" \
  "$(first "$OUT/train-slow")"
timed engine-own "$OUT/train-own.log" "$G" run --out "$OUT/train-own" --label train \
  --engine-threads own -- "$PY" "$T" --steps 5

# A profiler in the program: the PyTorch profiler takes CUPTI's activity buffers.
cat >/tmp/with_profiler.py <<'PY'
import torch
x = torch.randn(1024, 1024, device="cuda")
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]):
    for _ in range(3):
        torch.cuda.nvtx.range_push("mm")
        y = x @ x
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
PY
timed profiler-refused "$OUT/profiler.log" "$G" run --out "$OUT/profiler" -- "$PY" /tmp/with_profiler.py

if command -v nsys >/dev/null 2>&1; then
  timed nsys-profile "$OUT/nsys.log" nsys profile -t cuda,nvtx -o /tmp/train-nsys -f true \
    "$PY" "$T"
  timed nsys-stats "$OUT/nsys-nvtx-gpu-proj.txt" nsys stats -r nvtx_gpu_proj_sum \
    /tmp/train-nsys.nsys-rep
else
  echo "nsys is not on this machine" >"$OUT/nsys.log"
  step nsys 'n/a' 0
fi

if [ "${1:-}" != "--skip-python" ]; then
  SITE=/tmp/gpumeter-site
  rm -rf "$SITE"
  timed pip-install "$OUT/pip-install.log" "$PY" -m pip install --no-build-isolation --no-deps \
    --target "$SITE" .
  PYTHONPATH="$SITE" timed measure-parts "$OUT/measure.log" "$PY" "$T" --measure "$OUT/measure.json"
  # The same known answers through `python -m gpumeter run`: the collector and guard installed in
  # the package, found beside the module.
  printf '#!/bin/sh\nPYTHONPATH=%s exec %s -m gpumeter "$@"\n' "$SITE" "$PY" >/tmp/pygpumeter
  chmod +x /tmp/pygpumeter
  timed python-known-answers "$OUT/gpu-run-python.log" bash tests/gpu/test_run_gpu.sh \
    /tmp/pygpumeter "$B/tests/gpu/gpumeter_nvtx_gpu_program" "$OUT/known-python"
fi

{
  echo "== known answers"; grep -E "busy|outside|none:|open:|all known" "$OUT/gpu-run.log"
  echo "== known answers, python -m gpumeter run"
  grep -E "busy|all known|FAIL" "$OUT/gpu-run-python.log" 2>/dev/null
  for name in base again slow; do
    echo "== train-$name"; sed -n '/^| case/,/^$/p' "$OUT/train-$name.log" | head -12
  done
  echo "== compare base/again (A/A)"; grep -iE "optimizer|forward|backward|step" "$OUT/compare-again.md" | head -12
  echo "== compare base/slow"; grep -iE "optimizer|forward|backward|step" "$OUT/compare-slow.md" | head -12
  echo "== compare once/slow (one run: refused)"; grep -iE "optimizer" "$OUT/compare-once.md" | head -3
  echo "== profiler"; tail -2 "$OUT/profiler.log"
  echo "== measure"; grep measure "$OUT/measure.log" 2>/dev/null
  echo "== nsys"; grep -E "forward|backward|optimizer|step" "$OUT/nsys-nvtx-gpu-proj.txt" 2>/dev/null | head -8
  echo "== steps"; printf '%s\n' "${STEPS[@]}"
} | tee "$OUT/summary.txt"
# The device tool returns a few files: everything else travels in one archive.
tar -czf /tmp/device-run.tgz -C "$OUT" --exclude='*.tgz' . && mv /tmp/device-run.tgz "$OUT/all.tgz"
