#!/usr/bin/env bash
# Puts the OpenMPI release tarball the sandbox tests build into the controller's cache:
#   ${SANDBOX_CACHE:-~/.cache/cluster-suite}/sources/openmpi_<version>.orig.tar.xz
# It is the orig tarball of Debian's source package `openmpi` (bookworm: 4.1.4-3), i.e. the
# upstream release, fetched from this machine's own Debian mirror with `apt-get source
# --download-only` (apt checks it against the signed Sources index and the .dsc). When the machine
# has no deb-src entry, one is derived from its apt sources into a private apt configuration:
# /etc/apt and the system's package lists are never touched. Does nothing when the tarball is
# already cached. Prints the tarball's sha256.
#
# Environment: SANDBOX_CACHE (cache root), OPENMPI_DEBIAN_VERSION (4.1.4; upstream version of the
# orig tarball), OPENMPI_SOURCE_SUITE (bookworm).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

version=${OPENMPI_DEBIAN_VERSION:-4.1.4}
suite=${OPENMPI_SOURCE_SUITE:-bookworm}
dest="$(sandbox_cache_dir)/sources"
tarball="$dest/openmpi_${version}.orig.tar.xz"
# The sha256 the sandbox inventory pins (inventory/sandbox/group_vars/all/openmpi.yml).
pinned_file="$PROJECT_DIR/inventory/sandbox/group_vars/all/openmpi.yml"

report() {
  local sum pinned
  sum=$(sha256sum "$1" | cut -d' ' -f1)
  echo "openmpi source: $1"
  echo "sha256: $sum"
  pinned=$(sed -n 's/^openmpi_source_sha256:[[:space:]]*"\{0,1\}\([0-9a-f]\{64\}\)"\{0,1\}.*/\1/p' \
             "$pinned_file" 2>/dev/null || true)
  if [ -n "$pinned" ] && [ "$version" = 4.1.4 ] && [ "$pinned" != "$sum" ]; then
    die "the sha256 of $1 is $sum but $pinned_file pins $pinned; remove the file and run again"
  fi
}

if [ -s "$tarball" ]; then
  echo "openmpi source: already cached"
  report "$tarball"
  exit 0
fi

mkdir -p "$dest"
work=$(mktemp -d "$dest/.fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
# apt drops privileges to _apt for downloads; let it write the download directory.
if [ "$(id -u)" = 0 ] && id -u _apt >/dev/null 2>&1; then
  chmod 0755 "$work"
  install -d -o _apt -m 0755 "$work/download"
else
  mkdir -p "$work/download"
fi

system_apt() {
  (cd "$work/download" && apt-get source --download-only -qq "openmpi" >"$work/apt.log" 2>&1)
}

private_apt() {
  local line keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  line=$(python3 "$here/apt_sources.py" deb-src-line --suite "$suite") \
    || die "no Debian mirror for $suite in this machine's apt sources; put openmpi_${version}.orig.tar.xz into $dest by hand"
  if [ -r "$keyring" ]; then
    line="deb-src [signed-by=$keyring] ${line#deb-src }"
  fi
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
  printf '%s\n' "$line" >"$work/sources.list"
  local opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
              -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
              -o "Debug::NoLocking=true")
  echo "openmpi source: apt-get update of a private deb-src list ($suite main, this machine's mirror)"
  apt-get "${opts[@]}" update -qq >"$work/apt.log" 2>&1 || {
    tail -n 20 "$work/apt.log" >&2; die "apt-get update of the private deb-src list failed"
  }
  echo "openmpi source: apt-get source --download-only openmpi"
  (cd "$work/download" && apt-get "${opts[@]}" source --download-only -qq openmpi >>"$work/apt.log" 2>&1) || {
    tail -n 20 "$work/apt.log" >&2; die "apt-get source --download-only openmpi failed"
  }
}

if python3 "$here/apt_sources.py" has-deb-src --suite "$suite" && system_apt; then
  echo "openmpi source: downloaded with the machine's own deb-src entry"
else
  private_apt
fi

got="$work/download/openmpi_${version}.orig.tar.xz"
if [ ! -s "$got" ]; then
  ls "$work/download" >&2
  die "apt-get source brought no openmpi_${version}.orig.tar.xz (the mirror's $suite has another version; set OPENMPI_DEBIAN_VERSION)"
fi
# Keep the .dsc beside it: it records the checksums apt verified.
cp "$work/download"/openmpi_*.dsc "$dest/" 2>/dev/null || true
mv "$got" "$tarball.part"
mv "$tarball.part" "$tarball"
report "$tarball"
