"""Registry entries (the official registry's schema) for the real MCP server packages pinned
under tests/servers, and the ``npx``/``uvx`` shims that launch them offline.

- ``item(name, **server)``, ``npm(identifier, version, **more)``, ``pypi(...)``: one entry of a
  registry page (``{server, _meta}``) and one ``packages[]`` item.
- ``pinned_entries(count)``: ``count`` active entries, one per pinned real server that starts with
  no credentials and no network (the npm and PyPI servers of ``registry.REAL_STDIO_SERVERS``),
  each launched with the arguments its ``real_server_argv`` has; past the distinct ones the list
  starts again under other names (``<name>-repeat-2``, ...), so a bench can reach a few dozen.
- ``write_shims(bindir, log)``: ``npx`` and ``uvx`` for a PATH that resolve ``pkg@version`` /
  ``pkg==version`` to the local install under tests/servers (no network, no package cache), and
  refuse a version that is not the installed one, as a registry would for a version it does not
  have, so a launch that dropped or changed the pin fails. Each launch is appended to ``log`` as
  a JSON list (the launcher's name, then its arguments). Both exec the server (same process), so
  stopping the launch stops the server.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.servers.registry import (
    NODE_MODULES,
    PY_VENV,
    REAL_STDIO_SERVERS,
    node_binary,
    real_server_missing,
    real_server_package,
)

OFFICIAL = "io.modelcontextprotocol.registry/official"
ENTRY_NAME = "io.github.modelcontextprotocol/{name}"
REPEAT = "{name}-repeat-{round}"

NPX_SHIM = """#!{python}
import json, os, sys
log = open({log!r}, "a"); log.write(json.dumps(["npx", *sys.argv[1:]]) + "\\n"); log.close()
args = sys.argv[1:]
if args[:1] != ["-y"]:
    sys.exit("npx shim: expected -y")
spec, rest = args[1], args[2:]
at = spec.rfind("@")
name, version = (spec[:at], spec[at + 1:]) if at > 0 else (spec, None)
try:
    meta = json.load(open(os.path.join({modules!r}, name, "package.json")))
except OSError:
    sys.exit("npm error 404 Not Found: " + name + " (offline store)")
if version is not None and meta["version"] != version:
    sys.exit("npm error notarget No matching version found for " + spec)
entry = meta["bin"] if isinstance(meta["bin"], str) else next(iter(meta["bin"].values()))
os.execv({node!r}, [{node!r}, os.path.join({modules!r}, name, entry), *rest])
"""

UVX_SHIM = """#!{python}
import importlib.metadata, json, os, sys
log = open({log!r}, "a"); log.write(json.dumps(["uvx", *sys.argv[1:]]) + "\\n"); log.close()
spec, rest = sys.argv[1], sys.argv[2:]
name, _, version = spec.partition("==")
try:
    installed = importlib.metadata.version(name)
except importlib.metadata.PackageNotFoundError:
    sys.exit("No solution found: " + name + " is not in the offline store")
if version and installed != version:
    sys.exit("No solution found: " + spec + " (offline store has " + installed + ")")
os.execv(os.path.join({bindir!r}, name), [name, *rest])
"""


@functools.cache
def installed_npm(package: str) -> str:
    meta = json.loads((NODE_MODULES / package / "package.json").read_text())
    return str(meta["version"])


@functools.cache
def installed_pypi(package: str) -> str:
    code = f"import importlib.metadata as m; print(m.version({package!r}))"
    done = subprocess.run(
        [str(PY_VENV / "bin" / "python"), "-c", code], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def write_shims(bindir: Path, log: Path) -> None:
    """``npx`` and ``uvx`` in ``bindir`` (created), logging each launch to ``log``."""
    bindir.mkdir()
    node = node_binary()
    assert node is not None
    npx = NPX_SHIM.format(python=sys.executable, log=str(log), modules=str(NODE_MODULES), node=node)
    uvx = UVX_SHIM.format(
        python=str(PY_VENV / "bin" / "python"), log=str(log), bindir=str(PY_VENV / "bin")
    )
    for name, text in (("npx", npx), ("uvx", uvx)):
        path = bindir / name
        path.write_text(text)
        path.chmod(0o755)


def item(name: str, *, status: str = "active", **server: Any) -> dict[str, Any]:
    return {
        "server": {
            "name": name,
            "description": f"{name} (test entry)",
            "version": "1.0.0",
            **server,
        },
        "_meta": {OFFICIAL: {"status": status, "isLatest": True}},
    }


def npm(identifier: str, version: str, **more: Any) -> dict[str, Any]:
    return {
        "registryType": "npm",
        "identifier": identifier,
        "version": version,
        "transport": {"type": "stdio"},
        **more,
    }


def pypi(identifier: str, version: str, **more: Any) -> dict[str, Any]:
    return {
        "registryType": "pypi",
        "identifier": identifier,
        "version": version,
        "transport": {"type": "stdio"},
        **more,
    }


def package_arguments(words: tuple[str, ...]) -> list[dict[str, Any]]:
    """``packageArguments`` that give back ``words``: ``--name value`` as a named argument,
    anything else as a positional one."""
    out: list[dict[str, Any]] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word.startswith("--") and index + 1 < len(words):
            out.append({"type": "named", "name": word, "value": words[index + 1]})
            index += 2
        else:
            out.append({"type": "positional", "value": word})
            index += 1
    return out


@dataclass(frozen=True)
class PinnedEntry:
    """One entry of ``pinned_entries``: the registry item, the launch it implies, and which
    distinct server it is (``repeat`` 1 for the first entry of a server, 2 and up after)."""

    server: str
    repeat: int
    item: dict[str, Any]
    argv: tuple[str, ...]


def pinned_servers() -> list[str]:
    """The pinned real stdio servers installed here, in ``REAL_STDIO_SERVERS`` order."""
    return [name for name in REAL_STDIO_SERVERS if real_server_missing(name) is None]


def pinned_entries(count: int) -> list[PinnedEntry]:
    """``count`` entries over the installed pinned servers, repeating them past the first round."""
    servers = pinned_servers()
    if not servers:
        raise LookupError("no pinned real server is installed (run scripts/setup-test-env.sh)")
    entries: list[PinnedEntry] = []
    for index in range(count):
        server = servers[index % len(servers)]
        repeat = index // len(servers) + 1
        kind, identifier, words = real_server_package(server)
        if kind == "npm":
            version = installed_npm(identifier)
            launch = ("npx", "-y", f"{identifier}@{version}", *words)
            package = npm(identifier, version)
        else:
            version = installed_pypi(identifier)
            launch = ("uvx", f"{identifier}=={version}", *words)
            package = pypi(identifier, version)
        if words:
            package["packageArguments"] = package_arguments(words)
        short = server if repeat == 1 else REPEAT.format(name=server, round=repeat)
        entries.append(
            PinnedEntry(
                server, repeat, item(ENTRY_NAME.format(name=short), packages=[package]), launch
            )
        )
    return entries
