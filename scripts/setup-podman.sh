#!/usr/bin/env bash
# Make real containers available to the tests and the image build: podman (runc runtime) and
# three local images.
#
#   1. apt-get install podman runc debootstrap uidmap (only the missing ones; needs root)
#   2. /etc/containers/containers.conf: runtime runc, ulimits within this machine's hard limits
#   3. localhost/mcpcost-debian:bookworm, a plain Debian: debootstrap minbase with
#      ca-certificates, imported (skipped when `podman image exists`). The stand-in for
#      debian:bookworm-slim, which cannot be pulled here; scripts/build-image.sh builds the
#      Action's Dockerfile on it.
#   4. localhost/mcpcost-base:bookworm: (3) with python3, python3-venv, nodejs, npm and git from
#      Debian, the image the container tests run servers in (skipped when it exists)
#   5. localhost/mcpcost-prebuilt:<key>: Dockerfile.base on (3), i.e. the Action image's runtime
#      (scripts/image-deps.sh). <key> is the first 12 hex digits of the sha256 of
#      pyproject.toml + Dockerfile.base + scripts/image-deps.sh (concatenated), so a
#      dependency change builds a new one; it is also rebuilt when (3) changed (label
#      mcpcost.base-id). Older localhost/mcpcost-prebuilt tags are removed.
#   6. a smoke run of (4)
#
# Prints the time each step took on stderr, then one last line on stdout: "podman: ready ..."
# or "podman: not ready: <why>". Exit 0 either way, unless --require is given (then 1 when not
# ready). --print-prebuilt prints the prebuilt image's tag for this checkout and exits.
# --plain-base stops after (3) and prints its tag as the last line (exit 1 when it failed).
# MCPCOST_BASE_IMAGE / MCPCOST_PLAIN_IMAGE / MCPCOST_PREBUILT_REPO override the image names.
# The Docker-compatible API for the docker SDK is started by the tests themselves
# (tests/servers/podman.py), or by hand:
#   podman system service --time=0 unix:///tmp/mcpcost-podman.sock &
# Usage: scripts/setup-podman.sh [--require] [--no-install] [--rebuild] [--print-prebuilt]
#                                [--plain-base]
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
IMAGE="${MCPCOST_BASE_IMAGE:-localhost/mcpcost-base:bookworm}"
PLAIN="${MCPCOST_PLAIN_IMAGE:-localhost/mcpcost-debian:bookworm}"
PREBUILT_REPO="${MCPCOST_PREBUILT_REPO:-localhost/mcpcost-prebuilt}"
SUITE="bookworm"
REQUIRE=0
INSTALL=1
REBUILD=0
PLAIN_ONLY=0
for arg in "$@"; do
  case "$arg" in
    --require) REQUIRE=1 ;;
    --no-install) INSTALL=0 ;;
    --rebuild) REBUILD=1 ;;
    --print-prebuilt) ;;
    --plain-base) PLAIN_ONLY=1; REQUIRE=1 ;;
    -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
    *) echo "setup-podman: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

# The prebuilt image's key: what Dockerfile.base's build reads (tests/servers/podman.py agrees).
KEY="$(cat "$ROOT/pyproject.toml" "$ROOT/Dockerfile.base" "$ROOT/scripts/image-deps.sh" \
  | sha256sum | cut -c1-12)"
PREBUILT="$PREBUILT_REPO:$KEY"
for arg in "$@"; do
  if [[ "$arg" == --print-prebuilt ]]; then echo "$PREBUILT"; exit 0; fi
done

say() { echo "setup-podman: $*" >&2; }

# Step timings: "name seconds" pairs, printed by finish.
TIMINGS=()
T_ALL=$EPOCHREALTIME
T_STEP=$EPOCHREALTIME
step_done() {
  local now=$EPOCHREALTIME
  TIMINGS+=("$1 $(awk -v a="$T_STEP" -v b="$now" 'BEGIN{printf "%.1f", b-a}')")
  T_STEP=$now
}
report_timings() {
  local total
  total=$(awk -v a="$T_ALL" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}')
  say "timings (s): ${TIMINGS[*]/%/,} total $total"
}

finish() {
  report_timings
  if [[ "$1" == ready && "$PLAIN_ONLY" == 1 ]]; then
    echo "$PLAIN"
    exit 0
  fi
  if [[ "$1" == ready ]]; then
    echo "podman: ready ($IMAGE, $PREBUILT, $(podman --version 2>/dev/null))"
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
step_done packages

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
step_done config

# 3. plain Debian
if [[ "$REBUILD" == 1 ]]; then
  podman image rm -f "$IMAGE" "$PREBUILT" "$PLAIN" >/dev/null 2>&1 || true
fi
if podman image exists "$PLAIN"; then
  say "$PLAIN already present"
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
  # ca-certificates now: installing it later, in a build that mounts the host's certificate
  # directory read-only, fails.
  as_root debootstrap --variant=minbase --include=ca-certificates \
    "$SUITE" "$rootfs" "$mirror" >&2 || finish no "debootstrap failed"
  # Slim like debian:bookworm-slim: no package caches, documentation (but the copyrights),
  # manual pages or translations. (The Action's image-deps.sh tells dpkg to skip them in the
  # packages it installs.)
  as_root rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
    "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/*
  as_root find "$rootfs/usr/share/doc" -type f ! -name copyright -delete
  say "importing $PLAIN"
  as_root tar -C "$rootfs" -c . | podman import --change 'CMD ["/bin/bash"]' - "$PLAIN" >&2 \
    || finish no "podman import failed"
  as_root rm -rf "$rootfs"
fi
step_done plain-image
if [[ "$PLAIN_ONLY" == 1 ]]; then finish ready; fi

# 4. base image for the container tests
if podman image exists "$IMAGE"; then
  say "$IMAGE already present"
else
  say "installing python3, git, nodejs and npm into $IMAGE (network: host)"
  builder="mcpcost-base-build-$$"
  podman run --network host --name "$builder" "$PLAIN" sh -c \
    'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 python3-venv git nodejs npm && apt-get clean && rm -rf /var/lib/apt/lists/*' >&2 \
    || { podman rm -f "$builder" >/dev/null 2>&1; finish no "installing packages in the image failed"; }
  podman commit --change 'CMD ["/bin/bash"]' "$builder" "$IMAGE" >&2 \
    || { podman rm -f "$builder" >/dev/null 2>&1; finish no "podman commit failed"; }
  podman rm -f "$builder" >/dev/null 2>&1 || true
fi
step_done base-image

# 5. prebuilt image: the Action's runtime installed once per dependency change
base_id="$(podman image inspect --format '{{.Id}}' "$PLAIN" 2>/dev/null)"
have_base_id=""
if podman image exists "$PREBUILT"; then
  have_base_id="$(podman image inspect --format '{{index .Labels "mcpcost.base-id"}}' "$PREBUILT" 2>/dev/null)"
fi
if [[ -n "$have_base_id" && "$have_base_id" == "$base_id" ]]; then
  say "$PREBUILT already present"
else
  say "building $PREBUILT from Dockerfile.base on $PLAIN (downloads the runtime)"
  log="$(mktemp /tmp/mcpcost-prebuilt-build.XXXXXX)"
  if ! podman build --network host -v /etc/ssl/certs:/etc/ssl/certs:ro \
      -f "$ROOT/Dockerfile.base" --build-arg "BASE=$PLAIN" \
      --label "mcpcost.deps-key=$KEY" --label "mcpcost.base-id=$base_id" \
      -t "$PREBUILT" "$ROOT" >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    rm -f "$log"
    finish no "building $PREBUILT failed"
  fi
  rm -f "$log"
fi
# Tags built for other dependency keys are dead weight (hundreds of MB each): drop them.
while read -r ref; do
  [[ -z "$ref" || "$ref" == "$PREBUILT" ]] && continue
  say "removing stale $ref"
  podman image rm "$ref" >/dev/null 2>&1 || say "could not remove $ref (in use?)"
done < <(podman images --format '{{.Repository}}:{{.Tag}}' --filter "reference=$PREBUILT_REPO" 2>/dev/null)
step_done prebuilt-image

# 6. smoke run
out="$(podman run --rm "$IMAGE" sh -c 'python3 --version && node --version' 2>&1)" \
  || finish no "a container did not run: $(echo "$out" | tail -n 1)"
say "container ran: $(echo "$out" | tr '\n' ' ')"
step_done smoke-run
finish ready
