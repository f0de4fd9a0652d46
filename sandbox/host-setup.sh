#!/usr/bin/env bash
# Prepares a Debian controller for the sandbox: podman and friends from Debian, and the
# containers.conf tweak for hosts without CAP_SYS_RESOURCE. Safe to run again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

packages=(podman runc debootstrap uidmap slirp4netns fuse-overlayfs netavark aardvark-dns
          iptables openssh-client git make python3-venv dpkg-dev xz-utils)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  echo "host-setup: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi
ensure_containers_conf
