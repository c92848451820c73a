#!/usr/bin/env bash
# gpumeter history (B14) on records of a known history (make_history_records.cpp): what it finds,
# what it leaves out and says, the site's files and JSON, the same bytes twice, and every refusal.
# The pages in a real browser: tests/browser/history_browser.py.
#   test_history.sh GPUMETER MAKE_HISTORY_RECORDS
set -u
gpumeter=$1
make_records=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
# run NAME ARGS...: gpumeter ARGS, leaving $work/NAME.out, $work/NAME.err and $rc.
run() {
  local name=$1
  shift
  "$gpumeter" "$@" >"$work/$name.out" 2>"$work/$name.err"
  rc=$?
}

"$make_records" "$work/records" >"$work/commits.txt" || { echo "FAIL: make_history_records" >&2; exit 1; }

# --- the whole history ------------------------------------------------------------------------
run all history "$work/records" --out "$work/site"
[[ $rc -eq 0 ]] || fail "history: exit $rc: $(cat "$work/all.err")"
grep -qF "8 records over 7 commits, 3 series, 2 regressions, 1 improvements, 2 left out" \
  "$work/all.out" || fail "history: unexpected summary: $(cat "$work/all.out")"
grep -qF "left out $work/records/junk.json" "$work/all.err" || fail "junk.json not named on stderr"
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
grep -qF "timing method changed from cupti to cuda-events" "$kernel_page" ||
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

if [[ $failures -ne 0 ]]; then
  echo "history: $failures failure(s)" >&2
  exit 1
fi
echo "history: all checks passed"
