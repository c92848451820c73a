# Shared by the gpumeter command's test scripts, sourced once $gpumeter is set: a work folder
# removed at exit, fail() counting failures, and run NAME ARGS... leaving $work/NAME.out,
# $work/NAME.err and $rc.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

run() {
  local name=$1
  shift
  "$gpumeter" "$@" >"$work/$name.out" 2>"$work/$name.err"
  rc=$?
}
