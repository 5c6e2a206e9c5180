#!/usr/bin/env bash
# Build the Action's Dockerfile with podman from a local base image and run it the way the runner
# runs a container action: workspace, event file and file-command directories mounted, INPUT_*
# set, workdir /github/workspace. Usage:
#   scripts/container-action-test.sh RUNNER_DIR
# RUNNER_DIR holds workspace/ (a git repo), workflow/event.json, file_commands/ and env.list
# (one NAME=value per line, container paths). Exits with the container's status.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
runner=${1:?usage: $0 RUNNER_DIR}
base=${MCPCOST_BASE_IMAGE:-localhost/mcpcost-base:bookworm}
image=${MCPCOST_ACTION_IMAGE:-localhost/mcpcost-action:test}
podman image exists "$base" || { echo "base image $base is missing (scripts/setup-podman.sh)" >&2; exit 3; }
podman build -q --network host -v /etc/ssl/certs:/etc/ssl/certs:ro \
  --build-arg BASE="$base" -t "$image" "$here" >/dev/null
exec podman run --rm --network host \
  --workdir /github/workspace \
  -v "$runner/workspace:/github/workspace" \
  -v "$runner/workflow:/github/workflow" \
  -v "$runner/file_commands:/github/file_commands" \
  -v "$runner/home:/github/home" \
  ${MCPCOST_EXTRA_MOUNT:+-v "$MCPCOST_EXTRA_MOUNT"} \
  --env-file "$runner/env.list" \
  "$image"
