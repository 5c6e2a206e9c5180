#!/usr/bin/env bash
# Create a Python virtual environment at DIR with `python3 -m venv`, unless one is already there.
# Debian ships ensurepip separately (python3-venv, python3.X-venv): when venv creation fails and
# we are root with apt-get, that package is installed and creation retried.
# Usage: scripts/make-venv.sh DIR
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: scripts/make-venv.sh DIR" >&2
  exit 2
fi
venv="$1"
say() { echo "make-venv: $*" >&2; }

if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" -c 'import sys; sys.exit(sys.prefix == sys.base_prefix)'; then
  exit 0
fi
py="$(command -v python3 || true)"
if [[ -z "$py" ]]; then
  say "python3 is not installed"
  exit 1
fi
say "creating $venv"
rm -rf "$venv"
if "$py" -m venv "$venv" >&2; then
  exit 0
fi
rm -rf "$venv"
if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
  pkg="python3-venv python$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')-venv"
  say "venv failed; installing $pkg"
  apt-get update -qq >&2 || true
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $pkg >&2 \
    || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2 || true
fi
if ! "$py" -m venv "$venv" >&2; then
  rm -rf "$venv"
  say "venv failed; install python3-venv (apt-get install -y python3-venv)"
  exit 1
fi
