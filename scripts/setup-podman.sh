#!/usr/bin/env bash
# Make real containers available to the tests: podman (runc runtime) and a local base image.
#
#   1. apt-get install podman runc debootstrap uidmap (only the missing ones; needs root)
#   2. /etc/containers/containers.conf: runtime runc, ulimits within this machine's hard limits
#   3. localhost/mcpcost-base:bookworm from a debootstrap rootfs with python3, python3-venv,
#      nodejs, npm, git, ca-certificates (skipped when `podman image exists`)
#   4. a smoke run of that image
#
# Prints one last line on stdout: "podman: ready ..." or "podman: not ready: <why>".
# Exit 0 either way, unless --require is given (then 1 when not ready).
# The Docker-compatible API for the docker SDK is started by the tests themselves
# (tests/servers/podman.py), or by hand:
#   podman system service --time=0 unix:///tmp/mcpcost-podman.sock &
# Usage: scripts/setup-podman.sh [--require] [--no-install] [--rebuild]
set -uo pipefail

IMAGE="localhost/mcpcost-base:bookworm"
SUITE="bookworm"
REQUIRE=0
INSTALL=1
REBUILD=0
for arg in "$@"; do
  case "$arg" in
    --require) REQUIRE=1 ;;
    --no-install) INSTALL=0 ;;
    --rebuild) REBUILD=1 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "setup-podman: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

say() { echo "setup-podman: $*" >&2; }
finish() {
  if [[ "$1" == ready ]]; then
    echo "podman: ready ($IMAGE, $(podman --version 2>/dev/null))"
    exit 0
  fi
  echo "podman: not ready: $2"
  if [[ "$REQUIRE" == 1 ]]; then exit 1; fi
  exit 0
}

as_root() {
  if [[ "$(id -u)" == 0 ]]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"; else return 1; fi
}

# 1. packages
missing=()
command -v podman >/dev/null 2>&1 || missing+=(podman)
command -v runc >/dev/null 2>&1 || missing+=(runc)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
command -v newuidmap >/dev/null 2>&1 || missing+=(uidmap)
if ((${#missing[@]})); then
  if [[ "$INSTALL" == 0 ]]; then finish no "missing ${missing[*]} (--no-install given)"; fi
  if ! command -v apt-get >/dev/null 2>&1; then finish no "missing ${missing[*]} and no apt-get"; fi
  say "installing ${missing[*]}"
  as_root apt-get update -qq >&2 || finish no "apt-get update failed (root needed?)"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >&2 || finish no "apt-get install ${missing[*]} failed"
fi

# 2. containers.conf (crun refuses the hybrid cgroup layout here; default ulimits are too high)
CONF=/etc/containers/containers.conf
WANT='[containers]
default_ulimits = ["nofile=20000:20000", "nproc=1000:1000"]
[engine]
runtime = "runc"'
if [[ ! -f "$CONF" ]] || ! grep -q 'runtime = "runc"' "$CONF"; then
  if [[ -f "$CONF" ]]; then
    as_root cp "$CONF" "$CONF.mcpcost-backup" || true
    say "existing $CONF saved as $CONF.mcpcost-backup"
  fi
  say "writing $CONF"
  as_root mkdir -p /etc/containers || finish no "cannot create /etc/containers"
  printf '%s\n' "$WANT" | as_root tee "$CONF.tmp" >/dev/null && as_root mv "$CONF.tmp" "$CONF" \
    || finish no "cannot write $CONF"
fi

podman info >/dev/null 2>&1 || finish no "podman info fails: $(podman info 2>&1 | tail -n 1)"

# 3. base image
if [[ "$REBUILD" == 1 ]]; then podman image rm -f "$IMAGE" >/dev/null 2>&1 || true; fi
if podman image exists "$IMAGE"; then
  say "$IMAGE already present"
else
  mirror=""
  if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
    mirror="$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources)"
  fi
  if [[ -z "$mirror" && -f /etc/apt/sources.list ]]; then
    mirror="$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list)"
  fi
  mirror="${mirror:-http://deb.debian.org/debian}"
  rootfs="$(mktemp -d /tmp/mcpcost-rootfs.XXXXXX)"
  trap 'as_root rm -rf "$rootfs"' EXIT
  say "debootstrap $SUITE from $mirror into $rootfs (about a minute)"
  # nodejs/npm are added in a second step: debootstrap cannot configure npm's dependency tree.
  as_root debootstrap --variant=minbase --include=python3,python3-venv,git,ca-certificates \
    "$SUITE" "$rootfs" "$mirror" >&2 || finish no "debootstrap failed"
  stage="$IMAGE-stage1"
  say "importing $stage"
  as_root tar -C "$rootfs" -c . | podman import --change 'CMD ["/bin/bash"]' - "$stage" >&2 \
    || finish no "podman import failed"
  say "installing nodejs and npm into the image (network: host)"
  podman rm -f mcpcost-base-build >/dev/null 2>&1 || true
  podman run --network host --name mcpcost-base-build "$stage" sh -c \
    'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm && apt-get clean && rm -rf /var/lib/apt/lists/*' >&2 \
    || { podman rm -f mcpcost-base-build >/dev/null 2>&1; finish no "installing nodejs/npm in the image failed"; }
  podman commit --change 'CMD ["/bin/bash"]' mcpcost-base-build "$IMAGE" >&2 \
    || finish no "podman commit failed"
  podman rm -f mcpcost-base-build >/dev/null 2>&1 || true
  podman image rm "$stage" >/dev/null 2>&1 || true
fi

# 4. smoke run
out="$(podman run --rm "$IMAGE" sh -c 'python3 --version && node --version' 2>&1)" \
  || finish no "a container did not run: $(echo "$out" | tail -n 1)"
say "container ran: $(echo "$out" | tr '\n' ' ')"
finish ready
