"""Running one server in a container through the ``docker`` SDK (Docker Engine or podman's API).

Used alike by ``sweep``, ``audit`` and ``measure`` (``--docker``). A plan (``ContainerPlan``)
says what one capture's container looks like; ``ContainerLauncher.open(plan)`` creates and starts
it and returns a transport over its attached stdio; closing the transport kills and removes it.

A plan runs ``sh -lc "<command>"`` in a fresh container: image by launcher (uv for ``uvx``, Node
for everything else, unless overridden), ``HOME=/tmp``, 1 GiB memory, 512 pids,
``no-new-privileges``, bridge network (npx/uvx fetch packages) and, unless bypassed for the
cold-cache retry, shared npm/uv cache volumes. The container's stdio is attached through the API
socket; with no TTY the stream is multiplexed in frames (8-byte header: stream type, three zero
bytes, big-endian length), which are split back into stdout and stderr pipes and handed to the
transports' ``LineTransport``. Each container is killed and removed (and the removal awaited)
when its capture ends.

For a ``ServerSpec`` (``plan_for_spec``, the audit's and ``measure``'s case) the exact argv is
quoted into the shell line, the spec's env VALUES go into the container's environment (they never
reach a host process), and host paths the server needs are bind-mounted read-only at the same
path (``host_mounts``): its cwd and every argv path that exists on the host inside one of the
allowed roots (the project, the config's directory, the home directory; never the home directory
itself nor ``/``, which would hand the container the user's credentials).

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
import posixpath
import secrets
import shlex
import socket
import struct
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import IO, Any
from urllib.parse import urlsplit

from mcpcost.core.model import HOST_ISOLATION, Isolation, Measurement
from mcpcost.core.redact import redact_text, redact_url
from mcpcost.core.spec import ServerSpec
from mcpcost.measuring.server import measure_server
from mcpcost.transports.base import Transport
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
DEFAULT_DOCKER_HOST = "unix:///var/run/docker.sock"


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


def engine_address(flag: str | None, environ: Mapping[str, str]) -> str | None:
    """The engine address given explicitly (flag first, then ``DOCKER_HOST``), else None."""
    return flag or environ.get(DOCKER_HOST_VAR) or None


def host_trust(ca_bundle: str | None, environ: Mapping[str, str]) -> HostTrust:
    """What containers get from the host: ``--ca-bundle`` resolved, and the proxy variables."""
    return HostTrust(ca_bundle=resolve_ca_bundle(ca_bundle, environ), proxy=host_proxy(environ))


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


# -- plans ------------------------------------------------------------------------------------


def is_self_docker(argv: tuple[str, ...] | list[str]) -> bool:
    """A command that is itself a ``docker run``: run on the host as written."""
    return len(argv) >= 2 and posixpath.basename(argv[0]) == "docker" and argv[1] == "run"


def default_image(argv: tuple[str, ...] | list[str], override: str | None = None) -> str:
    """The override, else the launcher's image: uv for ``uvx``, Node for everything else."""
    if override:
        return override
    return UV_IMAGE if argv and posixpath.basename(argv[0]) == "uvx" else NODE_IMAGE


def build_plan(
    image: str,
    command: str,
    environment: Mapping[str, str],
    *,
    name_prefix: str,
    shared_cache: bool = True,
    trust: HostTrust | None = None,
    needs_git: bool = False,
    binds: Mapping[str, str] | None = None,
    working_dir: str = "/tmp",
    extra_notes: tuple[str, ...] = (),
) -> ContainerPlan:
    """A container plan: base env, caches, host trust, then ``environment`` (which wins)."""
    trust = trust or HostTrust()
    env: dict[str, str] = {"HOME": "/tmp"}
    env.update(trust.environment())
    volumes: dict[str, str] = {}
    if shared_cache:
        env["npm_config_cache"] = "/tmp/.npm-cache"
        env["UV_CACHE_DIR"] = "/tmp/.uv-cache"
        volumes = {NPM_CACHE_VOLUME: "/tmp/.npm-cache", UV_CACHE_VOLUME: "/tmp/.uv-cache"}
    env.update(environment)
    note = BASE_NOTE
    if needs_git:
        note += ", git installed"
    if not shared_cache:
        note += ", shared package cache bypassed"
    if not trust.empty:
        note += ", " + trust.note()
    for extra in extra_notes:
        note += ", " + extra
    mounted = dict(trust.binds())
    mounted.update(binds or {})
    return ContainerPlan(
        image=image,
        shell_command=(GIT_PREFIX if needs_git else "") + command,
        environment=env,
        volumes=volumes,
        binds=mounted,
        working_dir=working_dir,
        name_prefix=name_prefix,
        isolation=Isolation(docker=True, image=image, network=NETWORK, note=note),
    )


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _path_words(argv: Iterable[str]) -> Iterator[str]:
    """Each argv word, and the value of ``--flag=VALUE`` words."""
    for word in argv:
        if word:
            yield word
        if word.startswith("-") and "=" in word:
            yield word.split("=", 1)[1]


@dataclass(frozen=True)
class HostMounts:
    """Host paths bind-mounted read-only at the same path, and the container's working dir."""

    paths: tuple[str, ...] = ()
    working_dir: str | None = None

    def binds(self) -> dict[str, str]:
        return {p: p for p in self.paths}


def host_mounts(
    argv: tuple[str, ...] | list[str],
    cwd: str | None,
    *,
    base_dir: str,
    roots: Iterable[str],
    home: str,
    exists: Callable[[str], bool] = os.path.exists,
    is_dir: Callable[[str], bool] = os.path.isdir,
    realpath: Callable[[str], str] = os.path.realpath,
) -> HostMounts:
    """What of the host a containerized server needs: its cwd and the argv paths that exist.

    Relative words are taken against ``cwd`` (or ``base_dir``, where the host would have run the
    server). A path is mounted only when its real location is inside one of ``roots``; the home
    directory itself and ``/`` never are. A file is mounted as its directory when that directory
    may be (a script's own modules come along), else alone. Nested mounts are folded into the
    outermost. The working directory is where relative words were resolved when one of them was
    mounted, or ``cwd`` when it was mounted; otherwise None.
    """
    here = posixpath.normpath(cwd if cwd and posixpath.isabs(cwd) else
                              posixpath.join(base_dir, cwd or "."))  # fmt: skip
    real_roots = [realpath(r) for r in roots if r]
    never = {"/", realpath(home)} if home else {"/"}

    def allowed(path: str) -> bool:
        real = realpath(path)
        return real not in never and any(_inside(real, r) for r in real_roots)

    chosen: list[str] = []
    relative_used = False
    if cwd is not None and is_dir(here) and allowed(here):
        chosen.append(here)
    for i, word in enumerate(_path_words(argv)):
        if "\x00" in word or word.startswith("-") or "://" in word:
            continue
        relative = not posixpath.isabs(word)
        if relative and (i == 0 and "/" not in word):
            continue  # a program looked up on PATH, not a path
        path = posixpath.normpath(posixpath.join(here, word))
        if not exists(path) or not allowed(path):
            continue
        if not is_dir(path) and allowed(posixpath.dirname(path)):
            path = posixpath.dirname(path)
        chosen.append(path)
        relative_used = relative_used or relative
    folded: list[str] = []
    for path in sorted(set(chosen), key=len):
        if not any(_inside(path, outer) for outer in folded):
            folded.append(path)
    working = None
    if relative_used or (cwd is not None and any(_inside(here, p) for p in folded)):
        working = here  # the engine creates it when only files below it are mounted
    return HostMounts(tuple(sorted(folded)), working)


def plan_for_spec(
    spec: ServerSpec,
    *,
    image_override: str | None = None,
    shared_cache: bool = True,
    trust: HostTrust | None = None,
    mounts: HostMounts | None = None,
) -> ContainerPlan:
    """The container plan for a stdio spec: exact argv, the spec's env values, host mounts."""
    if spec.is_remote or not spec.argv:
        raise ValueError("only a stdio server runs in a container")
    mounts = mounts or HostMounts()
    extra: list[str] = []
    if spec.env:
        extra.append(f"env values passed ({', '.join(spec.env_names)})")
    if mounts.paths:
        count = len(mounts.paths)
        extra.append(f"{count} host path{'s' if count != 1 else ''} mounted read-only")
    return build_plan(
        default_image(spec.argv, image_override),
        shlex.join(spec.argv),
        dict(spec.env),
        name_prefix=f"mcp-ctx-{spec.name}",
        shared_cache=shared_cache,
        trust=trust,
        binds=mounts.binds(),
        working_dir=mounts.working_dir or "/tmp",
        extra_notes=tuple(extra),
    )


# -- measuring in containers ------------------------------------------------------------------


@dataclass(frozen=True)
class ContainerOptions:
    """How ``--docker`` runs servers: image override, engine address, host trust, mount roots."""

    image_override: str | None = None
    docker_host: str | None = None  # an explicit engine address, given to `docker run` commands
    trust: HostTrust | None = None
    roots: tuple[str, ...] = ()  # host directories whose paths may be mounted
    home: str = ""
    base_dir: str = "/"  # where the host would run a server without a cwd


@dataclass(frozen=True)
class Placement:
    """Where one spec runs: the spec to measure (maybe with DOCKER_HOST), and the plan if any."""

    spec: ServerSpec
    isolation: Isolation
    plan: ContainerPlan | None


def place(
    spec: ServerSpec,
    options: ContainerOptions,
    *,
    exists: Callable[[str], bool] = os.path.exists,
    is_dir: Callable[[str], bool] = os.path.isdir,
    realpath: Callable[[str], str] = os.path.realpath,
) -> Placement:
    """Remote servers stay on the host; ``docker run`` commands run on the host as written
    (given the engine address); every other stdio server gets a container plan."""
    if spec.is_remote:
        return Placement(spec, HOST_ISOLATION, None)
    if is_self_docker(spec.argv):
        return Placement(with_docker_host(spec, options.docker_host),
                         self_docker_isolation(options.docker_host), None)  # fmt: skip
    mounts = host_mounts(
        spec.argv, spec.cwd, base_dir=options.base_dir, roots=options.roots, home=options.home,
        exists=exists, is_dir=is_dir, realpath=realpath,
    )  # fmt: skip
    plan = plan_for_spec(spec, image_override=options.image_override, trust=options.trust,
                         mounts=mounts)  # fmt: skip
    return Placement(spec, plan.isolation, plan)


def measure_placed(
    placement: Placement,
    launcher: ContainerLauncher,
    *,
    timeout_s: float,
    retry_timeouts: bool = True,
    protocol: str = "auto",
    now: Callable[[], datetime] | None = None,
) -> Measurement:
    """Measure a placed spec: in fresh containers per capture, or on the host.

    The record's launch and env names are the original spec's (never ``DOCKER_HOST``).
    """
    plan = placement.plan
    factory = None
    if plan is not None:
        active = plan

        def factory(spec: ServerSpec, timeout: float) -> Transport:
            return launcher.open(active)

    return measure_server(placement.spec, timeout_s=timeout_s, retry_timeouts=retry_timeouts,
                          open_transport=factory, isolation=placement.isolation, now=now,
                          protocol=protocol)  # fmt: skip


def container_measure(
    launcher: ContainerLauncher,
    options: ContainerOptions,
    *,
    timeout_s: float,
    retry_timeouts: bool = True,
    protocol: str = "auto",
    now: Callable[[], datetime] | None = None,
) -> Callable[[ServerSpec], Measurement]:
    """A ``spec -> Measurement`` function that runs stdio servers in containers."""

    def measure(spec: ServerSpec) -> Measurement:
        placement = place(spec, options)
        m = measure_placed(placement, launcher, timeout_s=timeout_s,
                           retry_timeouts=retry_timeouts, protocol=protocol, now=now)  # fmt: skip
        changes: dict[str, object] = {"launch_command": spec.display()}
        if m.has_number:
            changes["env_var_names"] = spec.env_names
        if m.notes:  # proxy credentials reach containers and may be echoed back on stderr
            hidden = spec.secret_values + (options.trust.secret_values if options.trust else ())
            changes["notes"] = redact_text(m.notes, hidden)
        return m.with_(**changes)

    return measure
