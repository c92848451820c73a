# Shared by the gpumeter command's test scripts, sourced once $gpumeter is set: tests/lib.sh, and
# run NAME ARGS... running the command, leaving $work/NAME.out, $work/NAME.err and $rc.
# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

run() {
  run_program "$gpumeter" "$@"
}
