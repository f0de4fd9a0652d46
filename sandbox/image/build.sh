#!/usr/bin/env bash
# Builds the sandbox node image of one Debian release (build.sh bullseye; without an argument,
# each release of SANDBOX_RELEASES, bookworm by default) with debootstrap (no container registry)
# and imports it into podman. The tag is a hash of this recipe, so the image is rebuilt only when
# the recipe changes. Override with SANDBOX_IMAGE=<ref> to use a prebuilt image from a registry
# instead.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib.sh
source "$here/../lib.sh"

if [ -n "${SANDBOX_IMAGE:-}" ]; then
  echo "sandbox image: using SANDBOX_IMAGE=$SANDBOX_IMAGE (no local build)"
  exit 0
fi

if [ $# -eq 0 ]; then
  for release in $(sandbox_releases); do "$0" "$release"; done
  exit 0
fi
suite=$1
known_release "$suite" || die "no image recipe for release '$suite' (bullseye, bookworm, trixie)"
tag=$(sandbox_image_ref "$suite")
if podman image exists "$tag"; then
  echo "sandbox image: $tag is up to date"
  exit 0
fi
cache=${SANDBOX_CACHE:-$(sandbox_cache_dir)}
mkdir -p "$cache/debootstrap-debs"
# One build at a time on this machine (sandboxes brought up at once, Molecule scenarios run side
# by side): all releases share the debootstrap cache, and a build waited for is not done again.
exec {lock}>"$cache/image-build.lock"
flock "$lock"
if podman image exists "$tag"; then
  echo "sandbox image: $tag was built meanwhile"
  exit 0
fi

mirror=$(debian_mirror "$suite")
package_list() { local sep=$1; shift; cat "$@" | grep -v '^\s*#' | grep -v '^\s*$' | paste -sd "$sep" -; }
# packages-<suite>.txt adds the packages of one release only.
lists=("$here/packages.txt")
[ ! -f "$here/packages-$suite.txt" ] || lists+=("$here/packages-$suite.txt")
packages=$(package_list , "${lists[@]}")
rootfs=$(mktemp -d "${TMPDIR:-/tmp}/sandbox-rootfs.XXXXXX")
trap 'rm -rf "$rootfs"' EXIT

log="$cache/debootstrap-$suite-$SANDBOX_FLAVOUR.log"
echo "sandbox image ($suite, $SANDBOX_FLAVOUR flavour): debootstrap $suite from the machine's apt mirror into $rootfs"
debootstrap --variant=minbase --include="$packages" --cache-dir="$cache/debootstrap-debs" \
  "$suite" "$rootfs" "$mirror" >"$log" 2>&1 || {
  tail -n 30 "$log" >&2
  die "debootstrap failed (full log: $log)"
}

# The systemd flavour's packages go in with apt-get inside the new root: their maintainer scripts
# (polkitd's among them) fail in debootstrap's bare configure stage.
if [ "$SANDBOX_FLAVOUR" = systemd ]; then
  echo "sandbox image: apt-get install $(package_list ' ' "$here/packages-systemd.txt")"
  mount -t proc proc "$rootfs/proc"
  trap 'umount "$rootfs/proc" 2>/dev/null || true; rm -rf "$rootfs"' EXIT
  printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"; chmod 0755 "$rootfs/usr/sbin/policy-rc.d"
  # shellcheck disable=SC2046
  chroot "$rootfs" env DEBIAN_FRONTEND=noninteractive sh -c 'apt-get update && apt-get install -y --no-install-recommends "$@"' \
    apt $(package_list ' ' "$here/packages-systemd.txt") >>"$log" 2>&1 || {
    tail -n 30 "$log" >&2
    die "apt-get install in the new root failed (full log: $log)"
  }
  rm -f "$rootfs/usr/sbin/policy-rc.d"
  umount "$rootfs/proc"
fi

# Configure the root file system: each node makes its own host keys at start, so remove the ones
# debootstrap made.
"$here/configure-rootfs.sh" "$rootfs" "$SANDBOX_FLAVOUR"
init=/usr/local/sbin/sandbox-init
[ "$SANDBOX_FLAVOUR" = sshd ] || init=/sbin/init

echo "sandbox image: importing as $tag"
tar -C "$rootfs" -c . | podman import --quiet \
  --change "CMD [\"$init\"]" \
  --change 'ENV LANG=C.UTF-8' - "$tag" >/dev/null
echo "sandbox image: built $tag"
