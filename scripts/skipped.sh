#!/usr/bin/env bash
# Prints every test ctest reported as skipped, with the reason the test gave, so a skip is never
# silent: ctest's own summary says only "***Skipped". Reads the log of the last ctest run.
#   scripts/skipped.sh BUILD_DIR
set -euo pipefail
log="$1/Testing/Temporary/LastTest.log"
[ -f "$log" ] || exit 0
# GoogleTest writes "<file>:<line>: Skipped", then the reason, then "[  SKIPPED ] <test>".
awk '
  /: Skipped$/ { want = 1; next }
  want == 1 { reason = $0; want = 0; next }
  /^\[  SKIPPED \] [^ ]/ { if (reason != "") { count[reason]++; n++ } reason = "" }
  # A script test (exit 77) says "SKIP: <reason>".
  /^SKIP: / { count[substr($0, 7)]++; n++ }
  END {
    if (n == 0) exit
    printf "%d test(s) skipped, saying why:\n", n
    for (r in count) printf "  %d x %s\n", count[r], r
  }' "$log"
