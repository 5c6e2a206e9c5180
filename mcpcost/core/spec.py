"""How to reach one MCP server: a launch (argv, env, cwd) or a remote (URL, headers), the same
launch as a config file writes it with no secret in it (``DeclaredLaunch``), and the words for
them: the transports' names and the protocol eras."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import StrEnum

from mcpcost.core.digest import sha256_hex
from mcpcost.core.jsonvalue import stringify
from mcpcost.core.redact import (
    header_credentials,
    redact_argv,
    redact_text,
    redact_url,
    url_credentials,
)

_NEEDS_QUOTES = re.compile(r"[\s\"'\\]")


class TransportName(StrEnum):
    """A transport's name (the transport itself is a ``transports.base.Transport``): ``stdio``
    for a launch; for a URL ``http`` (Streamable HTTP), ``sse`` (the legacy HTTP+SSE transport)
    or ``auto`` (Streamable HTTP, then legacy SSE); and ``docker``, a container's attached stdio,
    which carries a sweep's container captures. ``transport`` in measurement.json: what carried
    the capture, or what was asked for when it failed before any transport answered."""

    STDIO = "stdio"
    AUTO = "auto"
    HTTP = "http"
    SSE = "sse"
    DOCKER = "docker"


# What a ServerSpec may ask for, and of those what a URL may.
SPEC_TRANSPORTS = frozenset(
    {TransportName.STDIO, TransportName.AUTO, TransportName.HTTP, TransportName.SSE}
)
REMOTE_TRANSPORTS = (TransportName.AUTO, TransportName.HTTP, TransportName.SSE)


class Era(StrEnum):
    """A protocol era: ``legacy`` (the ``initialize`` handshake, up to 2025-11-25) or ``modern``
    (stateless ``server/discover``, 2026-07-28). ``protocolEra`` in measurement.json."""

    LEGACY = "legacy"
    MODERN = "modern"


class EraChoice(StrEnum):
    """Which era a session tries: ``auto`` (legacy first, modern when it is refused) or one."""

    AUTO = "auto"
    LEGACY = "legacy"
    MODERN = "modern"


# Package runners that install what they run on first use, into a cache every later launch of
# the same package shares (npm's ``_npx`` directory, uv's cache...): the runner alone, or the
# runner and the words that make it one (``pnpm dlx``, ``uv tool run``).
INSTALLING_RUNNERS = frozenset({"npx", "pnpx", "bunx", "uvx"})
INSTALLING_VERBS: Mapping[str, tuple[tuple[str, ...], ...]] = {
    "pnpm": (("dlx",),),
    "yarn": (("dlx",),),
    "npm": (("exec",), ("x",)),
    "bun": (("x",),),
    "pipx": (("run",),),
    "uv": (("tool", "run"),),
}
_WINDOWS_SUFFIXES = (".cmd", ".exe", ".bat", ".ps1")


def launcher_name(argv: tuple[str, ...] | list[str]) -> str:
    """The program a launch starts, as a name: ``npx`` for ``/usr/bin/npx`` or ``C:\\npx.cmd``."""
    if not argv:
        return ""
    name = argv[0].replace("\\", "/").rsplit("/", 1)[-1].lower()
    for suffix in _WINDOWS_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def installs_on_first_use(argv: tuple[str, ...] | list[str]) -> bool:
    """Whether the launch goes through a package runner that installs the server on first use
    (``npx -y pkg``, ``uvx pkg``, ``pnpm dlx pkg``...). Two such launches of one package started
    together on a cold cache install into the same place at once, and npm's install is not safe
    against that (ENOTEMPTY on a rename, ECOMPROMISED)."""
    name = launcher_name(argv)
    if name in INSTALLING_RUNNERS:
        return True
    words = [a for a in argv[1:] if not a.startswith("-")]
    return any(tuple(words[: len(verb)]) == verb for verb in INSTALLING_VERBS.get(name, ()))


@dataclass(frozen=True, slots=True, kw_only=True)
class DeclaredLaunch:
    """A config entry's launch as the file writes it, before any variable is resolved: what the
    increase gate compares to tell an unknown the change did not touch from one it did.

    It holds no secret value: env and header *names* only (sorted), references such as
    ``${API_KEY}`` as written, and command, arguments and URL masked the way every report masks
    them (``redact_argv``, ``redact_url``), so a key's value, changed or not, never enters it.
    Equal values are the same launch; ``differences`` names the parts that are not."""

    transport: TransportName
    command: str | None = None
    args: tuple[str, ...] = ()
    cwd: str | None = None
    url: str | None = None
    env_names: tuple[str, ...] = ()
    header_names: tuple[str, ...] = ()
    env_file: str | None = None  # the envFile path as written

    @classmethod
    def written(
        cls,
        transport: TransportName,
        *,
        command: str | None = None,
        args: tuple[str, ...] | list[str] = (),
        cwd: str | None = None,
        url: str | None = None,
        env_names: tuple[str, ...] | list[str] = (),
        header_names: tuple[str, ...] | list[str] = (),
        env_file: str | None = None,
    ) -> DeclaredLaunch:
        """The launch from the fields as written, masked and with names sorted."""
        argv = redact_argv([command or "", *args])
        return cls(
            transport=transport,
            command=argv[0] if command is not None else None,
            args=tuple(argv[1:]),
            cwd=cwd,
            url=redact_url(url) if url is not None else None,
            env_names=tuple(sorted(set(env_names))),
            header_names=tuple(sorted(set(header_names))),
            env_file=env_file,
        )

    def differences(self, other: DeclaredLaunch) -> tuple[str, ...]:
        """The parts of the launch that differ from ``other``, in the order a config writes them
        (``command``, ``args``, ``env`` names, ``envFile``, ``cwd``, ``transport``, ``url``,
        ``headers`` names); empty when they are the same launch."""
        parts = (
            ("command", self.command, other.command),
            ("args", self.args, other.args),
            ("env", self.env_names, other.env_names),
            ("envFile", self.env_file, other.env_file),
            ("cwd", self.cwd, other.cwd),
            ("transport", self.transport, other.transport),
            ("url", self.url, other.url),
            ("headers", self.header_names, other.header_names),
        )
        return tuple(name for name, mine, theirs in parts if mine != theirs)


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerSpec:
    """One server to measure. Env and header values are secrets: never printed, never written."""

    name: str
    argv: tuple[str, ...] = ()
    url: str | None = None
    transport: TransportName = TransportName.STDIO  # stdio for argv; auto, http or sse for a URL
    env: tuple[tuple[str, str], ...] = ()
    headers: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    launch_command: str | None = None  # the command line as the user wrote it, if they did
    # values a config reached through variable references (``${VAR}``...), wherever they landed
    # (argv, url, env, headers): secrets, like env and header values. They say nothing about
    # which server this is, so equality and hashing leave them out.
    secrets: tuple[str, ...] = ()
    # env names whose values are published, not secret: a catalog's placeholders (its
    # ``envValues`` and the methodology's ``dummy``), which the measured text may repeat freely
    public_env: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.transport not in SPEC_TRANSPORTS:
            raise ValueError(f"unknown transport {str(self.transport)!r}")
        if self.is_remote == bool(self.argv):
            raise ValueError("a server has either argv (stdio) or a url (remote), not both")

    @classmethod
    def stdio(
        cls,
        name: str,
        argv: list[str] | tuple[str, ...],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        launch_command: str | None = None,
        public_env: tuple[str, ...] = (),
    ) -> ServerSpec:
        return cls(
            name=name,
            argv=tuple(argv),
            env=tuple(sorted((env or {}).items())),
            cwd=cwd,
            launch_command=launch_command,
            public_env=public_env,
        )

    @classmethod
    def remote(
        cls,
        name: str,
        url: str,
        *,
        transport: TransportName = TransportName.AUTO,
        headers: Mapping[str, str] | None = None,
    ) -> ServerSpec:
        return cls(name=name, url=url, transport=transport, headers=tuple((headers or {}).items()))

    @property
    def is_remote(self) -> bool:
        return self.url is not None

    @property
    def installs_on_first_use(self) -> bool:
        """A launch through a package runner that installs on first use (``installs_on_first_use``)."""
        return not self.is_remote and installs_on_first_use(self.argv)

    @property
    def env_names(self) -> tuple[str, ...]:
        return tuple(sorted(k for k, _ in self.env))

    @property
    def header_names(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.headers)

    @property
    def secret_values(self) -> tuple[str, ...]:
        """Every env and header value and every value reached through a variable reference:
        masked wherever they might surface (stderr tails, notes, command lines...)."""
        public = set(self.public_env)
        values = [v for k, v in self.env if k not in public]
        values += [v for _, v in self.headers] + list(self.secrets)
        for _, v in self.headers:  # "Bearer abc": the token alone must be masked too
            values.extend(v.split()[1:])
            values.extend(header_credentials(v))  # "Basic ...": what it decodes to
        if self.url is not None:  # userinfo, and the Basic token a client sends for it
            values.extend(url_credentials(self.url))
        return tuple(v for v in values if v)

    def display(self) -> str:
        """The launch as a person reads it, with credential-looking values masked."""
        if self.url is not None:
            # masked before the URL is re-encoded: a value is found in the form it was put in
            return redact_url(redact_text(self.url, self.secrets))
        if self.launch_command is not None:
            try:
                words = shlex.split(self.launch_command)
            except ValueError:
                words = self.launch_command.split()
            if words and list(redact_argv(words, self.secret_values)) == words:
                return self.launch_command
        red = redact_argv(self.argv, self.secret_values)
        return " ".join(a if a and not _NEEDS_QUOTES.search(a) else stringify(a) for a in red)

    def __repr__(self) -> str:
        shown = str(self.transport)
        return f"ServerSpec(name={self.name!r}, transport={shown!r}, {self.display()!r})"

    def _identity(self) -> tuple[object, ...]:
        return tuple(
            getattr(self, f.name) for f in fields(self) if f.name not in ("secrets", "public_env")
        )

    def __eq__(self, other: object) -> bool:
        if type(other) is not ServerSpec:
            return NotImplemented
        return self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())

    def launch_key(self) -> str:
        """Identity of the launch: equal keys are one measurement. Values enter only hashed."""
        return sha256_hex(
            stringify(
                [
                    self.transport,
                    self.url,
                    list(self.argv),
                    self.cwd,
                    [list(kv) for kv in self.env],
                    [list(kv) for kv in self.headers],
                ]
            ).encode()
        )
