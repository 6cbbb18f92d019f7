# need COMMAND PACKAGE installs the Debian package when the command is
# missing (apt-get update at most once per run). Sourced by .ci/run and by
# each end-to-end script, so every script also runs on its own.
apt_updated=${apt_updated:-}
need() {
  command -v "$1" >/dev/null && return
  local sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
  echo "installing Debian's $2 (for $1)"
  if [ -z "$apt_updated" ]; then $sudo apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$2" >/dev/null
}
