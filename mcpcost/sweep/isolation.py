"""Container isolation through the ``docker`` SDK (Docker Engine or podman's compatible API).

A catalog command runs as ``sh -lc "<command>"`` in a fresh container: image by launcher (uv for
``uvx``, Node for everything else; per-entry ``dockerImage`` first, then the sweep's override),
dummy environment, ``HOME=/tmp``, 1 GiB memory, 512 pids, ``no-new-privileges``, bridge network
(npx/uvx fetch packages) and, unless bypassed for the cold-cache retry, shared npm/uv cache
volumes. The container's stdio is attached through the API socket; with no TTY the stream is
multiplexed in frames (8-byte header: stream type, three zero bytes, big-endian length), which
are split back into stdout and stderr pipes and handed to the transports' ``LineTransport``.
Each container is killed and removed (and the removal awaited) when its capture ends.

Commands that are themselves ``docker run`` are not wrapped: they run on the host as written and
are recorded as a host-spawned container.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import struct
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import IO, Any

from mcpcost.core.model import Isolation
from mcpcost.sweep.catalog import CatalogEntry
from mcpcost.transports.framing import LineTransport

NODE_IMAGE = "public.ecr.aws/docker/library/node:22-slim"
UV_IMAGE = "ghcr.io/astral-sh/uv:python3.12-bookworm-slim"
MEMORY_LIMIT = "1g"
PIDS_LIMIT = 512
NETWORK = "bridge"
NPM_CACHE_VOLUME = "mcp-ctx-npm-cache"
UV_CACHE_VOLUME = "mcp-ctx-uv-cache"
BASE_NOTE = "network enabled for package fetch; clean FS, no host credentials"
SELF_DOCKER_NOTE = "command is itself a docker run (host-spawned container)"
GIT_PREFIX = (
    "command -v git >/dev/null 2>&1 || (apt-get update -qq >/dev/null 2>&1 && "
    "apt-get install -y -qq --no-install-recommends git >/dev/null 2>&1); "
)
REMOVE_TIMEOUT_S = 20


@dataclass(frozen=True)
class ContainerPlan:
    """Everything needed to create the container for one capture."""

    image: str
    shell_command: str
    environment: Mapping[str, str]
    volumes: Mapping[str, str] = field(default_factory=dict)  # volume name -> mount path
    memory: str = MEMORY_LIMIT
    pids_limit: int = PIDS_LIMIT
    network: str = NETWORK
    security_opt: tuple[str, ...] = ("no-new-privileges",)
    working_dir: str = "/tmp"
    name_prefix: str = "mcp-ctx"
    isolation: Isolation = field(default_factory=lambda: Isolation(docker=True))


def image_for(entry: CatalogEntry, image_override: str | None = None) -> str:
    """The entry's image, the sweep's override, or the launcher's default image."""
    if entry.docker_image:
        return entry.docker_image
    if image_override:
        return image_override
    argv = entry.argv
    return UV_IMAGE if argv and argv[0] == "uvx" else NODE_IMAGE


def self_docker_isolation() -> Isolation:
    return Isolation(docker=True, note=SELF_DOCKER_NOTE)


def plan_container(
    entry: CatalogEntry, *, image_override: str | None = None, shared_cache: bool = True
) -> ContainerPlan:
    """The container plan for an entry (not for ``docker run`` commands: see ``is_self_docker``)."""
    image = image_for(entry, image_override)
    env: dict[str, str] = {"HOME": "/tmp"}
    volumes: dict[str, str] = {}
    if shared_cache:
        env["npm_config_cache"] = "/tmp/.npm-cache"
        env["UV_CACHE_DIR"] = "/tmp/.uv-cache"
        volumes = {NPM_CACHE_VOLUME: "/tmp/.npm-cache", UV_CACHE_VOLUME: "/tmp/.uv-cache"}
    env.update(entry.dummy_env())
    note = BASE_NOTE
    if entry.needs_git:
        note += ", git installed"
    if not shared_cache:
        note += ", shared package cache bypassed"
    command = (GIT_PREFIX if entry.needs_git else "") + entry.command
    return ContainerPlan(
        image=image,
        shell_command=command,
        environment=env,
        volumes=volumes,
        name_prefix=f"mcp-ctx-{entry.name}",
        isolation=Isolation(docker=True, image=image, network=NETWORK, note=note),
    )


def container_name(prefix: str, index: int) -> str:
    return f"{prefix}-{os.getpid()}-{secrets.randbelow(1_000_000)}-{index}"


class _SocketWriter:
    """The container's stdin: writes go to the attach socket; close half-closes it."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self.closed = False

    def write(self, data: bytes) -> int:
        if self.closed:
            raise ValueError("stdin is closed")
        self._sock.sendall(data)
        return len(data)

    def flush(self) -> None:
        return None

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_WR)


def _read_exact(sock: socket.socket, n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def demultiplex(sock: socket.socket, stdout_fd: int, stderr_fd: int) -> None:
    """Split the attach stream's frames into two pipes; closes both when the stream ends."""
    try:
        while True:
            header = _read_exact(sock, 8)
            if header is None:
                break
            kind, size = header[0], struct.unpack(">I", header[4:8])[0]
            payload = _read_exact(sock, size) if size else b""
            if payload is None:
                break
            target = stderr_fd if kind == 2 else stdout_fd
            with contextlib.suppress(OSError):
                view = memoryview(payload)
                while view:
                    written = os.write(target, view)
                    view = view[written:]
    except OSError:
        pass
    finally:
        for fd in (stdout_fd, stderr_fd):
            with contextlib.suppress(OSError):
                os.close(fd)


class ContainerLauncher:
    """Starts one container per capture and returns a transport over its attached stdio."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._count = 0
        self._lock = threading.Lock()

    def open(self, plan: ContainerPlan) -> LineTransport:
        with self._lock:
            self._count += 1
            index = self._count
        container = self._client.containers.create(
            image=plan.image,
            command=["sh", "-lc", plan.shell_command],
            name=container_name(plan.name_prefix, index),
            stdin_open=True,
            tty=False,
            environment=dict(plan.environment),
            volumes={name: {"bind": path, "mode": "rw"} for name, path in plan.volumes.items()},
            mem_limit=plan.memory,
            pids_limit=plan.pids_limit,
            security_opt=list(plan.security_opt),
            working_dir=plan.working_dir,
            network_mode=plan.network,
        )
        try:
            attach = self._client.api.attach_socket(
                container.id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
            )
            sock: socket.socket = getattr(attach, "_sock", attach)
            container.start()
        except Exception:
            _remove(container)
            raise
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        threading.Thread(target=demultiplex, args=(sock, out_w, err_w), daemon=True).start()
        stdout: IO[bytes] = os.fdopen(out_r, "rb", buffering=0)
        stderr: IO[bytes] = os.fdopen(err_r, "rb", buffering=0)
        removed = threading.Event()

        def terminate() -> None:
            if removed.is_set():
                return
            removed.set()
            _remove(container)
            with contextlib.suppress(OSError):
                sock.close()

        def exit_code() -> int | None:
            try:
                container.reload()
            except Exception:
                return None
            state = container.attrs.get("State") or {}
            if state.get("Running"):
                return None
            code = state.get("ExitCode")
            return code if isinstance(code, int) else None

        return LineTransport(
            stdout,
            _SocketWriter(sock),  # type: ignore[arg-type]
            stderr,
            terminate=terminate,
            exit_code=exit_code,
            kind="docker",
        )


def _remove(container: Any) -> None:
    """Kill and remove a container, waiting for the removal to finish."""
    with contextlib.suppress(Exception):
        container.kill()
    with contextlib.suppress(Exception):
        container.wait(timeout=REMOVE_TIMEOUT_S)
    with contextlib.suppress(Exception):
        container.remove(force=True)
