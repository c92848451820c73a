#!/usr/bin/env bash
# What is installed (include/gpumeter, all of it) is what a user calls and what that needs, no
# more: the front ends' internals (option tables, exit-code help, the run recorder, evaluate's
# checker and verdicts, the history site's model, `gpumeter run`'s range bookkeeping) live in
# src/include, where the libraries and front ends find them and no package ships them. Fails:
#   - where the umbrella's include closure (gpumeter/gpumeter.hpp, every header it reaches)
#     holds a front end's header, naming the chain that reaches it (record.hpp -> shard.hpp ->
#     option_table.hpp put the benchmark programs' command line in every user's build);
#   - where a header of include/gpumeter is reached by no user-layer or extension-layer header
#     (gpumeter.hpp, cuda.hpp, backend/*.hpp): installed, yet no user names it, so it is some
#     front end's and belongs in src/include;
#   - where a name of the list below is not a private header (the list went stale).
#   user_layer.sh SOURCE_DIR
set -u
root=${1:?usage: user_layer.sh SOURCE_DIR}
inc=$root/include
# The headers only front ends use (src/cli, src/benchmark, python/src, src/main_job, the core's
# own sources), by name: they are src/include/gpumeter/NAME.hpp, never under include/.
front_end="option_spec option_table option_meaning exit_help run_recorder
checker_account ranges run_target candidate_verdict history pattern default_tolerance"
status=0
fail() {
  echo "FAIL: $*" >&2
  status=1
}

for name in $front_end; do
  [[ -f $root/src/include/gpumeter/$name.hpp ]] ||
    fail "the front ends' header $name.hpp is not in src/include/gpumeter (rename it here too)"
done

# closure HEADER...: prints "header<TAB>the header that included it" for each header the given
# ones reach through include/ (themselves with no parent).
closure() {
  local -A parent=()
  local queue=("$@") h included
  for h in "$@"; do parent[$h]=""; done
  while ((${#queue[@]})); do
    h=${queue[0]}
    queue=("${queue[@]:1}")
    [[ -f $inc/$h ]] || continue
    while read -r included; do
      [[ $included == gpumeter/* ]] || continue
      [[ -v parent[$included] ]] && continue
      parent[$included]=$h
      queue+=("$included")
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$inc/$h")
  done
  for h in "${!parent[@]}"; do printf '%s\t%s\n' "$h" "${parent[$h]}"; done
}

# chain CLOSURE HEADER: "a -> b -> HEADER", from the closure's parents.
chain() {
  local h=$2 path=$2 up
  while up=$(awk -F'\t' -v h="$h" '$1 == h { print $2 }' <<<"$1") && [[ -n $up ]]; do
    path="$up -> $path"
    h=$up
  done
  echo "$path"
}

umbrella=$(closure gpumeter/gpumeter.hpp)
for name in $front_end; do
  while IFS=$'\t' read -r h _; do
    case "$h" in
      gpumeter/$name.hpp | gpumeter/detail/$name.hpp)
        fail "the umbrella reaches a front end's header: $(chain "$umbrella" "$h")"
        ;;
    esac
  done <<<"$umbrella"
done

layers=(gpumeter/gpumeter.hpp gpumeter/cuda.hpp)
while IFS= read -r h; do layers+=("${h#"$inc/"}"); done < <(find "$inc/gpumeter/backend" -name '*.hpp' | sort)
reached=$(closure "${layers[@]}" | cut -f1)
while IFS= read -r h; do
  rel=${h#"$inc/"}
  grep -qxF "$rel" <<<"$reached" ||
    fail "$rel is installed, yet no user-layer or extension-layer header reaches it (a front end's internal belongs in src/include/gpumeter)"
done < <(find "$inc/gpumeter" -name '*.hpp' | sort)

[[ $status -eq 0 ]] && echo "user layer: the umbrella reaches $(wc -l <<<"$umbrella") headers, no front end's;" \
  "every one of $(find "$inc/gpumeter" -name '*.hpp' | wc -l) installed headers is reached by a layer"
exit "$status"
