"""``mcpcost sweep --registry`` over a loopback registry of real package entries (the reference
servers by their npm and PyPI names and the versions installed under tests/servers) and remote
entries (loopback MCP servers): every status produced by at least one entry, and each package's
number equal to measuring the same package directly with ``mcpcost measure``.

The sweep runs ``npx``/``uvx`` as the registry asks; a PATH shim the test writes
(``package_entries.write_shims``) resolves ``pkg@version`` / ``pkg==version`` to the local
install, offline, and refuses a version that is not the installed one (as a registry would for a
version it does not have), so a launch that dropped or changed the pin fails here. Nothing
leaves loopback.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.servers.package_entries import installed_npm, installed_pypi, item, npm, write_shims
from tests.servers.registry import (
    FIXTURES_DIR,
    real_server_argv,
    real_server_missing,
    serve_http_fixture,
)

MEMORY = "@modelcontextprotocol/server-memory"
THINKING = "@modelcontextprotocol/server-sequential-thinking"
FILESYSTEM = "@modelcontextprotocol/server-filesystem"
EVERYTHING = "@modelcontextprotocol/server-everything"
TIME = "mcp-server-time"
PAGE_SIZE = 4


@contextmanager
def loopback_registry(items: list[dict[str, Any]]) -> Iterator[tuple[str, list[str]]]:
    """``/v0.1/servers`` (and ``/v0/servers``) in pages of PAGE_SIZE through nextCursor."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            url = urlsplit(self.path)
            seen.append(self.path)
            if url.path not in ("/v0.1/servers", "/v0/servers"):
                self.send_error(404)
                return
            cursor = parse_qs(url.query).get("cursor", ["0"])[0]
            start = int(cursor)
            page: dict[str, Any] = {"servers": items[start : start + PAGE_SIZE]}
            page["metadata"] = {"count": len(page["servers"])}
            if start + PAGE_SIZE < len(items):
                page["metadata"]["nextCursor"] = str(start + PAGE_SIZE)
            body = json.dumps(page).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port: int = s.getsockname()[1]
    s.close()
    return port


def mcpcost(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpcost", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def measured_directly(argv: list[str], env: dict[str, str], *extra: str) -> dict[str, Any]:
    done = mcpcost("measure", "--json", "--timeout", "30", *extra, "--", *argv, env=env)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert isinstance(doc, dict)
    return doc


@pytest.mark.slow
def test_registry_sweep_gives_every_entry_a_status_and_packages_their_direct_numbers(
    tmp_path: Path,
) -> None:
    for name in ("memory", "sequential-thinking", "filesystem", "everything", "time"):
        missing = real_server_missing(name)
        if missing is not None:
            pytest.skip(missing)
    npm_version = installed_npm(MEMORY)
    time_version = installed_pypi(TIME)
    log = tmp_path / "launches.jsonl"
    write_shims(tmp_path / "bin", log)
    env = dict(os.environ)
    env["PATH"] = f"{tmp_path / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    out = tmp_path / "site"
    with ExitStack() as stack:
        ok_url = stack.enter_context(serve_http_fixture("streamable-json"))
        oauth_url = stack.enter_context(serve_http_fixture("auth-401-metadata"))
        bare_url = stack.enter_context(serve_http_fixture("auth-401-bare"))
        gone_url = stack.enter_context(serve_http_fixture("html-404"))
        hang_url = stack.enter_context(serve_http_fixture("hang"))
        dead_url = f"http://127.0.0.1:{closed_port()}/mcp"
        items = [
            item("io.github.modelcontextprotocol/memory", packages=[npm(MEMORY, npm_version)]),
            item(
                "io.github.modelcontextprotocol/sequential-thinking",
                packages=[
                    npm(
                        THINKING,
                        installed_npm(THINKING),
                        environmentVariables=[
                            {"name": "THINKING_API_KEY", "isRequired": True, "isSecret": True},
                            {"name": "DISABLE_THOUGHT_LOGGING", "default": "true"},
                        ],
                    )
                ],
            ),
            item(
                "io.github.modelcontextprotocol/filesystem",
                packages=[
                    npm(
                        FILESYSTEM,
                        installed_npm(FILESYSTEM),
                        packageArguments=[
                            {"type": "positional", "valueHint": "dir", "default": str(FIXTURES_DIR)}
                        ],
                    )
                ],
            ),
            item(
                "io.github.modelcontextprotocol/everything",
                packages=[
                    npm(
                        EVERYTHING,
                        installed_npm(EVERYTHING),
                        packageArguments=[{"type": "positional", "value": "stdio"}],
                    )
                ],
            ),
            item(
                "io.github.modelcontextprotocol/time",
                packages=[
                    {
                        "registryType": "pypi",
                        "identifier": TIME,
                        "version": time_version,
                        "packageArguments": [
                            {"type": "named", "name": "--local-timezone", "value": "UTC"}
                        ],
                    }
                ],
            ),
            item(
                "io.github.example/time-misconfigured",
                packages=[
                    {
                        "registryType": "pypi",
                        "identifier": TIME,
                        "version": time_version,
                        "packageArguments": [
                            {"type": "named", "name": "--local-timezone", "value": "Not/AZone"}
                        ],
                    }
                ],
            ),
            item(
                "io.github.example/files-anywhere",
                packages=[
                    npm(
                        FILESYSTEM,
                        installed_npm(FILESYSTEM),
                        packageArguments=[
                            {"type": "positional", "valueHint": "allowed_dir", "isRequired": True}
                        ],
                    )
                ],
            ),
            item(
                "io.github.example/retired",
                status="deprecated",
                packages=[npm(MEMORY, npm_version)],
            ),
            item(
                "io.github.example/dotnet",
                packages=[{"registryType": "nuget", "identifier": "Example.Mcp", "version": "1"}],
            ),
            item("io.github.example/remote", remotes=[{"type": "streamable-http", "url": ok_url}]),
            item(
                "io.github.example/oauth", remotes=[{"type": "streamable-http", "url": oauth_url}]
            ),
            item(
                "io.github.example/keyless", remotes=[{"type": "streamable-http", "url": bare_url}]
            ),
            item("io.github.example/moved", remotes=[{"type": "streamable-http", "url": gone_url}]),
            item(
                "io.github.example/asleep", remotes=[{"type": "streamable-http", "url": hang_url}]
            ),
            item("io.github.example/dead", remotes=[{"type": "streamable-http", "url": dead_url}]),
        ]
        base, seen = stack.enter_context(loopback_registry(items))
        done = mcpcost(
            "sweep",
            "--registry",
            base,
            "--allow-private-addresses",
            "--out",
            str(out),
            "--timeout",
            "8",
            "--concurrency",
            "4",
            env=env,
        )
    assert done.returncode == 0, done.stderr
    assert len(seen) == 4 and seen[-1].endswith("cursor=12")
    assert (
        "registry: 15 entries on 4 pages; 6 remote endpoints and 6 packages to measure; "
        "recorded without launching: 1 inactive, 1 needs-config, 1 other" in done.stderr
    )
    records: dict[str, dict[str, Any]] = {}
    for directory in sorted((out / "results").iterdir()):
        if directory.is_dir():
            records[directory.name] = json.loads((directory / "measurement.json").read_text())
    statuses = {name: r["status"] for name, r in records.items()}
    assert statuses == {
        "io.github.modelcontextprotocol-memory": "measured",
        "io.github.modelcontextprotocol-sequential-thinking": "measured",
        "io.github.modelcontextprotocol-filesystem": "measured",
        "io.github.modelcontextprotocol-everything": "measured",
        "io.github.modelcontextprotocol-time": "measured",
        "io.github.example-time-misconfigured": "startup-failure",
        "io.github.example-files-anywhere": "needs-config",
        "io.github.example-retired": "inactive",
        "io.github.example-dotnet": "other",
        "io.github.example-remote": "measured",
        "io.github.example-oauth": "remote-auth-wall",
        "io.github.example-keyless": "auth-required",
        "io.github.example-moved": "gone",
        "io.github.example-asleep": "timeout",
        "io.github.example-dead": "unreachable",
    }
    needs = records["io.github.example-files-anywhere"]["notes"]
    assert needs == (
        "needs packageArguments positional argument allowed_dir; no default to launch with"
    )
    # launched exactly as the registry asked: pinned, arguments in place; never the others
    launches = [json.loads(line) for line in log.read_text().splitlines()]
    expected = {
        ("npx", "-y", f"{MEMORY}@{npm_version}"),
        ("npx", "-y", f"{FILESYSTEM}@{installed_npm(FILESYSTEM)}", str(FIXTURES_DIR)),
        ("npx", "-y", f"{EVERYTHING}@{installed_npm(EVERYTHING)}", "stdio"),
        ("uvx", f"{TIME}=={time_version}", "--local-timezone", "UTC"),
        ("uvx", f"{TIME}=={time_version}", "--local-timezone", "Not/AZone"),
    }
    assert expected <= {tuple(a) for a in launches}
    assert not any("allowed_dir" in " ".join(a) for a in launches)
    assert sum(1 for a in launches if a[:3] == ["npx", "-y", f"{MEMORY}@{npm_version}"]) == 2

    # the numbers equal measuring the same packages directly
    def direct_argv(name: str) -> list[str]:
        argv = real_server_argv(name)
        assert argv is not None
        return argv

    direct = {
        f"io.github.modelcontextprotocol-{name}": measured_directly(direct_argv(name), env)
        for name in ("memory", "time", "everything", "filesystem")
    }
    direct["io.github.modelcontextprotocol-sequential-thinking"] = measured_directly(
        direct_argv("sequential-thinking"),
        env,
        "--env",
        "THINKING_API_KEY",
        "--env",
        "DISABLE_THOUGHT_LOGGING=true",
    )
    for name, doc in direct.items():
        swept = records[name]
        assert (swept["totalTokens"], swept["toolCount"], swept["canonicalSha256"]) == (
            doc["totalTokens"],
            doc["toolCount"],
            doc["canonicalSha256"],
        ), name
    thinking = records["io.github.modelcontextprotocol-sequential-thinking"]
    assert thinking["envVarNames"] == ["DISABLE_THOUGHT_LOGGING", "THINKING_API_KEY"]
    # the dataset: every entry, with its registry source and the coverage it adds up to
    data = json.loads((out / "results" / "data.json").read_text())
    assert data["entryCount"] == 15
    by_name = {e["name"]: e for e in data["entries"]}
    assert by_name["io.github.modelcontextprotocol-memory"]["source"] == {
        "kind": "registry",
        "name": "io.github.modelcontextprotocol/memory",
        "version": "1.0.0",
    }
    coverage = data["coverage"]
    assert coverage["measured"] == 6 and coverage["needs-config"] == 1
    for status in set(statuses.values()):
        assert coverage[status] >= 1
    board = (out / "results" / "leaderboard.md").read_text()
    assert "## Coverage" in board and "| unreachable | 1 |" in board
    # each record names its registry entry, so a publish without the registry keeps the sources
    assert records["io.github.example-dead"]["registryEntry"] == {
        "name": "io.github.example/dead",
        "version": "1.0.0",
    }
    (out / "results" / "data.json").unlink()
    again = subprocess.run(
        [sys.executable, "-m", "mcpcost", "publish", "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert again.returncode == 0, again.stderr
    republished = json.loads((out / "results" / "data.json").read_text())
    assert [e["source"] for e in republished["entries"]] == [e["source"] for e in data["entries"]]


# One line (a registry value may hold no control character): the tiny stdio server of the
# container tests, decoded and run by the image's python3.
OCI_SERVER = "import base64;exec(base64.b64decode({code!r}).decode())"


@pytest.mark.slow
@pytest.mark.podman
def test_an_oci_package_runs_as_the_registry_says_and_measures_as_docker_run_does(
    tmp_path: Path,
) -> None:
    import base64
    import shutil

    from tests.helpers.container_catalog import TINY_SERVER
    from tests.servers.podman import BASE_IMAGE, podman_service, podman_unavailable

    reason = podman_unavailable()
    if reason is not None:
        pytest.skip(reason)
    if shutil.which("docker") is None:
        pytest.skip("no docker CLI on PATH for the entry's docker run")
    repository, _, tag = BASE_IMAGE.rpartition(":")
    code = OCI_SERVER.format(code=base64.b64encode(TINY_SERVER.encode()).decode())
    oci = {
        "registryType": "oci",
        "identifier": repository,
        "version": tag,
        "environmentVariables": [{"name": "EXAMPLE_API_KEY", "isRequired": True}],
        "packageArguments": [
            {"type": "positional", "value": "python3"},
            {"type": "positional", "value": "-u"},
            {"type": "positional", "value": "-c"},
            {"type": "positional", "value": code},
        ],
    }
    mounts = dict(oci, runtimeArguments=[{"type": "named", "name": "-v", "value": "/:/host"}])
    items = [
        item("io.github.example/boxed", packages=[oci]),
        item("io.github.example/mounts", packages=[mounts]),
    ]
    out = tmp_path / "site"
    with podman_service() as address, loopback_registry(items) as (base, _):
        env = dict(os.environ, DOCKER_HOST=address)
        done = mcpcost(
            "sweep",
            "--registry",
            base,
            "--allow-private-addresses",
            "--out",
            str(out),
            "--timeout",
            "60",
            env=env,
        )
        assert done.returncode == 0, done.stderr
        argv = ["docker", "run", "-i", "--rm", "-e", "EXAMPLE_API_KEY", BASE_IMAGE]
        direct = measured_directly(
            [*argv, "python3", "-u", "-c", code], env, "--env", "EXAMPLE_API_KEY"
        )
    boxed = json.loads(
        (out / "results" / "io.github.example-boxed" / "measurement.json").read_text()
    )
    assert boxed["status"] == "measured", boxed.get("notes")
    assert boxed["launchCommand"].startswith(
        f"docker run -i --rm -e EXAMPLE_API_KEY {BASE_IMAGE} python3 -u -c "
    )
    assert boxed["rawToolsCapture"][0]["description"].startswith("key=dummy ")
    assert (boxed["totalTokens"], boxed["canonicalSha256"]) == (
        direct["totalTokens"],
        direct["canonicalSha256"],
    )
    refused = json.loads(
        (out / "results" / "io.github.example-mounts" / "measurement.json").read_text()
    )
    assert refused["status"] == "other"
    assert refused["notes"] == "not launched: docker option '-v' is not run from a registry entry"
