#!/usr/bin/env bash
# bench/host_sweep's --shard (B10): its sizes dealt as a benchmark program's cases are. Checked:
# the shards of one list hold each size exactly once between them, each row names its shard, a
# shard dealt no size writes an empty list and exits 0, and an empty or malformed --shard is a
# usage error (exit 2) that writes nothing. Small sizes and no runtime part: seconds.
#   test_host_sweep_shards.sh HOST_SWEEP
set -u
sweep=$1
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
no_scheduler_index  # no scheduler of the machine this runs on may deal these sizes
run() { run_program "$sweep" "$@"; }  # NAME ARGS...: the sweep
# The sizes a sweep's JSON holds, one a line, sorted, each once (a size has a row per part).
sizes_of() {
  python3 -c 'import json, sys
print("\n".join(str(n) for n in sorted({r["cases"] for r in json.load(open(sys.argv[1]))})))' "$1"
}
sizes=10,20,30,40,50

# --- 3 shards: between them, each size once ------------------------------------------------------
: >"$work/dealt"
for k in 0 1 2; do
  run "s$k" "$work/s$k" --sizes "$sizes" --skip-runtime --shard "$k/3"
  [[ $rc -eq 0 ]] || fail "shard $k: exit code $rc: $(cat "$work/s$k.err")"
  grep -qF "shard $k of 3 (--shard $k/3):" "$work/s$k.err" ||
    fail "shard $k: does not say which shard: $(cat "$work/s$k.err")"
  sizes_of "$work/s$k/host_sweep.json" >>"$work/dealt" || fail "shard $k: no JSON"
  [[ -s "$work/s$k/host_sweep.csv" ]] || fail "shard $k: no CSV"
  # Every row of the shard names it, in the JSON and the CSV.
  python3 -c 'import json, sys
rows = json.load(open(sys.argv[1]))
assert rows and all(r["shard"] == sys.argv[2] for r in rows), rows' \
    "$work/s$k/host_sweep.json" "shard $k of 3 (--shard $k/3)" ||
    fail "shard $k: a row does not name its shard"
  [[ $(tail -n +2 "$work/s$k/host_sweep.csv" | grep -cvF ",shard $k of 3 (--shard $k/3)") -eq 0 ]] ||
    fail "shard $k: a CSV row does not name its shard"
done
[[ $(sort -n "$work/dealt" | tr '\n' ,) == "$sizes," ]] ||
  fail "the 3 shards do not hold each size once: $(sort -n "$work/dealt" | tr '\n' ' ')"
# The whole list, for the same sizes.
run whole "$work/whole" --sizes "$sizes" --skip-runtime --shard all
[[ $rc -eq 0 ]] || fail "--shard all: exit code $rc: $(cat "$work/whole.err")"
[[ $(sizes_of "$work/whole/host_sweep.json" | tr '\n' ,) == "$sizes," ]] ||
  fail "--shard all: not every size"

# --- more shards than sizes: an empty shard writes an empty list, exit 0 -------------------------
run empty "$work/empty" --sizes 10,20,30 --skip-runtime --shard 4/5
[[ $rc -eq 0 ]] || fail "empty shard: exit code $rc: $(cat "$work/empty.err")"
grep -qF "shard 4 of 5 (--shard 4/5): 0 of the 3 sizes" "$work/empty.err" ||
  fail "empty shard: does not say it holds no size: $(cat "$work/empty.err")"
[[ $(tr -d ' \n' <"$work/empty/host_sweep.json") == "[]" ]] ||
  fail "empty shard: not an empty list: $(cat "$work/empty/host_sweep.json")"

# --- refusals: exit 2, nothing written -----------------------------------------------------------
run empty_value "$work/bad" --sizes 10 --skip-runtime --shard ''
[[ $rc -eq 2 ]] || fail "--shard '': exit code $rc, expected 2"
grep -qF -- "--shard: is empty" "$work/empty_value.err" ||
  fail "--shard '': does not say it is empty: $(cat "$work/empty_value.err")"
for bad in 3/3 1/0 x; do
  run bad "$work/bad" --sizes 10 --skip-runtime --shard "$bad"
  [[ $rc -eq 2 ]] || fail "--shard $bad: exit code $rc, expected 2"
done
[[ -e "$work/bad" ]] && fail "a refused --shard wrote files: $(ls -R "$work/bad")"

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "host sweep shards: every check passed"
