# Shared helpers of the sandbox scripts. Sourced, not run.
# shellcheck shell=bash

SANDBOX_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROJECT_DIR=$(dirname "$SANDBOX_DIR")
SANDBOX_PREFIX=${SANDBOX_PREFIX:-clustersuite}

die() { echo "sandbox: error: $*" >&2; exit 1; }

sandbox_cache_dir() { echo "${SANDBOX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cluster-suite}"; }

# The node flavour: sshd (sshd is PID 1, the default) or systemd (systemd is PID 1 and runs sshd,
# firewalld and ufw as units, as on a real server).
SANDBOX_FLAVOUR=${SANDBOX_FLAVOUR:-sshd}
case "$SANDBOX_FLAVOUR" in
  sshd|systemd) ;;
  *) die "SANDBOX_FLAVOUR must be sshd or systemd, got '$SANDBOX_FLAVOUR'" ;;
esac

# The Debian releases of the nodes, comma-separated: node i runs the ((i-1) mod n)-th, so that a
# cluster can mix releases (and their Python versions) as real ones drift to.
SANDBOX_RELEASES=${SANDBOX_RELEASES:-bookworm}
known_release() { case "$1" in bullseye|bookworm|trixie) return 0 ;; esac; return 1; }
read -ra sandbox_release_list <<<"${SANDBOX_RELEASES//,/ }"
[ "${#sandbox_release_list[@]}" -gt 0 ] || die "SANDBOX_RELEASES is empty"
for _release in "${sandbox_release_list[@]}"; do
  known_release "$_release" || die "SANDBOX_RELEASES takes bullseye, bookworm and trixie, got '$_release'"
done

# Each release of SANDBOX_RELEASES once.
sandbox_releases() { printf '%s\n' "${sandbox_release_list[@]}" | awk '!seen[$0]++'; }

# The release of node <index>.
node_release() { echo "${sandbox_release_list[($1 - 1) % ${#sandbox_release_list[@]}]}"; }

# The files the image of a flavour and release (bookworm by default) is made from.
sandbox_image_recipe() {
  local image=$SANDBOX_DIR/image release=${1:-bookworm}
  echo "$image/packages.txt" "$image/build.sh" "$image/configure-rootfs.sh" "$image/sandbox-init" \
    "$image"/ascend-runtime/*.c "$SANDBOX_DIR"/stand-ins/Ascend/ascend-toolkit/latest/include/*/*.h
  [ "$SANDBOX_FLAVOUR" = sshd ] || echo "$image/packages-systemd.txt" "$image/sandbox-boot.service"
  [ ! -f "$image/packages-$release.txt" ] || echo "$image/packages-$release.txt"
}

# The image tag is the hash of everything that goes into the image; its name carries the release
# (but bookworm's, the default) and the flavour (but sshd's).
sandbox_image_ref() {
  if [ -n "${SANDBOX_IMAGE:-}" ]; then echo "$SANDBOX_IMAGE"; return; fi
  local sum name=cluster-suite-node release=${1:-bookworm}
  # shellcheck disable=SC2046
  sum=$(cat $(sandbox_image_recipe "$release") | sha256sum | cut -c1-12)
  [ "$release" = bookworm ] || name=$name-$release
  [ "$SANDBOX_FLAVOUR" = sshd ] || name=$name-$SANDBOX_FLAVOUR
  echo "localhost/$name:$sum"
}

# What differs between the settings a node was made with (<had>) and those asked for (<wanted>),
# both "name=value" words: one line "name old -> new, ...", nothing when the node can stay. A name
# <had> lacks (a node made before it was recorded) reads "unrecorded", so such a node is made anew.
# The image is named only when nothing else differs: the release and the flavour choose it.
settings_changes() {
  local -a had wanted changes=()
  local -A was=()
  local pair name old new image=
  read -ra had <<<"$1"
  read -ra wanted <<<"$2"
  for pair in "${had[@]}"; do was[${pair%%=*}]=${pair#*=}; done
  for pair in "${wanted[@]}"; do
    name=${pair%%=*} new=${pair#*=}
    old=${was[$name]-unrecorded}
    [ "$old" != "$new" ] || continue
    if [ "$name" = image ]; then image="$name $old -> $new"; else changes+=("$name $old -> $new"); fi
  done
  [ ${#changes[@]} -gt 0 ] || [ -z "$image" ] || changes=("$image")
  [ ${#changes[@]} -gt 0 ] || return 0
  printf -v pair '%s, ' "${changes[@]}"
  echo "${pair%, }"
}

# The Debian mirror of this machine's own apt sources (never a host name written in the repo):
# the one of the suite, else the one that serves this machine's own Debian release.
debian_mirror() {
  python3 "$SANDBOX_DIR/apt_sources.py" mirror --suite "${1:-bookworm}" --or-own-release \
    || die "no Debian mirror for ${1:-bookworm} found in this machine's apt sources"
}

# On hosts whose OCI runtime cannot set rlimits (no CAP_SYS_RESOURCE, as in many VMs and
# containers), podman needs default_ulimits = [] and runc. Only write the file when it is missing
# or when it already carries exactly what we would write; never overwrite a user's own file.
ensure_containers_conf() {
  local conf=/etc/containers/containers.conf capeff
  capeff=$(awk '/^CapEff:/ {print $2}' /proc/self/status)
  if (( (16#$capeff >> 24) & 1 )); then return 0; fi   # CAP_SYS_RESOURCE present: nothing to do
  local wanted
  wanted=$'# Written by cluster-suite sandbox: this host lacks CAP_SYS_RESOURCE.\n[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"'
  if [ -f "$conf" ]; then
    if [ "$(cat "$conf")" = "$wanted" ]; then return 0; fi
    if grep -Eq '^\s*default_ulimits\s*=\s*\[\s*\]' "$conf" && grep -Eq '^\s*runtime\s*=\s*"runc"' "$conf"; then
      return 0
    fi
    die "$conf exists but lacks 'default_ulimits = []' under [containers] and 'runtime = \"runc\"' under [engine]; this host has no CAP_SYS_RESOURCE, so add them by hand"
  fi
  mkdir -p /etc/containers
  printf '%s\n' "$wanted" >"$conf"
  echo "sandbox: wrote $conf (no CAP_SYS_RESOURCE on this host)"
}

# Forget the node ledger of <inventory> (plugins/plugin_utils/fleet/ledger.py, under the default
# cluster_ledger_dir: $XDG_STATE_HOME, else ~/.local/state, then /cluster-suite/ledger), the
# inventory named as its file and as its directory: a new sandbox reuses node names and addresses,
# and its nodes must not inherit the quarantines of the old one.
forget_ledger() {
  local inventory=$1 dir=${XDG_STATE_HOME:-$HOME/.local/state}/cluster-suite/ledger path
  [ -d "$dir" ] || return 0
  while IFS= read -r path; do
    rm -f "$path" "$path.lock"
  done < <(python3 - "$PROJECT_DIR/collections" "$dir" "$inventory" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[1])
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.fleet import ledger as node_ledger
for source in (sys.argv[3], os.path.dirname(os.path.abspath(sys.argv[3]))):
    print(node_ledger.ledger_path(sys.argv[2], source))
PY
)
}
