# install_packages WHAT PACKAGE...: installs from Debian's packages those not installed yet
# (sourced by scripts/setup.sh and scripts/setup-tests.sh).
install_packages() {
  local what=$1
  shift
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup ($what): installing ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}
