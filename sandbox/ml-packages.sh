#!/usr/bin/env bash
# The shared ML volume of the sandbox: one podman volume holding a Python venv at /opt/ml with
# MindSpore and PyTorch (CPU), mounted read-only on every node by `SANDBOX_ML=1 sandbox/sandbox up`.
#
#   sandbox/ml-packages.sh [ensure]   download the wheels (once) and build the volume (once per
#                                     requirement list); prints the volume name on stdout
#   sandbox/ml-packages.sh name       print the volume name for the current requirement list
#   sandbox/ml-packages.sh cann       print CANN's Python dependencies as downloaded (name==version)
#   sandbox/ml-packages.sh clean      remove every ML volume (label cluster-suite.cache=ml)
#
# The wheels are downloaded on this machine (the nodes have no internet) with pip's configured
# index into $(sandbox_cache_dir)/wheels, then installed offline (--no-index) into a venv made
# INSIDE a throwaway container of the node image, so the venv has the nodes' own python3.11
# paths and ABI. The volume is named after a hash of sandbox/ml-requirements.txt and carries the
# label cluster-suite.cache=ml, not the sandbox label: `sandbox down` keeps it for the next
# sandbox or Molecule scenario. CANN's Python dependencies, which role python_env adds on NPU nodes
# (cann_python in roles/python_env/files/compat.yml), are downloaded into the same directory, for
# the role's wheelhouse (python_env_find_links), and never installed into the volume.
# Environment: SANDBOX_CACHE, SANDBOX_PREFIX (whose node image is used), ML_PIP (pip used for the
# download, default `python3 -m pip`).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

requirements="$here/ml-requirements.txt"
compat="$(dirname "$here")/roles/python_env/files/compat.yml"
cache_label="cluster-suite.cache=ml"
wheels="$(sandbox_cache_dir)/wheels"
req_hash=$(grep -v '^\s*#' "$requirements" | grep -v '^\s*$' | sha256sum | cut -c1-12)
volume="cluster-suite-ml-$req_hash"
marker=.cluster-suite-ml-complete
log() { echo "ml-packages: $*" >&2; }

download_wheels() {
  local stamp="$wheels/.complete-$req_hash"
  if [ -f "$stamp" ]; then log "wheels for $req_hash already in $wheels"; return; fi
  mkdir -p "$wheels"
  log "downloading wheels into $wheels (pip's configured index, this machine only)"
  local start=$SECONDS
  # shellcheck disable=SC2086
  ${ML_PIP:-python3 -m pip} download --quiet --only-binary=:all: --dest "$wheels" -r "$requirements" >&2 \
    || die "pip download of $requirements failed"
  grep -v '^\s*#' "$requirements" | grep -v '^\s*$' >"$stamp"
  log "wheels downloaded in $((SECONDS - start)) s"
}

# The pins of compat.yml's cann_python mapping (lines '  name: "version"'), one name==version a line.
cann_requirements() {
  sed -n '/^cann_python:$/,/^[^ ]/s/^  \([A-Za-z0-9._-]*\): "\([^"]*\)"$/\1==\2/p' "$compat"
}

download_cann_wheels() {
  local list hash stamp
  list=$(cann_requirements); hash=$(sha256sum <<<"$list" | cut -c1-12); stamp="$wheels/.complete-cann-$hash"
  if [ -f "$stamp" ]; then log "CANN's Python dependencies ($hash) already in $wheels"; return; fi
  mkdir -p "$wheels"
  log "downloading CANN's Python dependencies into $wheels"
  # shellcheck disable=SC2086
  ${ML_PIP:-python3 -m pip} download --quiet --only-binary=:all: --dest "$wheels" $list >&2 \
    || die "pip download of CANN's Python dependencies ($compat) failed"
  echo "$list" >"$stamp"
}

volume_complete() {
  podman volume exists "$volume" || return 1
  local mp; mp=$(podman volume inspect -f '{{.Mountpoint}}' "$volume")
  [ -f "$mp/$marker" ]
}

build_volume() {
  if volume_complete; then log "volume $volume is up to date"; return; fi
  # The venv is Python 3.11's, bookworm's, whatever releases the nodes run.
  "$here/image/build.sh" bookworm >&2
  podman volume exists "$volume" && podman volume rm -f "$volume" >/dev/null
  podman volume create --label "$cache_label" --label "cluster-suite.ml-requirements=$req_hash" "$volume" >/dev/null
  log "building the venv /opt/ml in $volume inside a throwaway node container (no network)"
  local start=$SECONDS packages
  packages=$(grep -v '^\s*#' "$requirements" | grep -v '^\s*$' | paste -sd' ')
  # shellcheck disable=SC2086
  if ! podman run --rm --network none -v "$volume:/opt/ml" -v "$wheels:/wheels:ro" \
      "$(sandbox_image_ref bookworm)" sh -euc "
        python3 -m venv /opt/ml
        /opt/ml/bin/pip install --quiet --no-index --find-links /wheels --disable-pip-version-check $packages
        /opt/ml/bin/python -c 'import mindspore, torch; print(mindspore.__version__, torch.__version__)'
        chmod -R a+rX /opt/ml
        touch /opt/ml/$marker" >&2; then
    podman volume rm -f "$volume" >/dev/null
    die "building the ML venv failed; volume $volume removed"
  fi
  log "volume $volume built in $((SECONDS - start)) s"
  # Volumes of older requirement lists are removed unless a container still uses them.
  local old
  for old in $(podman volume ls -q --filter "label=$cache_label"); do
    [ "$old" = "$volume" ] || podman volume rm "$old" >/dev/null 2>&1 || true
  done
}

case "${1:-ensure}" in
  ensure) volume_complete || download_wheels; download_cann_wheels; build_volume; echo "$volume" ;;
  name) echo "$volume" ;;
  cann) cann_requirements ;;
  clean)
    ids=$(podman volume ls -q --filter "label=$cache_label")
    # shellcheck disable=SC2086
    [ -z "$ids" ] || podman volume rm -f $ids >/dev/null
    log "ML volumes removed" ;;
  *) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
