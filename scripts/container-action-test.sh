#!/usr/bin/env bash
# Build the Action's Dockerfile with podman on the prebuilt runtime and run it the way the runner
# runs a container action: workspace, event file and file-command directories mounted, INPUT_*
# set, workdir /github/workspace. Usage:
#   scripts/container-action-test.sh RUNNER_DIR
# RUNNER_DIR holds workspace/ (a git repo), workflow/event.json, file_commands/ and env.list
# (one NAME=value per line, container paths). The build's log is written to RUNNER_DIR/build.log.
# The base defaults to the prebuilt image of this checkout (scripts/setup-podman.sh builds it),
# so the build installs nothing and only copies the code. MCPCOST_RUN_IMAGE names an image that
# is already built (e.g. the last line of scripts/build-image.sh) to run as it is, without a build.
# Exits with the container's status (3 when the base image is missing, 4 when the build fails).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runner=${1:?usage: $0 RUNNER_DIR}
run_container() {
  exec podman run --rm --network host \
    --workdir /github/workspace \
    -v "$runner/workspace:/github/workspace" \
    -v "$runner/workflow:/github/workflow" \
    -v "$runner/file_commands:/github/file_commands" \
    -v "$runner/home:/github/home" \
    ${MCPCOST_EXTRA_MOUNT:+-v "$MCPCOST_EXTRA_MOUNT"} \
    --env-file "$runner/env.list" \
    "$1"
}
if [[ -n "${MCPCOST_RUN_IMAGE:-}" ]]; then
  podman image exists "$MCPCOST_RUN_IMAGE" || { echo "image $MCPCOST_RUN_IMAGE is missing" >&2; exit 3; }
  run_container "$MCPCOST_RUN_IMAGE"
fi
base=${MCPCOST_BASE_IMAGE:-$(bash "$here/scripts/setup-podman.sh" --print-prebuilt)}
image=${MCPCOST_ACTION_IMAGE:-localhost/mcpcost-action:test}
podman image exists "$base" || { echo "base image $base is missing (scripts/setup-podman.sh)" >&2; exit 3; }
old_id=$(podman image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
if ! podman build --network host -v /etc/ssl/certs:/etc/ssl/certs:ro \
    --build-arg BASE="$base" -t "$image" "$here" >"$runner/build.log" 2>&1; then
  tail -n 30 "$runner/build.log" >&2
  exit 4
fi
new_id=$(podman image inspect --format '{{.Id}}' "$image")
# The previous build of this tag is now untagged: remove it rather than let copies pile up.
if [[ -n "$old_id" && "$old_id" != "$new_id" ]]; then
  podman image rm "$old_id" >/dev/null 2>&1 || true
fi
run_container "$image"
