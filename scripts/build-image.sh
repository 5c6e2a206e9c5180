#!/usr/bin/env bash
# Build the Action's image here with podman by the recipe the release uses: the same Dockerfile
# (and scripts/image-deps.sh in it) on a plain Debian bookworm. GitHub's release starts from
# debian:bookworm-slim; here, where no image can be pulled, the base is the debootstrap image
# scripts/setup-podman.sh --plain-base makes (and caches).
# Progress and the build log go to stderr; the last line on stdout is the image reference.
# Usage: scripts/build-image.sh [TAG]   (default localhost/mcp-context-cost-action:dev)
# Exit 1 when the plain base cannot be made, 4 when the build fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tag=${1:-localhost/mcp-context-cost-action:dev}
plain=$(bash "$root/scripts/setup-podman.sh" --plain-base | tail -n 1)
if ! podman image exists "$plain" 2>/dev/null; then
  echo "build-image: no plain Debian base: $plain" >&2
  exit 1
fi
# --network host and the host's certificate directory: the build's apt and pip reach the
# package indexes the way this machine does (it may sit behind a TLS-inspecting proxy).
old_id=$(podman image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)
if ! podman build --network host -v /etc/ssl/certs:/etc/ssl/certs:ro \
    --build-arg BASE="$plain" -t "$tag" "$root" >&2; then
  echo "build-image: podman build failed" >&2
  exit 4
fi
# The previous build of this tag is now untagged: remove it rather than let copies pile up.
new_id=$(podman image inspect --format '{{.Id}}' "$tag")
if [[ -n "$old_id" && "$old_id" != "$new_id" ]]; then
  podman image rm "$old_id" >/dev/null 2>&1 || true
fi
echo "build-image: $tag is $(podman image inspect --format '{{.Size}}' "$tag") bytes" >&2
echo "$tag"
