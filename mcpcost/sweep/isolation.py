"""Container isolation through the ``docker`` SDK (Docker Engine or podman's compatible API).

A catalog command runs as ``sh -lc "<command>"`` in a fresh container: image by launcher (uv for
``uvx``, Node for everything else; per-entry ``dockerImage`` first, then the sweep's override),
dummy environment, ``HOME=/tmp``, 1 GiB memory, 512 pids, ``no-new-privileges``, bridge network
(npx/uvx fetch packages) and, unless bypassed for the cold-cache retry, shared npm/uv cache
volumes. The container's stdio is attached through the API socket; with no TTY the stream is
multiplexed in frames (8-byte header: stream type, three zero bytes, big-endian length), which
are split back into stdout and stderr pipes and handed to the transports' ``LineTransport``.
Each container is killed and removed (and the removal awaited) when its capture ends.

Behind a TLS-intercepting proxy a fresh container does not trust the proxy's CA, so ``npx`` and
``uvx`` fail with a certificate error. ``HostTrust`` carries what the host knows: a CA bundle
(mounted read-only at ``CA_MOUNT_PATH`` and named by every variable in ``CA_ENV_VARS``) and the
host's proxy variables (``PROXY_VARS``), passed through as they are. Only names reach the
isolation note; values carrying userinfo are secrets (``HostTrust.secret_values``).

Commands that are themselves ``docker run`` are not wrapped: they run on the host as written and
are recorded as a host-spawned container. The host's ``docker`` CLI is given the engine address
the SDK uses (``--docker-host`` / ``DOCKER_HOST``) as ``DOCKER_HOST``, because the stdio
transport passes servers only a small safe environment; a non-default address is named in the
isolation note (masked like any URL).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets
import socket
import struct
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, Any
from urllib.parse import urlsplit

from mcpcost.core.model import Isolation
from mcpcost.core.redact import redact_url
from mcpcost.core.spec import ServerSpec
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
ENGINE_NOTE = "engine DOCKER_HOST="
DOCKER_HOST_VAR = "DOCKER_HOST"
GIT_PREFIX = (
    "command -v git >/dev/null 2>&1 || (apt-get update -qq >/dev/null 2>&1 && "
    "apt-get install -y -qq --no-install-recommends git >/dev/null 2>&1); "
)
REMOVE_TIMEOUT_S = 20
READER_JOIN_S = 5.0

CA_MOUNT_PATH = "/run/mcpcost/ca-bundle.pem"
CA_ENV_VARS = (
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "REQUESTS_CA_BUNDLE",
    "PIP_CERT",
    "CURL_CA_BUNDLE",
    "GIT_SSL_CAINFO",
)
CA_NOTE = "host CA bundle mounted"
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")
HOST_CA_FILE = "/etc/ssl/certs/ca-certificates.crt"
CA_BUNDLE_AUTO = "auto"


@dataclass(frozen=True)
class HostTrust:
    """What a container needs from the host to reach registries: a CA bundle and the proxy.

    ``ca_bundle`` is an absolute host path (or None); ``proxy`` holds (name, value) pairs taken
    from the host environment, passed to containers unchanged.
    """

    ca_bundle: str | None = None
    proxy: tuple[tuple[str, str], ...] = ()

    @property
    def empty(self) -> bool:
        return self.ca_bundle is None and not self.proxy

    @property
    def secret_values(self) -> tuple[str, ...]:
        """Proxy values that carry userinfo, and the userinfo itself: never shown."""
        found: list[str] = []
        for _, value in self.proxy:
            userinfo = _userinfo(value)
            if userinfo:
                found += [value, userinfo, *[p for p in userinfo.split(":", 1) if p]]
        return tuple(dict.fromkeys(found))

    def environment(self) -> dict[str, str]:
        env = dict(self.proxy)
        if self.ca_bundle is not None:
            env.update(dict.fromkeys(CA_ENV_VARS, CA_MOUNT_PATH))
            env["UV_NATIVE_TLS"] = "1"
        return env

    def binds(self) -> dict[str, str]:
        return {} if self.ca_bundle is None else {self.ca_bundle: CA_MOUNT_PATH}

    def note(self) -> str:
        parts = []
        if self.ca_bundle is not None:
            parts.append(CA_NOTE)
        if self.proxy:
            parts.append(f"host proxy variables passed ({', '.join(n for n, _ in self.proxy)})")
        return ", ".join(parts)


def _userinfo(value: str) -> str:
    try:
        netloc = urlsplit(value if "://" in value else f"//{value}").netloc
    except ValueError:
        return ""
    return netloc.rsplit("@", 1)[0] if "@" in netloc else ""


def host_proxy(environ: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The host's proxy variables that are set (non-empty), in ``PROXY_VARS`` order."""
    return tuple((name, environ[name]) for name in PROXY_VARS if environ.get(name))


class CABundleError(ValueError):
    """The ``--ca-bundle`` value names no readable file."""


def resolve_ca_bundle(
    value: str | None,
    environ: Mapping[str, str],
    is_file: Callable[[str], bool] = os.path.isfile,
) -> str | None:
    """The absolute host path of the CA bundle to mount, or None.

    ``auto`` takes the first of ``SSL_CERT_FILE``, ``REQUESTS_CA_BUNDLE`` and ``HOST_CA_FILE``
    that is a file (None when none is); any other value must name a file (``CABundleError``).
    """
    if value is None:
        return None
    if value == CA_BUNDLE_AUTO:
        candidates = [environ.get("SSL_CERT_FILE"), environ.get("REQUESTS_CA_BUNDLE"), HOST_CA_FILE]
        for candidate in candidates:
            if candidate and is_file(candidate):
                return os.path.realpath(candidate)
        return None
    if not is_file(value):
        raise CABundleError(f"--ca-bundle {value}: not a file")
    return os.path.realpath(value)


@dataclass(frozen=True)
class ContainerPlan:
    """Everything needed to create the container for one capture."""

    image: str
    shell_command: str
    environment: Mapping[str, str]
    volumes: Mapping[str, str] = field(default_factory=dict)  # volume name -> mount path
    binds: Mapping[str, str] = field(default_factory=dict)  # host path -> read-only mount path
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


def self_docker_isolation(docker_host: str | None = None) -> Isolation:
    """The record for a ``docker run`` command spawned on the host, naming a non-default engine."""
    if docker_host is None:
        return Isolation(docker=True, note=SELF_DOCKER_NOTE)
    return Isolation(
        docker=True, note=f"{SELF_DOCKER_NOTE}; {ENGINE_NOTE}{engine_label(docker_host)}"
    )


def engine_label(docker_host: str) -> str:
    """An engine address fit to publish: network addresses masked like URLs, socket paths kept."""
    if docker_host.startswith(("unix://", "npipe://")):
        return docker_host
    return redact_url(docker_host)


def with_docker_host(spec: ServerSpec, docker_host: str | None) -> ServerSpec:
    """The spec with ``DOCKER_HOST`` set, so a host-spawned ``docker`` CLI reaches our engine."""
    if docker_host is None:
        return spec
    env = dict(spec.env)
    env[DOCKER_HOST_VAR] = docker_host
    return dataclasses.replace(spec, env=tuple(sorted(env.items())))


def plan_container(
    entry: CatalogEntry,
    *,
    image_override: str | None = None,
    shared_cache: bool = True,
    trust: HostTrust | None = None,
) -> ContainerPlan:
    """The container plan for an entry (not for ``docker run`` commands: see ``is_self_docker``)."""
    image = image_for(entry, image_override)
    trust = trust or HostTrust()
    env: dict[str, str] = {"HOME": "/tmp"}
    env.update(trust.environment())
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
    if not trust.empty:
        note += ", " + trust.note()
    command = (GIT_PREFIX if entry.needs_git else "") + entry.command
    return ContainerPlan(
        image=image,
        shell_command=command,
        environment=env,
        volumes=volumes,
        binds=trust.binds(),
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


class _Attachment:
    """The attach connection and every SDK object that holds it open.

    For a unix socket the SDK returns the ``SocketIO`` it read the HTTP upgrade through; the
    socket's file descriptor is released only when that reader, the HTTP response and the socket
    itself are all closed, so ``close`` closes each of them (once, in that order).
    """

    def __init__(self, handle: Any) -> None:
        self._handle = handle
        self.sock: socket.socket = getattr(handle, "_sock", handle)
        self._response = getattr(handle, "_response", None)
        self._closed = False
        self._lock = threading.Lock()

    def shutdown(self) -> None:
        """End both directions so a reader blocked in ``recv`` returns."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self.shutdown()
        for thing in (self._handle, self._response, self.sock):
            if thing is not None:
                with contextlib.suppress(Exception):
                    thing.close()


class ContainerLauncher:
    """Starts one container per capture and returns a transport over its attached stdio.

    The launcher does not own the client; whoever made it closes it (``closing_client``).
    """

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
            volumes=_mounts(plan),
            mem_limit=plan.memory,
            pids_limit=plan.pids_limit,
            security_opt=list(plan.security_opt),
            working_dir=plan.working_dir,
            network_mode=plan.network,
        )
        attachment: _Attachment | None = None
        try:
            attachment = _Attachment(
                self._client.api.attach_socket(
                    container.id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
                )
            )
            container.start()
        except BaseException:
            if attachment is not None:
                attachment.close()
            _remove(container)
            raise
        return _transport(container, attachment)


def _mounts(plan: ContainerPlan) -> dict[str, dict[str, str]]:
    """Named cache volumes read-write, host files (the CA bundle) read-only."""
    mounts = {name: {"bind": path, "mode": "rw"} for name, path in plan.volumes.items()}
    mounts.update({host: {"bind": path, "mode": "ro"} for host, path in plan.binds.items()})
    return mounts


def _transport(container: Any, attachment: _Attachment) -> LineTransport:
    """A transport over a started container's attach stream; closing it removes the container."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    reader = threading.Thread(target=demultiplex, args=(attachment.sock, out_w, err_w), daemon=True)
    reader.start()
    stdout: IO[bytes] = os.fdopen(out_r, "rb", buffering=0)
    stderr: IO[bytes] = os.fdopen(err_r, "rb", buffering=0)
    removed = threading.Event()

    def terminate() -> None:
        if removed.is_set():
            return
        removed.set()
        try:
            _remove(container)
        finally:
            attachment.shutdown()
            reader.join(timeout=READER_JOIN_S)
            attachment.close()

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
        _SocketWriter(attachment.sock),  # type: ignore[arg-type]
        stderr,
        terminate=terminate,
        exit_code=exit_code,
        kind="docker",
    )


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
        probe.settimeout(5.0)
        try:
            probe.connect(path)
        except OSError as exc:
            raise EngineUnavailable(exc.strerror or type(exc).__name__) from None


class EngineUnavailable(Exception):
    """No container engine answered at the given address."""


def _remove(container: Any) -> None:
    """Kill and remove a container, waiting for the removal to finish."""
    with contextlib.suppress(Exception):
        container.kill()
    with contextlib.suppress(Exception):
        container.wait(timeout=REMOVE_TIMEOUT_S)
    with contextlib.suppress(Exception):
        container.remove(force=True)
