"""Local stdio servers: spawn the exact argv (no shell) as a process tree of its own.

Starting, stopping and watching the tree belong to the platform layer
(``runtime.processes``): on Linux and macOS the server gets a new session, so on close the
whole group (``npx`` and the node it starts, ``uvx`` and its python, anything they fork)
receives SIGTERM, then SIGKILL after a grace period; on Windows the tree is a Job Object. The
line framing itself lives in ``transports.framing`` so it can run over other byte streams too.

The environment is a small safe base taken from ours (``safe_base_env``) plus the spec's env; the
working directory is the spec's ``cwd``. The base is what a server needs to start as it would
from the user's shell: the path, home, user, locale, time zone and temporary directories, and the
variables that configure package managers, certificates and proxies (``PASSTHROUGH_NAMES`` and
``PASSTHROUGH_PREFIXES``, documented in docs/PLATFORMS.md). Anything else reaches a server only
when its config names it. Values are passed through, never printed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from mcpcost.core.spec import ServerSpec, TransportName
from mcpcost.runtime.processes import (
    ProcessPlatform,
    StartRefused,
    current_platform,
    start_tree,
    stop_tree,
)
from mcpcost.runtime.processes.posix import PosixPlatform
from mcpcost.transports.failures import SpawnFailed
from mcpcost.transports.framing import LineTransport

TERM_GRACE_S = 2.0

_BASE_NAMES = (
    *("PATH", "HOME", "USER", "LOGNAME", "LANG", "TZ", "TMPDIR", "TMP", "TEMP"),
    *("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"),
)
_WINDOWS_NAMES = (
    *("SYSTEMROOT", "SystemRoot", "APPDATA", "LOCALAPPDATA", "USERPROFILE", "PATHEXT"),
    *("COMSPEC", "WINDIR"),
)
# Package managers, certificates and proxies: how the user's shell configures fetching a server.
PASSTHROUGH_NAMES = (
    *("all_proxy", "ALL_PROXY"),
    *("NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE"),
    *("CURL_CA_BUNDLE", "GIT_SSL_CAINFO", "GIT_SSL_CAPATH"),
)
PASSTHROUGH_PREFIXES = ("NPM_CONFIG_", "PNPM_", "YARN_", "BUN_", "UV_", "PIP_", "XDG_")
CASE_INSENSITIVE_PREFIXES = ("NPM_CONFIG_",)  # npm reads npm_config_* in any case


def passes_through(name: str) -> bool:
    """True for a variable that configures package managers, certificates, proxies or XDG dirs."""
    if name in PASSTHROUGH_NAMES or name.startswith(PASSTHROUGH_PREFIXES):
        return True
    return name.upper().startswith(CASE_INSENSITIVE_PREFIXES)


def safe_base_env(environ: Mapping[str, str], *, windows: bool = False) -> dict[str, str]:
    """The variables a server may inherit from us: path, home, user, locale, TZ, temp, proxies,
    and the package-manager, certificate and XDG configuration (see ``passes_through``)."""
    names = _BASE_NAMES + (_WINDOWS_NAMES if windows else ())
    out = {k: environ[k] for k in names if k in environ}
    out.update({k: v for k, v in environ.items() if k.startswith("LC_") or passes_through(k)})
    return out


def server_env(spec: ServerSpec, environ: Mapping[str, str]) -> dict[str, str]:
    """The full environment for a spec: the safe base, then the spec's own variables."""
    env = safe_base_env(environ, windows=sys.platform == "win32")
    env.update(dict(spec.env))
    return env


def group_alive(pgid: int) -> bool:
    """POSIX: true while any process of the group exists (zombies count as gone)."""
    platform = current_platform()
    if not isinstance(platform, PosixPlatform):
        raise NotImplementedError("process groups are a POSIX notion; use ProcessPlatform.alive")
    return platform.group_alive(pgid)


def spawn_stdio(
    spec: ServerSpec,
    *,
    environ: Mapping[str, str] | None = None,
    grace_s: float = TERM_GRACE_S,
    max_line_bytes: int | None = None,
    platform: ProcessPlatform | None = None,
) -> LineTransport:
    """Start the spec's argv and return the line transport over its pipes."""
    if not spec.argv:
        raise SpawnFailed("spawn failed: no command to run")
    env = server_env(spec, os.environ if environ is None else environ)
    where = platform or current_platform()
    try:
        tree = start_tree(where, spec.argv, env=env, cwd=spec.cwd)
    except StartRefused as exc:
        raise SpawnFailed(f"spawn failed: {exc}") from None
    except (OSError, ValueError) as exc:
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise SpawnFailed(f"spawn failed: {spec.argv[0]}: {detail}") from None
    extra = {} if max_line_bytes is None else {"max_line_bytes": max_line_bytes}
    return LineTransport(
        tree.stdout,
        tree.stdin,
        tree.stderr,
        terminate=lambda: stop_tree(tree, grace_s),
        exit_code=tree.exit_code,
        pgid=tree.group,
        kind=TransportName.STDIO,
        **extra,
    )
