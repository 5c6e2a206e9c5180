"""Plans: what one capture's container looks like, and where a server's launch runs.

A plan runs ``sh -lc "<command>"`` in a fresh container: image by launcher (uv for ``uvx``, Node
for everything else, unless overridden), ``HOME=/tmp``, 1 GiB memory, 512 pids,
``no-new-privileges``, bridge network (npx/uvx fetch packages) and, unless bypassed for the
cold-cache retry, shared npm/uv cache volumes.

For a ``ServerSpec`` (``plan_for_spec``) the exact argv is quoted into the shell line, the spec's
env values go into the container's environment (they never reach a host process), and the host
paths the server needs are bind-mounted read-only at the same path (``host_mounts``): its cwd
and every argv path that exists inside one of the allowed roots, never the home directory itself
nor ``/``, which would hand the container the user's credentials.

Commands that are themselves ``docker run`` are not wrapped: they run on the host as written,
given the engine address as ``DOCKER_HOST`` because the stdio transport passes servers only a
small safe environment; a non-default address is named in the isolation note.
"""

from __future__ import annotations

import os
import posixpath
import shlex
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace

from mcpcost.core.model import Isolation
from mcpcost.core.spec import ServerSpec
from mcpcost.measuring.containers.engine_client import DOCKER_HOST_VAR, engine_label
from mcpcost.measuring.containers.trust import HostTrust

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
GIT_PREFIX = (
    "command -v git >/dev/null 2>&1 || (apt-get update -qq >/dev/null 2>&1 && "
    "apt-get install -y -qq --no-install-recommends git >/dev/null 2>&1); "
)


@dataclass(frozen=True, slots=True)
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


def with_docker_host(spec: ServerSpec, docker_host: str | None) -> ServerSpec:
    """The spec with ``DOCKER_HOST`` set, so a host-spawned ``docker`` CLI reaches our engine."""
    if docker_host is None:
        return spec
    env = dict(spec.env)
    env[DOCKER_HOST_VAR] = docker_host
    return replace(spec, env=tuple(sorted(env.items())))


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


# Directories that hold credentials by convention (keys, cloud and cluster logins, registry
# auth): never bind-mounted, nor a directory that holds one. An argument naming one file in
# them gets that file mounted alone.
CREDENTIAL_DIRS = (
    *(".ssh", ".aws", ".gnupg", ".docker", ".kube", ".azure", ".password-store"),
    *(".config/gcloud", ".config/gh", ".config/containers"),
)


def holds_credentials(path: str, exists: Callable[[str], bool] = os.path.exists) -> bool:
    """True when directory ``path`` is, is inside, or holds one of ``CREDENTIAL_DIRS``."""
    parts = [p for p in path.split("/") if p]
    for cred in CREDENTIAL_DIRS:
        wanted = cred.split("/")
        n = len(wanted)
        if any(parts[i : i + n] == wanted for i in range(len(parts) - n + 1)):
            return True
        for done in range(n):  # the first ``done`` parts of it already end ``path``
            if done and parts[-done:] != wanted[:done]:
                continue
            if exists(posixpath.join(path, *wanted[done:])):
                return True
    return False


@dataclass(frozen=True, slots=True)
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
    directory itself, ``/`` and a directory that is, is in or holds a credential directory
    (``holds_credentials``) never are. A file is mounted as its directory when that directory
    may be (a script's own modules come along), else alone. Nested mounts are folded into the
    outermost. The working directory is where relative words were resolved when one of them was
    mounted, or ``cwd`` when it was mounted; otherwise None.
    """
    here = posixpath.normpath(
        cwd if cwd and posixpath.isabs(cwd) else posixpath.join(base_dir, cwd or ".")
    )
    real_roots = [realpath(r) for r in roots if r]
    never = {"/", realpath(home)} if home else {"/"}

    def allowed(path: str) -> bool:
        real = realpath(path)
        return real not in never and any(_inside(real, r) for r in real_roots)

    def allowed_dir(path: str) -> bool:
        return allowed(path) and not holds_credentials(realpath(path), exists)

    chosen: list[str] = []
    relative_used = False
    if cwd is not None and is_dir(here) and allowed_dir(here):
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
        if is_dir(path) and not allowed_dir(path):
            continue
        if not is_dir(path) and allowed_dir(posixpath.dirname(path)):
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
