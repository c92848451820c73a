#!/usr/bin/env bash
# The installed headers (include/gpumeter, all of it installed) are a user's reference: each rule's
# comment says why its value, and the figures and history behind it live in docs/ (where they are
# dated and re-measured), not in a header a user's build copies. No issue numbers, no board names,
# no "build machine". Fails naming the lines.
#   installed_headers.sh SOURCE_DIR
set -u
root=${1:?usage: installed_headers.sh SOURCE_DIR}
cd "$root/include" || exit 2
found=$(grep -rnE "[Ii]ssues? #?[0-9]+|\b[HAB]100s?\b|\bH200s?\b|build machine|2-core" gpumeter)
if [[ -n $found ]]; then
  echo "FAIL: installed headers carry issue numbers or machine figures (move them to docs/):" >&2
  echo "$found" >&2
  exit 1
fi
echo "installed headers name no issue and no machine"
