#!/bin/sh
# Install the Action image's runtime: git, Node.js/npm (for npx servers), uv (for uvx servers)
# and the Python dependencies named in pyproject.toml's [project].dependencies, read at build
# time with tomllib so the list lives in one place. Each step is skipped when the image already
# has it, so building on a prebuilt base (Dockerfile.base) copies nothing but the code.
# Usage (in a Dockerfile): sh image-deps.sh /path/to/pyproject.toml
set -eu
pyproject=${1:?usage: image-deps.sh PYPROJECT}
PY=$(command -v python3)

if ! command -v node >/dev/null || ! command -v npm >/dev/null || ! command -v git >/dev/null; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    nodejs npm git ca-certificates
  rm -rf /var/lib/apt/lists/*
fi
if ! "$PY" -m pip --version >/dev/null 2>&1; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-pip
  rm -rf /var/lib/apt/lists/*
fi

requirements=$(mktemp)
"$PY" - "$pyproject" > "$requirements" <<'PYEOF'
import sys
import tomllib

with open(sys.argv[1], "rb") as handle:
    project = tomllib.load(handle)["project"]
for requirement in project.get("dependencies", []):
    print(requirement)
print("uv")  # not a library dependency: it starts uvx servers
PYEOF

pip_install() {
  # Debian's python refuses system-wide installs without --break-system-packages; images with
  # their own python (python:*-slim) accept either form.
  "$PY" -m pip install --no-cache-dir --break-system-packages "$@" 2>/dev/null \
    || "$PY" -m pip install --no-cache-dir "$@"
}
# Already satisfied (a prebuilt base): nothing to fetch. Otherwise install from the index.
pip_install --no-index -r "$requirements" >/dev/null 2>&1 || pip_install -r "$requirements"
rm -f "$requirements"
git config --system --add safe.directory '*'
