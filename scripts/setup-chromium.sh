#!/usr/bin/env bash
# Install Debian's chromium for the dashboard screenshot test (scripts/dashboard_screenshot.py).
# Idempotent; needs root (or passwordless sudo). Prints "chromium: ready <version>" or
# "chromium: not ready: <why>"; exits 0 either way unless --require is given.
set -uo pipefail
REQUIRE=0
[[ "${1:-}" == "--require" ]] && REQUIRE=1
as_root() { if [[ "$(id -u)" == 0 ]]; then "$@"; else sudo -n "$@"; fi; }
if ! command -v chromium >/dev/null 2>&1; then
  as_root apt-get update -qq >&2 \
    && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2
fi
if command -v chromium >/dev/null 2>&1; then
  echo "chromium: ready $(chromium --version 2>/dev/null | head -n 1)"
  exit 0
fi
echo "chromium: not ready: apt-get install chromium failed"
exit "$REQUIRE"
