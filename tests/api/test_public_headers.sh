#!/usr/bin/env bash
# The public headers (include/gpumeter) as a user and a backend author read them:
#   - they include only each other and the standard library, never a private header
#     (src/include) or a third-party one, so the installed package stands alone;
#   - their comments say each rule in words: no rule ids ("T5", "(P10)") that mean nothing
#     without docs/rules.md, and no figures of one board ("on the H200"): those are in docs/;
#   - the user layer is small and whole in gpumeter.hpp: include/gpumeter/*.hpp, one header per
#     concept, each included there except cuda.hpp (CUDA users add that one); the types and
#     functions they gather live under gpumeter/detail/, which a user program never names;
#   - the user programs of examples/ (and the README's) include only the user layer.
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

# A user's program names the user layer only: detail/ may change shape without notice.
while IFS= read -r f; do
  if found=$(grep -nE '#[[:space:]]*include[[:space:]]*[<"]gpumeter/detail/' "$f"); then
    fail "${f#"$root/"} includes a detail header (include the user layer's header instead):"$'\n'"$found"
  fi
done < <(find "$root/examples/time_my_kernel.cu" "$root/examples/sweep" "$root/tests/consumer" \
  -type f \( -name '*.cpp' -o -name '*.cu' -o -name '*.hpp' \) | sort)
if found=$(grep -nE '#include "gpumeter/detail/' "$root/README.md"); then
  fail "README.md shows a detail header:"$'\n'"$found"
fi

user=$(find "$inc/gpumeter" -maxdepth 1 -name '*.hpp' | wc -l)
[ "$status" -eq 0 ] && echo "public headers: $user in the user layer, $(find "$inc/gpumeter" -name '*.hpp' | wc -l) checked"
exit "$status"
