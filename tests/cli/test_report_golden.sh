#!/usr/bin/env bash
# Every report of fixed records, byte for byte: `gpumeter report` (narrow, --wide, --csv) of the
# committed records of each schema version and of the compare records, and `gpumeter compare`
# (with and without a gate) of pairs with known differences. A change to a sentence, a label, a
# cell or a layout shows here as a diff; when it is meant, regenerate the files with --update and
# say in the commit which sentence changed and why.
#   test_report_golden.sh GPUMETER MAKE_COMPARE_RECORDS GOLDEN_DIR [--update]
set -u
gpumeter=$1
make=$2
golden=$3
update=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$make" "$work/rec" >/dev/null || { echo "FAIL: cannot make the records" >&2; exit 1; }
out=$work/out
mkdir -p "$out"

# render NAME ARGS...: stdout, stderr and the exit code of one gpumeter command, in one file.
render() {
  local name=$1
  shift
  "$gpumeter" "$@" >"$out/$name" 2>"$out/$name.err"
  echo "exit $?" >>"$out/$name"
  cat "$out/$name.err" >>"$out/$name"
  rm "$out/$name.err"
}

for f in "$data"/record_v*.json "$work"/rec/{base,crashed,hot,marked_new,mixed,partial,wall_slow}.json; do
  b=$(basename "$f" .json)
  render "report-$b.md" report "$f"
  render "report-$b.wide.md" report --wide "$f"
  render "report-$b.csv" report --csv "$f"
done
for pair in base:slower base:hot base:crashed base:partial base:disjoint base:other \
  marked_base:marked_new wall_base:wall_slow wall_base:wall_same base:mixed; do
  a=${pair%%:*}
  b=${pair##*:}
  render "compare-$a-$b.md" compare "$work/rec/$a.json" "$work/rec/$b.json"
  render "gate-$a-$b.md" compare "$work/rec/$a.json" "$work/rec/$b.json" --fail-on-regression 5%
done

if [[ $update == --update ]]; then
  rm -rf "$golden"
  cp -r "$out" "$golden"
  echo "updated $golden"
  exit 0
fi
if ! diff -r -u "$golden" "$out" >"$work/diff"; then
  echo "FAIL: reports differ from $golden (run with --update if the change is meant):" >&2
  head -n 200 "$work/diff" >&2
  exit 1
fi
echo "ok: $(ls "$out" | wc -l) reports as before"
