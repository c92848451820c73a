#!/usr/bin/env bash
# The code's shape, as docs/architecture.md draws it, checked where a grep can see it:
#   - a record's summaries and comparisons are derived in src/core/finish.cpp alone: nothing else
#     calls summarize() or compare_results() (a reporter or front end that did would show numbers
#     by rules of its own, as the markdown reporter once recomputed an old record's comparisons
#     by the current rules);
#   - the exit code and the reason of two records compared are the core's conclude(), which the
#     gpumeter command and the pytest plugin read; the plugin runs no gpumeter command to parse;
#   - verdicts and row statuses are the core's words: no C++ outside src/core spells one
#     (gpumeter evaluate's Python is checked by tests/python/test_exploits.py on its syntax tree).
# Usage: test_structure.sh SOURCE_DIR
set -euo pipefail
root=$1
status=0
fail() {
  echo "FAIL: $*"
  status=1
}
code_only() { grep -vE '^[^:]+:[0-9]+:[[:space:]]*(//|#)' || true; }
cd "$root"

callers=$(grep -rnE '\b(summarize|compare_results)\(' src python/src --include='*.cpp' \
  --include='*.hpp' | grep -vE '^src/core/(finish|summary|comparison)\.cpp:' | code_only || true)
[ -z "$callers" ] || fail "summarize/compare_results called outside src/core/finish.cpp:"$'\n'"$callers"

plugin_cli=$(grep -HnE '_gpumeter\.cli\(|Regressions beyond|"Note: "' python/gpumeter/pytest_plugin.py |
  code_only || true)
[ -z "$plugin_cli" ] || fail "the pytest plugin runs the command or parses its output:"$'\n'"$plugin_cli"

verdicts=$(grep -rnE '"(crashed|timeout|tampered)"' src python/src --include='*.cpp' \
  --include='*.hpp' | grep -v '^src/core/' | code_only || true)
[ -z "$verdicts" ] || fail "a verdict or row status spelled outside the core:"$'\n'"$verdicts"

[ "$status" = 0 ] && echo "structure: finish, conclude and verdicts each in one place"
exit "$status"
