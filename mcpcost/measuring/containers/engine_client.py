"""The container engine: its address, the address as it may be published, and a live client.

The engine is reached through the ``docker`` SDK, which speaks to Docker Engine and to podman's
Docker-compatible API alike.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator, Mapping
from typing import Any

from mcpcost.core.redact import redact_url
from mcpcost.errors import McpcostError

DEFAULT_DOCKER_HOST = "unix:///var/run/docker.sock"
DOCKER_HOST_VAR = "DOCKER_HOST"
UNIX_CONNECT_TIMEOUT_S = 5.0


class EngineUnavailable(McpcostError):
    """No container engine answered at the given address."""


def engine_address(flag: str | None, environ: Mapping[str, str]) -> str | None:
    """The engine address given explicitly (flag first, then ``DOCKER_HOST``), else None."""
    return flag or environ.get(DOCKER_HOST_VAR) or None


def engine_label(docker_host: str) -> str:
    """An engine address fit to publish: network addresses masked like URLs, socket paths kept."""
    if docker_host.startswith(("unix://", "npipe://")):
        return docker_host
    return redact_url(docker_host)


@contextlib.contextmanager
def closing_client(base_url: str) -> Iterator[Any]:
    """A ``docker.DockerClient`` for ``base_url`` that answers a ping; closed when the block ends.

    Raises ``EngineUnavailable`` when no engine answers there. A unix socket is tried with a
    socket of our own first: the SDK leaves its socket open when that connect fails.
    """
    import docker

    if base_url.startswith("unix://"):
        _check_unix_socket(base_url[len("unix://") :])
    try:
        client = docker.DockerClient(base_url=base_url)
    except Exception as exc:
        raise EngineUnavailable(type(exc).__name__) from None
    try:
        try:
            client.ping()
        except Exception as exc:
            raise EngineUnavailable(type(exc).__name__) from None
        yield client
    finally:
        client.close()


def _check_unix_socket(path: str) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(UNIX_CONNECT_TIMEOUT_S)
        try:
            probe.connect(path)
        except OSError as exc:
            raise EngineUnavailable(exc.strerror or type(exc).__name__) from None
