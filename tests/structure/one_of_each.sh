#!/usr/bin/env bash
# One backend chooser, one lock taker, one set of exit codes: fails, naming the lines, when the
# source tree holds a second. Front ends parse their arguments and hand them to a Session
# (src/include/gpumeter/session.hpp); a rule copied into one of them drifts from the others.
#
#   one_of_each.sh SOURCE_DIR
set -u
root=${1:?usage: one_of_each.sh SOURCE_DIR}
cd "$root" || exit 2
failed=0

# Every C++ and CUDA source and header of the project (not the build trees, not third parties).
sources() {
  find src include python/src examples bench testkit tests -type f \
    \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' -o -name '*.h' \) \
    -not -path '*/build*' 2>/dev/null | sort
}

# check NAME REGEX ALLOWED_REGEX: every line matching REGEX in a file whose path does not match
# ALLOWED_REGEX is a second copy.
check() {
  local name=$1 pattern=$2 allowed=$3 found
  found=$(sources | grep -Ev "$allowed" | xargs grep -nE "$pattern" /dev/null)
  if [[ -n "$found" ]]; then
    echo "FAIL: $name outside its one place:" >&2
    echo "$found" >&2
    failed=1
  fi
}

# The backend chooser: the Session's (src/session). A front end that chooses a backend itself,
# or makes one, has a second chooser. The backends' own libraries make them, tests test them,
# and the studies under bench/ time one backend on purpose.
check "a backend chooser" '\bchoose(_backend)?[[:space:]]*\(' '^src/session/'
check "a backend made by a front end" \
  '\bmake_(cuda_|cuda_events_|cuda_wall_|host_|host_stand_in_)backend[[:space:]]*\(' \
  '^(include/gpumeter|src/session|src/cuda|src/host|bench|tests)/'

# The lock taker: take_device_lock (src/session). DeviceLock is constructed there, and by the
# lock's own unit test.
check "a device lock taken" \
  '(make_unique|make_shared)<[[:space:]]*DeviceLock[[:space:]]*>|\bDeviceLock[[:space:]]+[A-Za-z_][A-Za-z0-9_]*[[:space:]]*[({]|\bnew[[:space:]]+DeviceLock\b' \
  '^(src/session/|src/system/device_lock\.cpp$|include/gpumeter/device_lock\.hpp$|tests/unit/test_device_lock\.cpp$)'

# The exit codes: include/gpumeter/exit_codes.hpp.
check "an exit code defined" \
  '(constexpr|const|#define|enum)[^;]*\b(k)?EXIT_?[A-Za-z_]*[[:space:]]*=|constexpr[^;]*\bkExit[A-Za-z]*\b' \
  '^include/gpumeter/exit_codes\.hpp$'

if [[ $failed -eq 0 ]]; then
  echo "one backend chooser, one lock taker, one set of exit codes"
fi
exit $failed
