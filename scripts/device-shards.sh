#!/usr/bin/env bash
# GPU evidence for sharded sweeps (B10, docs/cluster.md): on one H200, a sweep of 240 cases
# (gpumeter-sweep-cost: a 10 us spin kernel per case, repeat=1..240) is run whole, then as 4
# shards one after another as an array's tasks would run them (--shard K/4), and the 4 records
# are merged. Checked and printed: the merged rows are the whole run's, in its order; each row's
# median lies within the whole run's [p10, p90] of that row (its spread), widened by one
# timestamp tick; the wall time of each shard; and `gpumeter compare` of the two records (every
# row on one board, so every row compared). Then --devices on the one GPU there is: `--devices 0`
# (one process under its own lock, its one part merged) gives the whole run's rows, and
# `--devices 0,0` is refused. Logs, records and the per-row table go under $OUT; a short table
# comes last.
#   OUT=DIR bash scripts/device-shards.sh            on the GPU machine (about 3 minutes)
#   SHARDS_HOST=1 OUT=DIR bash scripts/device-shards.sh
#                                                    the same logic on the host backend, in a
#                                                    build that has gpumeter-host-benchmarks
# The commit every record names (GPUMETER_PROJECT_COMMIT, which the script sets): SHARDS_COMMIT
# when the caller sets it for this run (a copy of the tree without .git), else the checkout's
# `git rev-parse HEAD`; it is printed first and written to environment.txt. A
# GPUMETER_PROJECT_COMMIT already in the environment is never taken: one left from an earlier run
# of a session names code that did not run (the 2026-12-03 evidence recorded 7e9d4b2 so), and one
# that differs from this run's commit is refused (exit 2).
# Exit code: 0 when every shard and the merge ran and every check passed; 1 otherwise; 2 when
# the commit is not known or a preset GPUMETER_PROJECT_COMMIT differs from it.
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-$PWD/device-shards-out}
mkdir -p "$OUT"
JOBS=${JOBS:-$(nproc)}
CASES=${CASES:-240}
SHARDS=${SHARDS:-4}
START=$(date +%s)
if [ -n "${SHARDS_COMMIT:-}" ]; then
  COMMIT=$SHARDS_COMMIT
elif git rev-parse --git-dir >/dev/null 2>&1; then
  COMMIT=$(git rev-parse HEAD)
else
  echo "device-shards: no .git here: set SHARDS_COMMIT to the commit this tree is" >&2
  exit 2
fi
if [ -n "${GPUMETER_PROJECT_COMMIT:-}" ] && [ "$GPUMETER_PROJECT_COMMIT" != "$COMMIT" ]; then
  echo "device-shards: GPUMETER_PROJECT_COMMIT=$GPUMETER_PROJECT_COMMIT is set, but this run's" \
    "commit is $COMMIT (a value left from an earlier run?): unset it, or set SHARDS_COMMIT" >&2
  exit 2
fi
export GPUMETER_PROJECT_COMMIT=$COMMIT
echo "device-shards: the records name commit $COMMIT"
# No scheduler of the machine this runs on may deal these runs.
unset SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_COUNT SLURM_ARRAY_TASK_MIN SLURM_ARRAY_TASK_MAX \
  SLURM_ARRAY_TASK_STEP JOB_COMPLETION_INDEX JOB_COMPLETIONS GPUMETER_STAND_IN_DEVICES

ROWS=()
row() { ROWS+=("$(printf '%-34s %s' "$1" "$2")"); }
ok=1
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

if [ -n "${SHARDS_HOST:-}" ]; then
  # Host mode: the logic of this script on the CPU (host clock), in an existing build.
  BUILD=${BUILD:-build}
  cmake --build "$BUILD" --target gpumeter gpumeter-host-benchmarks -j "$JOBS" >"$OUT/build.log" 2>&1
  rc=$?
  PROGRAM="$BUILD/tests/benchmark/gpumeter-host-benchmarks"
  ARGS=(--filter '^sum' --axis "n=1:$CASES" --timing host --budget 1,2)
else
  BUILD=${BUILD:-build-device-shards}
  GEN=()
  command -v ninja >/dev/null 2>&1 && GEN=(-G Ninja)
  CONFIG=(-S . -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DGPUMETER_CUDA=ON
          -DGPUMETER_TESTS=OFF)
  CMAKE_VERSION=$(cmake --version | head -1 | awk '{print $3}')
  if [ "$(printf '%s\n3.26\n' "$CMAKE_VERSION" | sort -V | head -1)" != 3.26 ]; then
    CONFIG+=(-DCMAKE_CUDA20_STANDARD_COMPILE_OPTION=-std=c++20
             -DCMAKE_CUDA20_EXTENSION_COMPILE_OPTION=-std=c++20)
  fi
  {
    echo "date: $(date -u)"
    echo "commit: $GPUMETER_PROJECT_COMMIT"
    nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
  } >"$OUT/environment.txt" 2>&1
  t=$(now)
  cmake "${CONFIG[@]}" >"$OUT/configure.log" 2>&1 &&
    cmake --build "$BUILD" --target gpumeter gpumeter-sweep-cost -j "$JOBS" >"$OUT/build.log" 2>&1
  rc=$?
  row "configure + build" "exit $rc, $(since "$t") s"
  PROGRAM="$BUILD/bench/cuda/gpumeter-sweep-cost"
  # Short budgets: 240 cases whole and again in shards within the device call.
  ARGS=(--axis "repeat=1:$CASES" --budget 2,5)
fi
GPUMETER="$BUILD/src/cli/gpumeter"
if [ "$rc" != 0 ] || [ ! -x "$PROGRAM" ] || [ ! -x "$GPUMETER" ]; then
  echo "build failed (exit $rc): see $OUT/build.log"
  tail -20 "$OUT/build.log"
  exit 1
fi

# --- the whole sweep, then its shards one after another, merged ----------------------------------
rm -rf "$OUT/whole" "$OUT"/shard-* "$OUT/merged.json"
t=$(now)
"$PROGRAM" "${ARGS[@]}" --shard all --quiet --out "$OUT/whole" >"$OUT/whole.log" 2>&1
rc=$?
row "whole sweep ($CASES cases)" "exit $rc, $(since "$t") s"
[ "$rc" = 0 ] || ok=0
for k in $(seq 0 $((SHARDS - 1))); do
  t=$(now)
  "$PROGRAM" "${ARGS[@]}" --shard "$k/$SHARDS" --quiet --out "$OUT/shard-$k" >"$OUT/shard-$k.log" 2>&1
  rc=$?
  row "shard $k of $SHARDS" "exit $rc, $(since "$t") s"
  [ "$rc" = 0 ] || ok=0
done
whole=$(ls "$OUT"/whole/gpumeter-*.json 2>/dev/null | head -n1)
"$GPUMETER" merge "$OUT"/shard-*/gpumeter-*.json -o "$OUT/merged.json" >"$OUT/merge.log" 2>&1
rc=$?
row "gpumeter merge" "exit $rc"
[ "$rc" = 0 ] || ok=0
if [ -z "$whole" ] || [ ! -s "$OUT/merged.json" ]; then
  echo "no whole record or no merged record: see $OUT/*.log"
  printf '%s\n' "${ROWS[@]}"
  exit 1
fi
"$GPUMETER" report "$OUT/merged.json" >"$OUT/merged-report.md" 2>&1

# --- the checks: the same rows in the same order, each median within the whole run's spread -----
python3 - "$whole" "$OUT/merged.json" "$OUT/rows.tsv" >"$OUT/check.txt" 2>&1 <<'EOF'
import json, sys

whole, merged = (json.load(open(p)) for p in sys.argv[1:3])
def key(r):
    return (r["case"], r["implementation"], tuple(sorted(r["params"].items())))
w = [key(r) for r in whole["results"]]
m = [key(r) for r in merged["results"]]
print(f"rows: whole {len(w)}, merged {len(m)}; same rows: {sorted(w) == sorted(m)}; "
      f"same order: {w == m}")
boards = sorted({r["board"]["uuid"] or "" for r in merged["results"]} |
                {r["board"]["uuid"] or "" for r in whole["results"]})
print(f"boards: {len(boards)} ({', '.join(boards)})")
by_key = {key(r): r for r in whole["results"]}
inside = 0
worst = 0.0
lines = ["row\twhole median (us)\twhole p10\twhole p90\tmerged median (us)\tchange\twithin"]
for r in merged["results"]:
    s = by_key.get(key(r))
    if s is None:
        continue
    stat = "device_busy_ms"
    a, b = s["summary"][stat], r["summary"][stat]
    tick_ms = max(s["timestamp_tick_ns"], r["timestamp_tick_ns"]) / 1e6
    within = a["p10"] - tick_ms <= b["median"] <= a["p90"] + tick_ms
    inside += within
    change = b["median"] / a["median"] - 1
    worst = max(worst, abs(change))
    label = r["case"] + " " + ",".join(f"{k}={v}" for k, v in sorted(r["params"].items()))
    lines.append(f"{label}\t{a['median']*1e3:.3f}\t{a['p10']*1e3:.3f}\t{a['p90']*1e3:.3f}\t"
                 f"{b['median']*1e3:.3f}\t{change*100:+.2f}%\t{within}")
open(sys.argv[3], "w").write("\n".join(lines) + "\n")
print(f"within the whole run's spread: {inside} of {len(m)} rows; largest change of a median: "
      f"{worst*100:.2f}%")
ok = sorted(w) == sorted(m) and w == m and inside == len(m) and len(m) > 0
print("check: " + ("passed" if ok else "FAILED"))
sys.exit(0 if ok else 1)
EOF
rc=$?
[ "$rc" = 0 ] || ok=0
while IFS= read -r line; do row "" "$line"; done <"$OUT/check.txt"
"$GPUMETER" compare "$whole" "$OUT/merged.json" >"$OUT/compare.md" 2>&1
rc=$?
row "gpumeter compare whole merged" "exit $rc"
[ "$rc" = 0 ] || ok=0
summary=$(grep -m1 '^Geometric mean' "$OUT/compare.md")
[ -n "$summary" ] && row "" "$summary"

# --- --devices on the one GPU: one process, its part merged; a repeated id refused --------------
if [ -n "${SHARDS_HOST:-}" ]; then export GPUMETER_STAND_IN_DEVICES=1; fi
rm -rf "$OUT/devices"
t=$(now)
"$PROGRAM" "${ARGS[@]}" --devices 0 --out "$OUT/devices" >"$OUT/devices.log" 2>&1
rc=$?
devices=$(ls "$OUT"/devices/gpumeter-*.json 2>/dev/null | head -n1)
same=no
if [ -n "$devices" ]; then
  python3 - "$whole" "$devices" <<'EOF2' && same=yes
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda r: (r["case"], r["implementation"], sorted(r["params"].items()))
sys.exit(0 if [key(r) for r in a["results"]] == [key(r) for r in b["results"]] else 1)
EOF2
fi
row "--devices 0" "exit $rc, $(since "$t") s, the whole run's rows in its order: $same"
[ "$rc" = 0 ] && [ "$same" = yes ] || ok=0
"$PROGRAM" "${ARGS[@]}" --devices 0,0 --out "$OUT/devices-bad" >"$OUT/devices-bad.log" 2>&1
rc=$?
row "--devices 0,0" "exit $rc (2 expected): $(head -c 80 "$OUT/devices-bad.log")"
[ "$rc" = 2 ] || ok=0

row "total" "$(($(date +%s) - START)) s"
echo
echo "device-shards: $([ "$ok" = 1 ] && echo passed || echo FAILED) (logs, records, rows.tsv in $OUT)"
printf '%s\n' "${ROWS[@]}"
[ "$ok" = 1 ]
