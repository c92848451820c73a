#!/usr/bin/env bash
# The installed headers (include/gpumeter, all of it installed) are a user's reference: each rule's
# comment says why its value, and the figures and history behind it live in docs/ (where they are
# dated and re-measured), not in a header a user's build copies. Fails naming the lines that hold:
#   - an issue or pull request number: "issue 38", "issues 37 and 38", "#38", "PR 12";
#   - a board or the machine a figure came from: "H100", "A100", "RTX 4090", "build machine",
#     "2-core";
#   - a machine figure: a number in a unit only a card's measurement has (a clock in MHz, power
#     in W, a temperature, a bandwidth or throughput: "1980 MHz", "3.2 TB/s"), or a number with a
#     time or size unit said as something that happened ("took 12 ms", "became 314 MB", "wrote
#     834 MB"). A rule's own value ("25 ms of warm-up", "512 MiB") is not one: it is the rule.
# Examples of output in a comment use letters for such figures ("A MHz against B MHz").
# Before the tree, the patterns are tried on lines each must catch and lines none may catch, so a
# pattern that matches nothing fails here instead of passing every header.
#   installed_headers.sh SOURCE_DIR
set -u
root=${1:?usage: installed_headers.sh SOURCE_DIR}

issue='[Ii]ssues? #?[0-9]+|(^|[^&[:alnum:]])#[0-9]+\b|\bPRs? #?[0-9]+|\bgh-[0-9]+'
board='\b(GH|GB)?([HALV][0-9]{2,3}|B[0-9]{3})[A-Z]?\b|\bRTX ?[0-9]{4}|\bMI[0-9]{3}\b|build machine|\b[0-9]+-core\b'
card_unit='\b[0-9][0-9.,]*[[:space:]]?(MHz|GHz|W|°C|[GT]i?B/s|TFLOP/s|TFLOPS)([^[:alnum:]]|$)'
sized='\b[0-9][0-9.,]*[[:space:]]?(ns|us|µs|ms|s|[KMGT]i?B)\b'
happened='\b(took|became|wrote|observed|ran (at|in|for)|was measured|were measured|measured (at|on))\b'

# scan DIR: every line under DIR that breaks the rule, "file:line:text".
scan() {
  grep -rnE "$issue|$board|$card_unit" "$1"
  grep -rnE "$sized" "$1" | grep -E "$happened"
}

self=$(mktemp -d "${TMPDIR:-/tmp}/installed-headers.XXXXXX")
trap 'rm -rf "$self"' EXIT
caught=("// see issue 38" "// Issue #12 says" "// fixed in #38." "// as PR 7 did" "// on the H200"
  "// an A100 reads" "// the build machine" "// on a 2-core box" "// SM clock 1980 MHz"
  "// 3.2 TB/s copy" "// at 700 W" "// the loop took 12 ms" "// a name became 314 MB"
  "// it wrote 834 MB")
clean=("#include <string>" "#pragma once" "// 25 ms of warm-up and 100 ms of measurement"
  "// a copy of 512 MiB" "// the measured TB/s ceiling" "// --max-time 10s" "// 5% or 0.05"
  "// U+200E and U+202A" "// rule B5 and P10" "// median A MHz against B MHz" "x = a & 3;")
failed=0
for line in "${caught[@]}"; do
  printf '%s\n' "$line" >"$self/one.hpp"
  [[ -n $(scan "$self") ]] || { echo "FAIL: the guard does not catch: $line" >&2; failed=1; }
done
printf '%s\n' "${clean[@]}" >"$self/one.hpp"
if found=$(scan "$self") && [[ -n $found ]]; then
  echo "FAIL: the guard catches lines it must let pass:" >&2
  echo "$found" >&2
  failed=1
fi
[[ $failed -eq 0 ]] || exit 1

cd "$root/include" || exit 2
found=$(scan gpumeter)
if [[ -n $found ]]; then
  echo "FAIL: installed headers carry issue numbers or machine figures (move them to docs/):" >&2
  echo "$found" >&2
  exit 1
fi
echo "installed headers name no issue and no machine ($(find gpumeter -name '*.hpp' | wc -l) checked)"
