#!/usr/bin/env bash
# Builds the sandbox node image with debootstrap (no container registry) and imports it into
# podman. The tag is a hash of this recipe, so the image is rebuilt only when the recipe changes.
# Override with SANDBOX_IMAGE=<ref> to use a prebuilt image from a registry instead.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib.sh
source "$here/../lib.sh"

if [ -n "${SANDBOX_IMAGE:-}" ]; then
  echo "sandbox image: using SANDBOX_IMAGE=$SANDBOX_IMAGE (no local build)"
  exit 0
fi

tag=$(sandbox_image_ref)
if podman image exists "$tag"; then
  echo "sandbox image: $tag is up to date"
  exit 0
fi

mirror=$(debian_mirror)
suite=bookworm
packages=$(grep -v '^\s*#' "$here/packages.txt" | grep -v '^\s*$' | paste -sd, -)
cache=${SANDBOX_CACHE:-$(sandbox_cache_dir)}
mkdir -p "$cache/debootstrap-debs"
rootfs=$(mktemp -d "${TMPDIR:-/tmp}/sandbox-rootfs.XXXXXX")
trap 'rm -rf "$rootfs"' EXIT

echo "sandbox image: debootstrap $suite from the machine's apt mirror into $rootfs"
debootstrap --variant=minbase --include="$packages" --cache-dir="$cache/debootstrap-debs" \
  "$suite" "$rootfs" "$mirror" >"$cache/debootstrap.log" 2>&1 || {
  tail -n 30 "$cache/debootstrap.log" >&2
  die "debootstrap failed (full log: $cache/debootstrap.log)"
}

# Configure the root file system: sshd as PID 1 needs its runtime directory and host keys made
# at container start (each node must have its own keys), so remove the ones debootstrap made.
"$here/configure-rootfs.sh" "$rootfs"

echo "sandbox image: importing as $tag"
tar -C "$rootfs" -c . | podman import --quiet \
  --change 'CMD ["/usr/local/sbin/sandbox-init"]' \
  --change 'ENV LANG=C.UTF-8' - "$tag" >/dev/null
echo "sandbox image: built $tag"
