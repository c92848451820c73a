#!/usr/bin/env bash
# `gpumeter report` on good and bad records (P10, B2): a good record prints a table and
# exits 0; every bad input exits 2 with ONE line on stderr naming the file and the problem, and
# prints no table at all.
#   test_report.sh GPUMETER MAKE_RECORD
set -u

gpumeter=$1
make_record=$2
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

# expect_bad NAME EXPECTED_SUBSTRING... ARGS are given by the caller through run first.
expect_bad() {
  local name=$1 file=$2 problem=$3
  [[ $rc -eq 2 ]] || fail "$name: exit code $rc, expected 2"
  [[ -s "$work/$name.out" ]] && fail "$name: printed to stdout (a partial table?): $(head -c 200 "$work/$name.out")"
  local lines
  lines=$(wc -l <"$work/$name.err")
  [[ $lines -eq 1 ]] || fail "$name: $lines lines on stderr, expected 1: $(cat "$work/$name.err")"
  grep -qF -- "$file" "$work/$name.err" || fail "$name: stderr does not name $file: $(cat "$work/$name.err")"
  grep -qF -- "$problem" "$work/$name.err" || fail "$name: stderr does not say '$problem': $(cat "$work/$name.err")"
}

good=$("$make_record" "$work") || { echo "FAIL: cannot make a record" >&2; exit 1; }
[[ -f "$good" ]] || { echo "FAIL: make_record printed '$good', not a file" >&2; exit 1; }

# --- good input ------------------------------------------------------------------------------
run good report --wide "$good"
[[ $rc -eq 0 ]] || fail "good: exit code $rc: $(cat "$work/good.err")"
[[ -s "$work/good.err" ]] && fail "good: wrote to stderr: $(cat "$work/good.err")"
grep -qE '^\| case +\| implementation +\|' "$work/good.out" || fail "good: no table header"
grep -qE '^\| gemm +\| cublas +\| dtype=bf16, m=4096 +\| kernel-records +\| device_busy +\| 12.3 \[12.0, 12.7\]' "$work/good.out" \
  || fail "good: no gemm row: $(cat "$work/good.out")"
grep -qF 'not measured' "$work/good.out" || fail "good: no 'not measured' cell"
grep -qF 'Deviations:' "$work/good.out" || fail "good: no deviations section"
grep -qF "$(basename "$good" .json | sed 's/^gpumeter-//')" "$work/good.out" || fail "good: run id not listed as a source"

run csv report --csv "$good"
[[ $rc -eq 0 ]] || fail "csv: exit code $rc"
[[ "$(head -n 1 "$work/csv.out")" == case,implementation,params,* ]] || fail "csv: header: $(head -n 1 "$work/csv.out")"
[[ $(wc -l <"$work/csv.out") -eq 3 ]] || fail "csv: expected header + 2 rows"
grep -qF '"softmax, fused",triton,"n=""1,024"""' "$work/csv.out" || fail "csv: commas not quoted"

# The same record twice would print every row twice: refused, naming both files.
cp "$good" "$work/copy.json"
run two report "$good" "$work/copy.json"
expect_bad two "$work/copy.json" "the same record"
grep -qF "$good" "$work/two.err" || fail "two: the first file is not named: $(cat "$work/two.err")"

# --- bad input -------------------------------------------------------------------------------
head -c 700 "$good" >"$work/truncated.json"
run truncated report "$work/truncated.json"
expect_bad truncated "$work/truncated.json" "truncated"

echo '{"schema": "gpumeter.record", "schema_version": 4,,}' >"$work/invalid.json"
run invalid report "$work/invalid.json"
expect_bad invalid "$work/invalid.json" "not valid JSON (parse error at byte"

run missing report "$work/does-not-exist.json"
expect_bad missing "$work/does-not-exist.json" "cannot open (No such file or directory)"

sed -E 's/"schema_version": [0-9]+,/"schema_version": 13,/' "$good" >"$work/v13.json"
run v13 report "$work/v13.json"
expect_bad v13 "$work/v13.json" "unsupported schema_version 13 (this gpumeter reads 1 to 12)"

sed 's/"device_busy_ms":/"device_busy_msec":/' "$good" >"$work/nofield.json"
run nofield report "$work/nofield.json"
expect_bad nofield "$work/nofield.json" "missing field results[0].summary.device_busy_ms"

: >"$work/empty.json"
run empty report "$work/empty.json"
expect_bad empty "$work/empty.json" "not valid JSON (empty file)"

# All records are read before anything is printed: a bad one after a good one prints no table.
run mixed report "$good" "$work/truncated.json"
expect_bad mixed "$work/truncated.json" "truncated"
run mixed_csv report --csv "$good" "$work/v13.json"
expect_bad mixed_csv "$work/v13.json" "unsupported schema_version 13"

# --- hostile input (B7) ----------------------------------------------------------------------
# What an attacker would try. A record that is not one is refused as above (exit 2, one line
# naming the file, nothing on stdout); a valid one whatever its text renders whole and inert.

# edit NAME SED_EXPRESSION: $work/NAME.json, the good record edited; fails if nothing changed.
edit() {
  sed "$2" "$good" >"$work/$1.json"
  cmp -s "$good" "$work/$1.json" && fail "$1: the edit '$2' changed nothing"
}

# 50,000 nested arrays under a key before run_id crashed the reader (stack overflow).
{
  printf '{"schema": "gpumeter.record", "schema_version": 4, "x": '
  head -c 50000 /dev/zero | tr '\0' '['
  head -c 50000 /dev/zero | tr '\0' ']'
  printf ', "run_id": "r"}'
} >"$work/deep.json"
run deep report "$work/deep.json"
expect_bad deep "$work/deep.json" "nested deeper than 32 levels"

# Numbers beyond a double were "internal error: ... number overflow", exit 3, no file named.
edit gap_1e999 's/"gap_ms": 0.000855/"gap_ms": 1e999/'
run gap_1e999 report "$work/gap_1e999.json"
expect_bad gap_1e999 "$work/gap_1e999.json" "a number beyond a double's range"
edit sample_overflow '0,/12000,/s//92233720368e4775812,/'
run sample_overflow report --csv "$work/sample_overflow.json"
expect_bad sample_overflow "$work/sample_overflow.json" "a number beyond a double's range"

# A summary value of 1e308 passed the check against the samples (infinite in ns).
edit summary_1e308 's/"median": 0.012345,/"median": 1e308,/'
run summary_1e308 report "$work/summary_1e308.json"
expect_bad summary_1e308 "$work/summary_1e308.json" "results[0].summary.device_busy_ms.median: 1e+308 is out of range"
edit tflops_1e308 's/"tflops": 11133.167555447548,/"tflops": 1e308,/'
run tflops_1e308 report "$work/tflops_1e308.json"
expect_bad tflops_1e308 "$work/tflops_1e308.json" "the summary does not describe the raw samples"

# Declared flops of 1e308 was accepted beside a stored TFLOP/s that contradicted it.
edit flops_1e308 's/"flops": 137438953472.0,/"flops": 1e308,/'
run flops_1e308 report "$work/flops_1e308.json"
expect_bad flops_1e308 "$work/flops_1e308.json" "results[0].workload.flops: 1e+308 is out of range [0, 1e+24]"

# Two rows of 0 ns samples printed the markdown table, then "internal error:
# bootstrap_speedup_interval: non-positive times", exit 3 (exit 0 with --csv). Now the whole
# table in either format, the comparison refused in words.
for kind in zero-device zero-wall; do
  zero=$("$make_record" "$work" "$kind") || fail "$kind: cannot make the record"
  run "$kind" report "$zero"
  [[ $rc -eq 0 ]] || fail "$kind: exit code $rc: $(cat "$work/$kind.err")"
  [[ -s "$work/$kind.err" ]] && fail "$kind: wrote to stderr: $(cat "$work/$kind.err")"
  [[ $(grep -c '^| gemm ' "$work/$kind.out") -eq 2 ]] || fail "$kind: not two rows: $(cat "$work/$kind.out")"
  grep -qF 'other and cublas not compared: ' "$work/$kind.out" || fail "$kind: no refused comparison: $(cat "$work/$kind.out")"
  grep -qF 'Sources:' "$work/$kind.out" || fail "$kind: the report stops early"
  run "$kind-csv" report --csv "$zero"
  [[ $rc -eq 0 && $(wc -l <"$work/$kind-csv.out") -eq 3 ]] || fail "$kind --csv: exit code $rc, $(wc -l <"$work/$kind-csv.out") lines"
done

# Inputs that are not regular files: /dev/zero was read without limit, a FIFO with no writer
# blocked forever, a directory; a file over the size limit (sparse) is refused unread.
run dev_zero report /dev/zero
expect_bad dev_zero /dev/zero "not a regular file"
mkfifo "$work/fifo.json"
timeout 20 "$gpumeter" report "$work/fifo.json" >"$work/fifo.out" 2>"$work/fifo.err"
rc=$?
[[ $rc -eq 124 ]] && fail "fifo: gpumeter blocked on a FIFO with no writer"
expect_bad fifo "$work/fifo.json" "not a regular file"
mkdir "$work/dir.json"
run dir report "$work/dir.json"
expect_bad dir "$work/dir.json" "not a regular file"
truncate -s 300M "$work/big.json"
run big report "$work/big.json"
expect_bad big "$work/big.json" "314572800 bytes, larger than the 268435456 bytes a record may be"

# A key twice in one object was read, the last one winning.
edit dup_version 's/"schema_version": 12,/"schema_version": 12, "schema_version": 1,/'
run dup_version report "$work/dup_version.json"
expect_bad dup_version "$work/dup_version.json" 'the key "schema_version" appears twice in one object'
edit dup_case '0,/"case": "gemm",/s//"case": "gemm", "case": "x",/'
run dup_case report "$work/dup_case.json"
expect_bad dup_case "$work/dup_case.json" 'the key "case" appears twice in one object'
edit dup_median '0,/"median": 0.012345,/s//"median": 0.012345, "median": 0.012345,/'
run dup_median report "$work/dup_median.json"
expect_bad dup_median "$work/dup_median.json" 'the key "median" appears twice in one object'

# Record text is shown, never obeyed: a reason and deviations holding "\n# heading" and
# "\n| a | b |", ESC, NUL, a C1 CSI, spreadsheet formulas, a param value "v, z=1", a backslash
# before a pipe (tests/unit/synthetic_record.hpp, hostile_text_record).
hostile=$("$make_record" "$work" hostile-text) || fail "hostile-text: cannot make the record"
run hostile report "$hostile"
[[ $rc -eq 0 ]] || fail "hostile: exit code $rc: $(cat "$work/hostile.err")"
grep -q '^#' "$work/hostile.out" && fail "hostile: a record added a heading: $(grep '^#' "$work/hostile.out")"
[[ $(grep -c '^|' "$work/hostile.out") -eq 5 ]] || fail "hostile: the record changed the table: $(grep '^|' "$work/hostile.out")"
grep -qF -- ': \x0a# heading\x0a\| a \| b \|' "$work/hostile.out" || fail "hostile: deviation not shown escaped"
grep -qF -- 'ESC \x1b\[2J\x1b\[31mred\x00NUL' "$work/hostile.out" || fail "hostile: ESC and NUL not shown escaped"
grep -qF -- '| # case\\\|x ' "$work/hostile.out" || fail "hostile: a backslash before | is lost"
grep -qF -- '| +k=@SUM(A1), n="v, z=1" ' "$work/hostile.out" || fail "hostile: a param value with ', z=' is not one value"
run hostile_csv report --csv "$hostile"
[[ $rc -eq 0 && $(wc -l <"$work/hostile_csv.out") -eq 4 ]] || fail "hostile --csv: exit code $rc, $(wc -l <"$work/hostile_csv.out") lines"
grep -qF -- '# case\|x,"'\''=HYPERLINK(""http://x"")","'\''+k=@SUM(A1), n=""v, z=1""",' "$work/hostile_csv.out" \
  || fail "hostile --csv: formulas not neutralised: $(cat "$work/hostile_csv.out")"
grep -qF -- "'+failed\\x0d\\x0a# heading,'-impl," "$work/hostile_csv.out" || fail "hostile --csv: failure row: $(cat "$work/hostile_csv.out")"
grep -qF -- ",'@NVIDIA (cuda:0)," "$work/hostile_csv.out" || fail "hostile --csv: device cell"
for out in hostile hostile_csv; do
  # Control bytes other than the line ends, and the C1 CSI: none may reach the terminal.
  controls=$(LC_ALL=C tr -d '\n\040-\176\200-\377' <"$work/$out.out" | wc -c)
  [[ $controls -eq 0 ]] || fail "$out: $controls raw control bytes on stdout"
  LC_ALL=C grep -qF $'\xc2\x9b' "$work/$out.out" && fail "$out: a raw C1 CSI on stdout"
done

# Names that are markdown: `**bold**` and backticks passed through `report` as emphasis and code.
markup=$("$make_record" "$work" markup-and-failures) || fail "markup-and-failures: cannot make the record"
run markup report "$markup"
[[ $rc -eq 0 ]] || fail "markup: exit code $rc: $(cat "$work/markup.err")"
grep -qF -- '| \*\*bold\*\* \`code\` \<script>alert(1)\</script> | \&amp; \~\~old\~\~ \$x\$ \_em\_ |' "$work/markup.out" ||
  fail "markup: the names are not escaped: $(grep -F 'bold' "$work/markup.out")"
grep -qE '(^|[^\\])(\*\*|`|<script|&amp;|~~|\$x)' "$work/markup.out" &&
  fail "markup: raw markup: $(grep -nE '(^|[^\\])(\*\*|`|<script|&amp;|~~|\$x)' "$work/markup.out")"
# CSV says what became of every row and why: skip, verification failure, exception, crash,
# timeout and lost records were rows empty apart from case, params and device.
run markup_csv report --csv "$markup"
[[ $rc -eq 0 ]] || fail "markup --csv: exit code $rc"
[[ "$(head -n 1 "$work/markup_csv.out")" == case,implementation,params,status,error,* ]] ||
  fail "markup --csv: header: $(head -n 1 "$work/markup_csv.out")"
for want in \
  '**bold** `code` <script>alert(1)</script>,&amp; ~~old~~ $x$ _em_,"dtype=bf16, m=4096",ok,,' \
  'softmax, fused",triton,"n=""1,024""",ok,,' \
  'skip,(every implementation),n=1,skipped,Skipped: needs bf16,' \
  'check,(every implementation),n=1,failed,"VerificationFailed: output 3 is 2.5, expected 2",' \
  "throw,(every implementation),n=1,failed,UserCodeError: the benchmark's setup threw std::bad_alloc: \`oom\`," \
  "crash,(every implementation),n=1,crashed,Crashed: the case's process was killed by signal 11 (Segmentation fault)," \
  'hang,(every implementation),n=1,timed out,Timeout: the case ran longer than --timeout 60 s,' \
  'lost,(every implementation),n=1,not measured,RecordsLost: **3** records lost,'; do
  grep -qF -- "$want" "$work/markup_csv.out" || fail "markup --csv: no row '$want': $(cat "$work/markup_csv.out")"
done

# The error line escapes controls too, from a file name or from a record.
esc_name="$work/"$'\e[31mred.json'
echo '{' >"$esc_name"
run esc_name report "$esc_name"
[[ $rc -eq 2 ]] || fail "esc_name: exit code $rc"
grep -qF -- '\x1b[31mred.json: not valid JSON' "$work/esc_name.err" || fail "esc_name: $(cat -v "$work/esc_name.err")"
edit esc_key 's/"m": "4096"/"m\\u001b[2J": 4096/'
run esc_key report "$work/esc_key.json"
expect_bad esc_key "$work/esc_key.json" 'field results[0].params.m\x1b[2J: expected a string, found number'
for out in esc_name esc_key; do
  controls=$(LC_ALL=C tr -d '\n\040-\176\200-\377' <"$work/$out.err" | wc -c)
  [[ $controls -eq 0 ]] || fail "$out: $controls raw control bytes on stderr"
done

# --- usage -----------------------------------------------------------------------------------
run version --version
[[ $rc -eq 0 && "$(cat "$work/version.out")" =~ ^gpumeter\ [0-9]+\.[0-9]+\.[0-9]+$ ]] \
  || fail "version: rc $rc, '$(cat "$work/version.out")'"

run help --help
[[ $rc -eq 0 ]] && grep -q 'report' "$work/help.out" || fail "help: rc $rc, no report command listed"

run report_help report --help
[[ $rc -eq 0 ]] && grep -q -- '--csv' "$work/report_help.out" || fail "report --help: rc $rc"

run none
[[ $rc -eq 2 ]] || fail "no command: exit code $rc, expected 2"
grep -qi 'usage' "$work/none.err" || fail "no command: no usage on stderr"
[[ -s "$work/none.out" ]] && fail "no command: wrote to stdout"

run unknown frobnicate
[[ $rc -eq 2 ]] || fail "unknown command: exit code $rc, expected 2"
grep -qF 'frobnicate' "$work/unknown.err" || fail "unknown command: not named: $(cat "$work/unknown.err")"
grep -qi 'usage' "$work/unknown.err" || fail "unknown command: no usage on stderr"

run nofiles report
[[ $rc -eq 2 ]] || fail "report without records: exit code $rc, expected 2"

run badflag report --frob "$good"
[[ $rc -eq 2 ]] || fail "report --frob: exit code $rc, expected 2"

if [[ $failures -gt 0 ]]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all gpumeter report checks passed"
