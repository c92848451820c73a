#!/usr/bin/env bash
# Issue 50 on the GPU machine, in one call: the verdict from where no candidate code runs.
#   - this tree's Python module installed (and, with BASE_SRC, the tree before issue 50 beside it,
#     in a site of its own: "today's" verdicts of the new exploits on the same card);
#   - PARTS has probe: `gpumeter evaluate` of the issue's new exploits with this tree at N (1024);
#   - pytest: the Python GPU tests of the exploit suite, the capture and the channel;
#   - exploits: `gpumeter evaluate` at 4096^3 over every GPU exploit and honest candidate with
#     this tree, and with BASE_SRC the same candidates with the tree before (today's verdicts of
#     the new exploits, honest readings and seconds per candidate side by side, one card);
#   - avsa: A against A through evaluate (AVSA copies of the reference as candidates), both trees;
#   - cpp: the default configuration built with this machine's g++ (-Werror) beside avsa, then
#     its ctest, the GPU tests included.
#   - warm: issue 54's batch of WARM_N (100) with the warm start (bench/python/evaluate_warm.py),
#     then that batch killed at KILL_AT (50) and resumed, and in 4 shards merged
#     (bench/python/evaluate_resume.py), each against the whole batch's verdicts.
# Each call must end within the device tool's 10 minutes: pytest,exploits in one, avsa,cpp in the
# next (the machine still warm: the installed modules are reused).
# Everything is written under $WORK; $OUT gets the summary, the JSON lines, the Python log and a
# tarball of every log (the device tool brings back 8 files); a table last.
#   OUT=... BASE_SRC=.carry/base PARTS=pytest,exploits bash scripts/device-verdict-outside.sh
set -u
cd "$(dirname "$0")/.." || exit 1
FINAL=${OUT:-$PWD/device-verdict-out}
mkdir -p "$FINAL"
FINAL=$(cd "$FINAL" && pwd)
OUT=${WORK:-/tmp/device-verdict-work}
mkdir -p "$OUT"
touch "$OUT/.start"  # what this call wrote is newer
PY=${PYTHON:-python3}
PARTS=${PARTS:-probe}
N=${N:-1024}
AVSA=${AVSA:-24}
SITE=/tmp/gpumeter-site-new
BASE_SITE=/tmp/gpumeter-site-base
start=$(date +%s)
DEADLINE=${DEADLINE:-$(( start + 570 ))}  # every step ends before the tool's 10 minutes do
steps=()
STEP_WIDTH=22
source scripts/device-step.sh  # step NAME TIMEOUT CMD...
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,temperature.gpu \
  --format=csv,noheader >"$OUT/environment.txt" 2>&1
# Both trees' modules at once (16 cores), each its own log and exit code.
t0=$(date +%s)
if [[ ! -f $SITE/gpumeter/_evaluate.py ]]; then
  (CMAKE_BUILD_PARALLEL_LEVEL=8 timeout 300 "$PY" -m pip install --no-build-isolation --no-deps \
     --target "$SITE" . >"$OUT/pip-new.log" 2>&1; echo $? >"$OUT/pip-new.rc") &
fi
if [[ -n ${BASE_SRC:-} && ! -f $BASE_SITE/gpumeter/_evaluate.py ]]; then
  (CMAKE_BUILD_PARALLEL_LEVEL=8 timeout 300 "$PY" -m pip install --no-build-isolation --no-deps \
     --target "$BASE_SITE" "$BASE_SRC" >"$OUT/pip-base.log" 2>&1; echo $? >"$OUT/pip-base.rc") &
fi
wait
steps+=("$(printf '%-22s rc %-3s %4ss' pip "$(cat "$OUT"/pip-*.rc 2>/dev/null | tr '\n' ,)" \
  "$(( $(date +%s) - t0 ))")")
export GPUMETER_EXPLOIT_N=$N
common=(--timing cupti --rtol 2e-2 --atol 1e-1 --timeout 180)
new_exploits=(honest=exploits.honest:gpu loosened=exploits.loosened_check:gpu
              elsewhere=exploits.check_elsewhere:gpu bent=exploits.bent_check_reference:gpu)
# The issue's other exploits that have a GPU variant (the rest are host-only: tests/python).
for extra in dispatch_allclose dispatch_gelu forged_report; do
  grep -q "^def gpu" "tests/python/exploits/$extra.py" 2>/dev/null &&
    new_exploits+=("$extra=exploits.$extra:gpu")
done
evaluate() {  # name site jsonl candidates...
  local name=$1 site=$2 jsonl=$3
  shift 3
  rm -f "$jsonl"  # a journal holding lines is refused without --resume (a warm machine's last call)
  step "$name" 540 bash -c "cd tests/python && PYTHONPATH=$site:$PWD/tests/python $PY -m gpumeter \
    evaluate ${common[*]} --out $OUT/records-$name --jsonl $jsonl \
    --reference exploits.problem:gpu_reference --inputs exploits.problem:gpu_inputs $*"
}
if [[ ,$PARTS, == *,cpp,* ]]; then
  # The default configuration with this machine's g++ and warnings as errors, built beside the
  # Python parts below (8 of the 16 cores), its GPU tests after them.
  (cmake -S . -B build-v50 -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUMETER_WERROR=ON \
     >"$OUT/configure.log" 2>&1 && cmake --build build-v50 -j 8 >"$OUT/build.log" 2>&1
   echo $? >"$OUT/build.rc") &
fi
if [[ ,$PARTS, == *,probe,* ]]; then
  evaluate new-exploits "$SITE" "$OUT/new-exploits.jsonl" "${new_exploits[@]}"
fi
if [[ ,$PARTS, == *,pytest,* ]]; then
  step python-gpu 300 env PYTHONPATH="$SITE:$PWD/tests/python" "$PY" -m pytest -q -rs \
    -p no:cacheprovider tests/python/test_gpu.py tests/python/test_exploits.py \
    tests/python/test_watch.py tests/python/test_channel.py -k "gpu or watch or channel"
fi
old_suite=(honest=exploits.honest:gpu fused=exploits.honest:gpu_fused
           memo_first_call=exploits.memo_first_call:gpu memo_pointer=exploits.memo_pointer:gpu
           memo_content=exploits.memo_content:gpu superbatch=exploits.superbatch:gpu
           side_stream=exploits.side_stream:gpu threads=exploits.threads:gpu
           persist_l2=exploits.persist_l2:gpu cupti_off=exploits.cupti_off:gpu
           cupti_blink=exploits.cupti_blink:gpu patch_verify=exploits.patch_verify:gpu
           patch_allclose=exploits.patch_allclose:gpu patch_timer=exploits.patch_timer:gpu
           partial=exploits.partial:gpu lazy_result=exploits.lazy_result:gpu
           slow_reference=exploits.slow_reference:gpu helper_process=exploits.helper_process:gpu)
if [[ ,$PARTS, == *,exploits,* ]]; then
  # The whole suite at 4096^3 with this tree; with the tree before it, the same suite and the
  # issue's new exploits (what today's code makes of them), on the same card.
  export GPUMETER_EXPLOIT_N=4096
  evaluate all-4096 "$SITE" "$OUT/all-4096.jsonl" "${old_suite[@]}" "${new_exploits[@]:1}"
  if [[ -n ${BASE_SRC:-} ]]; then
    evaluate all-4096-base "$BASE_SITE" "$OUT/all-4096-base.jsonl" "${old_suite[@]}" \
      "${new_exploits[@]:1}"
  fi
fi
if [[ ,$PARTS, == *,avsa,* ]]; then
  export GPUMETER_EXPLOIT_N=4096
  copies=()
  for k in $(seq 1 "$AVSA"); do copies+=("copy$k=exploits.problem:gpu_reference"); done
  evaluate avsa "$SITE" "$OUT/avsa.jsonl" "${copies[@]}"
  if [[ -n ${BASE_SRC:-} ]]; then
    evaluate avsa-base "$BASE_SITE" "$OUT/avsa-base.jsonl" "${copies[@]}"
  fi
fi
if [[ ,$PARTS, == *,warm,* ]]; then
  # Issue 54: one batch of WARM_N candidates (the exploits, honest, faster and wrong ones) with
  # the warm start; then, with the time left, the same batch killed at its KILL_AT-th line and
  # resumed, and dealt to 4 shards and merged, each against the whole run's verdicts.
  export GPUMETER_EXPLOIT_N=${WARM_EXPLOIT_N:-1024}
  step warm 300 env PYTHONPATH="$SITE:$PWD/tests/python" "$PY" bench/python/evaluate_warm.py \
    --n "${WARM_N:-100}" --order "${WARM_ORDER:-warm}" --out "$OUT/warm"
  [[ -f $OUT/warm/warm.jsonl ]] &&
    step resume 300 env PYTHONPATH="$SITE:$PWD/tests/python" "$PY" bench/python/evaluate_resume.py \
      --n "${WARM_N:-100}" --kill-at "${KILL_AT:-50}" --whole "$OUT/warm/warm.jsonl" \
      --out "$OUT/resume"
fi
if [[ ,$PARTS, == *,cpp,* ]]; then
  wait
  steps+=("$(printf '%-22s rc %-3s' build "$(cat "$OUT/build.rc" 2>/dev/null)")")
  grep -c "warning:" "$OUT/build.log" | sed 's/^/build warnings: /' >"$OUT/warnings.txt"
  step ctest 300 ctest --test-dir build-v50 -j 8 --output-on-failure
fi
{
  echo "== $(cat "$OUT/environment.txt")"
  printf '%s\n' "${steps[@]}"
  cat "$OUT/warnings.txt" 2>/dev/null
  grep -sE "tests passed|tests failed" "$OUT/ctest.log" | tail -2
  grep -sE "^[[:space:]]*[0-9]+ - .*(Failed|Timeout)" "$OUT/ctest.log" | head
  grep -sE "passed|failed" "$OUT/python-gpu.log" | tail -1
  grep -sE "^(FAILED|ERROR)" "$OUT/python-gpu.log" | cut -c1-300
  cat "$OUT/warm.log" "$OUT/resume.log" 2>/dev/null
  PYTHONPATH="$SITE" "$PY" - "$OUT" <<'PYEOF'
import json, os, statistics, sys
out = sys.argv[1]
def median_us(line):
    """The candidate's own median device time, from its record (this tree's reader)."""
    try:
        import gpumeter
        for r in gpumeter.read_record(line["record"]).results:
            if r.name == line["candidate"]:
                return r.summary.device_busy.median_ns / 1e3
    except Exception:  # noqa: BLE001  (a line with no record, or an older record)
        return None
    return None


for name in ("new-exploits", "all-4096-base", "all-4096", "avsa", "avsa-base"):
    path = os.path.join(out, name + ".jsonl")
    if not os.path.exists(path):
        continue
    lines = [json.loads(x) for x in open(path)]
    print(f"== {name}")
    if name.startswith("avsa"):
        claims = [x for x in lines if x["verdict"] in ("faster", "slower")]
        secs = [x.get("seconds") or 0 for x in lines]
        print(f"{len(lines)} candidates: {len(claims)} claim a difference; verdicts "
              f"{sorted(set(x['verdict'] for x in lines))}; seconds median "
              f"{statistics.median(secs):.2f} (min {min(secs):.2f}, max {max(secs):.2f})")
        for x in claims:
            print(f"  {x['candidate']}: {x['verdict']} {x.get('speedup')} {x.get('interval')}")
        continue
    for x in lines:
        s, iv = x.get("speedup"), x.get("interval")
        shown = "-" if s is None else f"{s:.3g}x" + (f" ({iv[0]:.3g}x to {iv[1]:.3g}x)" if iv else "")
        own = median_us(x) if x.get("record") else None
        shown += "" if own is None else f" own {own:.1f}us"
        alone = x.get("reference_alone_ns")
        shown += "" if alone is None else f" ref {alone/1e3:.1f}/{x['reference_beside_ns']/1e3:.1f}us"
        why = "" if x["verdict"] in ("faster", "slower", "no difference") else \
            " | " + str(x.get("why"))[:150]
        print(f"{x['candidate']:<16} {x['verdict']:<13} {str(x['correct'])[0]} {shown} "
              f"{x.get('seconds', '-')}s{why}")
PYEOF
} >"$OUT/summary.txt" 2>&1
find "$OUT" -maxdepth 1 -newer "$OUT/.start" \( -name '*.jsonl' -o -name python-gpu.log -o -name ctest.log \) \
  -exec cp {} "$FINAL"/ \;
for f in warm/summary.json resume/summary.json; do
  [[ -f $OUT/$f ]] && cp "$OUT/$f" "$FINAL/${f%%/*}-summary.json"
done
cp "$OUT/summary.txt" "$FINAL"/
tar -czf "$FINAL/logs.tar.gz" -C "$OUT" --exclude='records-*' --exclude='runs-*' . 2>/dev/null
cat "$OUT/summary.txt"
echo "== total $(( $(date +%s) - start )) s"
