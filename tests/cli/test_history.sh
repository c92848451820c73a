#!/usr/bin/env bash
# gpumeter history (B14) on records of a known history (make_history_records.cpp): what it finds,
# what it leaves out and says, the site's files and JSON, the same bytes twice, and every refusal.
# Then records a benchmark program of host work (host_benchmarks.cpp) wrote: two shards, their
# merge and the journals of a killed run, as a cluster's results folder holds them. The pages in
# a real browser: tests/browser/history_browser.py.
#   test_history.sh GPUMETER MAKE_HISTORY_RECORDS BENCHMARK_PROGRAM FAKE_NVML
set -u
gpumeter=$1
make_records=$2
bench=$3
fake_nvml=$4
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

"$make_records" "$work/records" >"$work/commits.txt" || { echo "FAIL: make_history_records" >&2; exit 1; }

# --- the whole history ------------------------------------------------------------------------
run all history "$work/records" --out "$work/site"
[[ $rc -eq 0 ]] || fail "history: exit $rc: $(cat "$work/all.err")"
grep -qF "8 records over 7 commits, 3 series, 2 regressions, 1 improvements, 2 left out" \
  "$work/all.out" || fail "history: unexpected summary: $(cat "$work/all.out")"
grep -qF "left out records/junk.json" "$work/all.err" || fail "junk.json not named on stderr"
# The site names files relative to the folder given, under its name: no path of this machine.
grep -rqF "$work" "$work/site" && fail "site: holds the machine path $work"
grep -qF "names no project commit" "$work/all.err" || fail "the record without a commit not named"
for f in index.html regressions.html regressions.json style.css; do
  [[ -s $work/site/$f ]] || fail "site: no $f"
done
pages=$(find "$work/site" -name 'series-*.html' | wc -l)
[[ $pages -eq 3 ]] || fail "site: $pages series pages, expected 3"
# Page names hold no record text.
if find "$work/site" -type f | sed "s|$work/site/||" | grep -v '^[a-z0-9.-]*$'; then
  fail "site: a file name holds more than [a-z0-9.-]"
fi
# Nothing of a record becomes a tag: no script element, no image, no frame.
if grep -il '<script\|<img\|<iframe' "$work/site"/*.html; then
  fail "site: a page holds a script, image or frame tag"
fi
grep -qF '&lt;script&gt;document.documentElement' "$work/site/index.html" ||
  fail "index: the hostile case is not shown as text"

# The regression list for CI: what moved, between which commits.
python3 - "$work/site/regressions.json" <<'EOF' || fail "regressions.json: $(cat "$work/json.err" 2>/dev/null)"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["schema"] == "gpumeter.history.regressions" and j["schema_version"] == 1, j["schema"]
r = j["regressions"]
assert [(x["implementation"], x["from_commit"][:1], x["to_commit"][:1]) for x in r] == [
    ("kernel", "2", "3"), ("<img src=x onerror=\"document.documentElement.setAttribute('data-pwned','impl')\">", "3", "4")], r
assert 0.09 < r[0]["estimate"] < 0.11 and r[0]["low"] > 0, r[0]
assert abs(r[1]["time_ratio"] - 2) < 0.01, r[1]
i = j["improvements"]
assert [(x["implementation"], x["from_commit"][:1], x["to_commit"][:1]) for x in i] == [("kernel", "4", "5")], i
assert len(j["left_out"]) == 2, j["left_out"]
assert j["records"] == 8 and len(j["commits"]) == 7, (j["records"], j["commits"])
EOF

# The series page says where the line breaks and why.
kernel_page=$(grep -l '<h1>copy / kernel' "$work/site"/series-*.html)
grep -qF "the line breaks: board changed from NVIDIA H200 (cuda:0, GPU-A) to" "$kernel_page" ||
  fail "kernel page: the board change is not said"
grep -qF "timing method changed from kernel-records to device-events" "$kernel_page" ||
  fail "kernel page: the timing method change is not said"

# --- the same records give the same site ------------------------------------------------------
run again history "$work/records" --out "$work/site2"
diff -r "$work/site" "$work/site2" >/dev/null || fail "the same records gave another site"

# --- a site inside a folder searched is not read as records -----------------------------------
run inside history "$work/records" --out "$work/records/site"
run inside2 history "$work/records" --out "$work/records/site-b"
grep -qF "2 left out" "$work/inside2.out" || fail "a site under the folder was read: $(cat "$work/inside2.out")"
rm -rf "$work/records/site" "$work/records/site-b"

# --- a commit order: its order wins, other commits are left out -------------------------------
head -n 3 "$work/commits.txt" >"$work/first3.txt"
run order history "$work/records" --commits "$work/first3.txt" --out "$work/site3"
[[ $rc -eq 0 ]] || fail "--commits: exit $rc"
grep -qF "4 records over 3 commits" "$work/order.out" || fail "--commits: $(cat "$work/order.out")"
grep -qF "is not in the commit order given" "$work/order.err" || fail "--commits: no reason given"

# --- a record given by name; refusals ---------------------------------------------------------
one=$(find "$work/records/c1" -name '*.json' | head -n 1)
run file history "$one" --out "$work/site4"
[[ $rc -eq 0 ]] && grep -qF "1 records over 1 commits" "$work/file.out" || fail "a record file: $(cat "$work/file.out" "$work/file.err")"
run slash history "$one" --out "$work/site8/"
[[ $rc -eq 0 && -f $work/site8/index.html ]] || fail "--out with a trailing slash: exit $rc: $(cat "$work/slash.err")"
run exists history "$work/records" --out "$work/site"
[[ $rc -eq 2 ]] || fail "an existing site: exit $rc, expected 2"
grep -qF "exists and is not an empty folder" "$work/exists.err" || fail "an existing site: $(cat "$work/exists.err")"
diff -r "$work/site" "$work/site2" >/dev/null || fail "an existing site was changed"
mkdir "$work/empty" "$work/emptysite"
run empty history "$work/empty" --out "$work/emptysite"
[[ $rc -eq 2 ]] && grep -qF "no record to draw" "$work/empty.err" || fail "no record: exit $rc: $(cat "$work/empty.err")"
[[ -z $(ls -A "$work/emptysite") ]] || fail "no record: the empty --out was written"
run missing history "$work/nowhere" --out "$work/site5"
[[ $rc -eq 2 ]] && grep -qF "nowhere: not a folder" "$work/missing.err" || fail "a missing folder: exit $rc: $(cat "$work/missing.err")"
printf 'not-a-commit\n' >"$work/wrong.txt"
run wrong history "$work/records" --commits "$work/wrong.txt" --out "$work/site6"
[[ $rc -eq 2 ]] && grep -qF "not in the commit order given" "$work/wrong.err" || fail "no commit in the order: exit $rc"
run nofile history "$work/records" --commits "$work/none.txt" --out "$work/site7"
[[ $rc -eq 2 ]] && grep -qF "cannot read the commit order" "$work/nofile.err" || fail "a missing --commits: exit $rc"
run usage history "$work/records"
[[ $rc -eq 2 ]] && grep -qF -- "--out is required" "$work/usage.err" || fail "no --out: exit $rc: $(cat "$work/usage.err")"
run help history --help
[[ $rc -eq 0 ]] && grep -qF "static site" "$work/help.out" || fail "--help: exit $rc"
[[ $(find "$work" -maxdepth 1 -name '*.partial-*' | wc -l) -eq 0 ]] || fail "a staging folder was left behind"

# --- shards, their merge and a killed run's journals, as a results folder holds them -----------
# The shards and their merge hold the same measurements: each row is one point, the merge named
# on it. A journal cut inside its last line is read (that line left out) as a partial record; one
# cut inside its first line is no record: listed as left out, and the site is still built.
(
  export GPU_LOCK="$work/gpu.lock" GPUMETER_NVML_LIBRARY="$fake_nvml" CUDA_VISIBLE_DEVICES=""
  export GPUMETER_FAKE_NVML_PROCESSES=""
  unset GPUMETER_FAKE_NVML_FREE_BYTES GPUMETER_LOCK_HELD GPUMETER_LOCK_NOTE GPUMETER_STAND_IN_DEVICES \
    SLURM_ARRAY_TASK_ID SLURM_ARRAY_TASK_COUNT JOB_COMPLETION_INDEX JOB_COMPLETIONS
  ulimit -c 0
  quick=(--budget 1,2 --timing host --quiet)
  for k in 0 1; do
    GPUMETER_PROJECT_COMMIT=aaaa1111 "$bench" --filter '^sum' --axis n=1:2 "${quick[@]}" \
      --shard "$k/2" --out "$work/run/shard$k" || exit 1
  done
  # 3 cases: two measured and journaled, then the crash (abort) kills the run.
  GPUMETER_PROJECT_COMMIT=bbbb2222 "$bench" --filter 'n=1000|n=4000|crash' "${quick[@]}" \
    --out "$work/killed" 2>/dev/null
  exit 0
) >"$work/run.err" 2>&1 || fail "shards: a benchmark run failed: $(cat "$work/run.err")"
run shard_merge merge "$work"/run/shard?/gpumeter-*.json -o "$work/run/merged.json"
[[ $rc -eq 0 ]] || fail "shards: merge: exit $rc: $(cat "$work/shard_merge.err")"
journal=$(ls "$work"/killed/*.partial.jsonl 2>/dev/null | head -n 1)
if [[ -z $journal || $(wc -l <"$journal") -ne 3 ]]; then
  fail "killed: not a journal of its first line and two cases: $(ls "$work/killed")"
else
  head -c $(($(stat -c %s "$journal") - 100)) "$journal" >"$work/run/torn.partial.jsonl"
  head -c 50 "$journal" >"$work/run/begun.partial.jsonl"
fi
run shards history "$work/run" --out "$work/site-shards"
[[ $rc -eq 0 ]] || fail "shards: history: exit $rc: $(cat "$work/shards.err")"
grep -qF "4 records over 2 commits, 6 series, 0 regressions, 0 improvements, 1 left out" \
  "$work/shards.out" || fail "shards: unexpected summary: $(cat "$work/shards.out")"
grep -qF "left out run/begun.partial.jsonl: a run's journal without its first line" \
  "$work/shards.err" || fail "shards: the journal cut in its first line is not listed: $(cat "$work/shards.err")"
for row in n-1-loop n-1-accumulate n-2-loop n-2-accumulate; do
  page=$(ls "$work"/site-shards/series-sum-kind-plain-$row-*.html 2>/dev/null | head -n 1)
  [[ -n $page ]] || { fail "shards: no page of sum $row"; continue; }
  points=$(grep -o '<tr id="p[0-9]*"' "$page" | wc -l)
  [[ $points -eq 1 ]] || fail "shards: sum $row has $points points, expected 1 (shard and merge one)"
  grep -qF "the same measurement is also in merged.json" "$page" ||
    fail "shards: sum $row's point does not name the merge"
done
page=$(ls "$work"/site-shards/series-sum-kind-plain-n-1000-loop-*.html 2>/dev/null | head -n 1)
[[ -n $page ]] && grep -qF "(partial record)" "$page" ||
  fail "shards: the torn journal's case is not a point of a partial record"
[[ -z $(ls "$work"/site-shards/series-sum-kind-plain-n-4000-* 2>/dev/null) ]] ||
  fail "shards: the torn journal's cut line was read"
grep -qF "begun.partial.jsonl" "$work/site-shards/index.html" ||
  fail "shards: the site does not list the journal left out"

# --- hostile input: times it cannot believe, a name that forges a CI command, special files ----
"$make_records" "$work/hostile" hostile >"$work/hostile-commits.txt" ||
  fail "make_history_records hostile"
run hostile history "$work/hostile" --out "$work/site-hostile"
[[ $rc -eq 0 ]] || fail "hostile: exit $rc: $(cat "$work/hostile.err")"
# Four planted copies of the first commit's record, created "", "yesterday", an impossible date and
# a date after this build: each left out with its reason, so the order (and the 2x regression from
# the first commit to the second) stands.
grep -qF "2 records over 2 commits, 1 series, 1 regressions, 0 improvements, 4 left out" \
  "$work/hostile.out" || fail "hostile: $(cat "$work/hostile.out" "$work/hostile.err")"
[[ $(grep -c "is not an RFC 3339 time" "$work/hostile.err") -eq 3 ]] ||
  fail "hostile: the unreadable times are not each named: $(cat "$work/hostile.err")"
grep -qF "is after this build" "$work/hostile.err" || fail "hostile: the future time is not named"
# The docs' CI recipe prints the annotations gpumeter wrote, escaped for GitHub Actions: the name's
# newline cannot start a line of its own, so no "::error title=forged" command is printed.
recipe="jq -r '.regressions[].github_annotation' site/regressions.json"
grep -qF "$recipe" "$(dirname "$0")/../../docs/history.md" || fail "docs/history.md: the CI recipe is not '$recipe'"
mkdir "$work/ci" && ln -s ../site-hostile "$work/ci/site"
(cd "$work/ci" && eval "$recipe") >"$work/annotations.out" || fail "the CI recipe: jq failed"
[[ $(wc -l <"$work/annotations.out") -eq 1 ]] || fail "the CI recipe printed $(wc -l <"$work/annotations.out") lines: $(cat "$work/annotations.out")"
grep -q '^::error title=gpumeter history%3A dot\\x0a%3A%3Aerror title=forged%3A%3Aall benchmarks passed / unrolled4 (n=1024)::dot\\x0a::error' \
  "$work/annotations.out" || fail "the CI recipe: $(cat "$work/annotations.out")"
grep -q '^::error title=forged' "$work/annotations.out" && fail "the CI recipe printed a forged command"
# Without --commits, the order of the git repository that holds the records wins over their
# times: here the newer commit's record was written first, so time alone would reverse them.
if command -v git >/dev/null; then
  repo="$work/repo"
  git init -q "$repo" && git -C "$repo" -c user.name=t -c user.email=t@t commit -q --allow-empty -m one &&
    git -C "$repo" -c user.name=t -c user.email=t@t commit -q --allow-empty -m two ||
    fail "git: cannot make a repository"
  older=$(git -C "$repo" rev-parse HEAD~1)
  newer=$(git -C "$repo" rev-parse HEAD)
  mkdir -p "$repo/records"
  a_json=$(find "$work/hostile/a" -name '*.json' | head -n 1)
  b_json=$(find "$work/hostile/b" -name '*.json' | head -n 1)
  # a (created first, 1x) is the newer commit's; b (created later, 2x) the older one's.
  python3 - "$a_json" "$repo/records/a.json" "$newer" "$b_json" "$repo/records/b.json" "$older" <<'PY'
import json, sys
for src, dst, commit in (sys.argv[1:4], sys.argv[4:7]):
    j = json.load(open(src))
    j["project_commit"] = commit
    json.dump(j, open(dst, "w"))
PY
  run git_order history "$repo/records" --out "$work/site-git"
  grep -qF "2 records over 2 commits, 1 series, 0 regressions, 1 improvements" "$work/git_order.out" ||
    fail "git order: $(cat "$work/git_order.out" "$work/git_order.err")"
fi

# --commits and --out are checked before any record is read: a device, a FIFO and a file too
# large are refused in one line, never read without end.
mkfifo "$work/fifo"
for commits in /dev/zero "$work/fifo" "$work/hostile"; do
  run_program timeout special 20 "$gpumeter" history "$work/hostile" --commits "$commits" --out "$work/site-special"
  rc_special=$rc
  [[ $rc_special -eq 2 ]] || fail "--commits $commits: exit $rc_special, expected 2"
  grep -qF "is not a regular file" "$work/special.err" || fail "--commits $commits: $(cat "$work/special.err")"
  [[ $(wc -l <"$work/special.err") -eq 1 ]] || fail "--commits $commits: more than one line"
done
head -c $((65 * 1024 * 1024)) /dev/zero | tr '\0' 'a' >"$work/huge.txt"
run huge history "$work/hostile" --commits "$work/huge.txt" --out "$work/site-special"
[[ $rc -eq 2 ]] && grep -qF "is larger than" "$work/huge.err" || fail "a huge --commits: exit $rc: $(cat "$work/huge.err")"
rm -f "$work/huge.txt"
printf 'x' >"$work/a-file"
run outfile history "$work/hostile" --out "$work/a-file"
[[ $rc -eq 2 ]] && grep -qF "exists and is not an empty folder" "$work/outfile.err" || fail "--out a file: exit $rc"
grep -qF "left out" "$work/outfile.err" && fail "--out a file: records were read before --out was refused"

if [[ $failures -ne 0 ]]; then
  echo "history: $failures failure(s)" >&2
  exit 1
fi
echo "history: all checks passed"
