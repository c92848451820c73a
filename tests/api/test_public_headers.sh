#!/usr/bin/env bash
# The public headers (include/gpumeter) as a user and a backend author read them:
#   - they include only each other and the standard library, never a private header
#     (src/include) or a third-party one, so the installed package stands alone;
#   - their comments say each rule in words: no rule ids ("T5", "(P10)") that mean nothing
#     without docs/rules.md, and no figures of one board ("on the H200"): those are in docs/;
#   - the user layer is small and whole in gpumeter.hpp: include/gpumeter/*.hpp, one header per
#     concept, each included there except cuda.hpp (CUDA users add that one); the types and
#     functions they gather live under gpumeter/detail/, which a user program never names;
#   - every program of examples/ (and the README's, and tests/consumer) includes only the user
#     layer, its own folder's files and system headers, with no exception: gpumeter's main job,
#     a front end, lives in src/main_job.
# Usage: test_public_headers.sh SOURCE_DIR
set -euo pipefail
root=$1
inc="$root/include"
status=0
fail() {
  echo "FAIL: $*"
  status=1
}

while IFS= read -r h; do
  rel=${h#"$inc/"}
  while read -r included; do
    case "$included" in
      gpumeter/*) [ -f "$inc/$included" ] || fail "$rel includes $included, which is not public" ;;
      */* | *.*) fail "$rel includes $included, not a gpumeter or standard header" ;;
    esac
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p' "$h")
  if ids=$(grep -nE '\b[TPB][0-9]{1,2}\b' "$h"); then
    fail "$rel cites rules by id (say the rule in words; link docs/rules.md):"$'\n'"$ids"
  fi
  if boards=$(grep -nE 'H[0-9]{3}\b' "$h"); then
    fail "$rel quotes a board's figures (they belong in docs/measured-figures.md):"$'\n'"$boards"
  fi
done < <(find "$inc/gpumeter" -name '*.hpp' | sort)

for h in "$inc"/gpumeter/*.hpp; do
  name=$(basename "$h")
  case "$name" in gpumeter.hpp | cuda.hpp) continue ;; esac
  grep -q "^#include \"gpumeter/$name\"" "$inc/gpumeter/gpumeter.hpp" ||
    fail "gpumeter.hpp leaves out gpumeter/$name"
done

# A user's program names the user layer only: detail/ may change shape without notice, and a
# private header of the source tree is not installed. Every program under examples/ (every
# folder, C++ and CUDA) and the consumer project: each include is a user-layer header, a file of
# its own folder, or a system or third-party header (<...>: the standard library, CUDA, CLI11).
# No program is excepted: one that needs the front ends' helpers is a front end, and lives in
# src/ (gpumeter's main job: src/main_job). tests/api/build_examples.sh compiles every one against
# the installed headers alone.
while IFS= read -r f; do
  rel=${f#"$root/"}
  dir=$(dirname "$f")
  while IFS= read -r line; do
    included=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p' <<<"$line")
    [ -n "$included" ] || continue
    case "$included" in
      gpumeter/detail/*) fail "$rel includes $included, a detail header (include the user layer's header instead)" ;;
      gpumeter/*) [ -f "$inc/$included" ] || fail "$rel includes $included, which is not installed" ;;
      *)
        if [[ $line == *'"'* ]]; then
          [ -f "$dir/$included" ] || fail "$rel includes \"$included\", not a file of its own folder nor an installed header"
        fi
        ;;
    esac
  done < <(grep -E '^[[:space:]]*#[[:space:]]*include' "$f")
done < <(find "$root/examples" "$root/tests/consumer" -type f \
  \( -name '*.cpp' -o -name '*.cu' -o -name '*.hpp' -o -name '*.cuh' \) | sort)
if found=$(grep -nE '#include "gpumeter/detail/' "$root/README.md"); then
  fail "README.md shows a detail header:"$'\n'"$found"
fi

user=$(find "$inc/gpumeter" -maxdepth 1 -name '*.hpp' | wc -l)
[ "$status" -eq 0 ] && echo "public headers: $user in the user layer, $(find "$inc/gpumeter" -name '*.hpp' | wc -l) checked"
exit "$status"
