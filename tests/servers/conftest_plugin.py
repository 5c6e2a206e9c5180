"""Pytest fixtures over ``tests/servers``: a test module imports the ones it uses (or
tests/conftest.py registers the module with ``pytest_plugins``).

- ``real_server_spec(name)``-style use: ``require_real_server("memory")`` returns the launch spec
  or skips with the reason; ``require_node()`` returns the node path or skips.
- ``http_fixture`` (indirect parametrisation with a kind), ``everything_url`` (``sse`` /
  ``streamableHttp``), ``sdk_http_url`` (``legacy`` / ``modern``).
- ``docker_host``: a session-wide podman API socket (``DOCKER_HOST`` value); skips without podman.
- ``node_reference``: a callable running ``node_reference.mjs``; skips without node/js-tiktoken.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.servers import registry
from tests.servers.http_fixtures import HttpFixture, serve_http
from tests.servers.podman import podman_service, podman_unavailable


def require_node() -> str:
    node = registry.node_binary()
    if node is None:
        pytest.skip("node is not installed")
    return node


def require_real_server(name: str) -> registry.RealServer:
    server = registry.real_server(name)
    if server is None:
        pytest.skip(f"real server {name!r} unavailable: {registry.real_server_missing(name)}")
    return server


@pytest.fixture
def http_fixture(request: pytest.FixtureRequest) -> Iterator[HttpFixture]:
    """A loopback HTTP fixture; parametrise indirectly with its kind (default streamable-json)."""
    kind = getattr(request, "param", "streamable-json")
    with serve_http(kind) as fixture:
        yield fixture


@pytest.fixture
def everything_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """server-everything over HTTP; parametrise indirectly with ``sse`` or ``streamableHttp``."""
    mode = getattr(request, "param", "streamableHttp")
    missing = registry.real_server_missing("everything")
    if missing is not None:
        pytest.skip(f"server-everything unavailable: {missing}")
    with registry.serve_everything(mode) as url:
        yield url


@pytest.fixture
def sdk_http_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """The SDK-built server over Streamable HTTP; parametrise indirectly with the era."""
    era = getattr(request, "param", "legacy")
    with registry.serve_sdk_http(era) as url:
        yield url


@pytest.fixture(scope="session", name="docker_host")
def docker_host_fixture() -> Iterator[str]:
    """``DOCKER_HOST`` for a podman API service running for the whole session."""
    reason = podman_unavailable()
    if reason is not None:
        pytest.skip(reason)
    with podman_service() as url:
        yield url


NodeReference = Callable[..., dict[str, Any]]


@pytest.fixture(name="node_reference")
def node_reference_fixture() -> NodeReference:
    """``node_reference(*args)`` -> the JSON that ``node_reference.mjs *args`` printed."""
    node = require_node()
    if not (registry.NODE_MODULES / "js-tiktoken").is_dir():
        pytest.skip("js-tiktoken not installed (run scripts/setup-test-env.sh)")

    def run(*args: str, timeout: float = 60.0) -> dict[str, Any]:
        proc = subprocess.run(
            [node, str(registry.NODE_REFERENCE), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if proc.returncode != 0:
            raise AssertionError(f"node reference failed: {proc.stderr.strip()}")
        result: dict[str, Any] = json.loads(proc.stdout)
        return result

    return run
