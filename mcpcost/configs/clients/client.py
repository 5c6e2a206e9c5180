"""What the project knows about one MCP client, as one value: ``Client``.

Each client module builds one ``Client``; the registry collects them. Everything else (discovery,
variable resolution, consent, the deferral verdict, the Action) asks the registry, and reaches
what is particular to a client only through the hooks of its ``Client``: its files and their
parser, its settings files (``settings_files``), its project-config approvals (``consent``), the
variables those files set for the servers it starts (``settings_env``), its administrator's list
of the servers it may start (``server_policy``), its loading and precedence rule (``session``),
how it presents tools to its model (``presentation``, whose ``deferral`` is its deferral regime)
and what it does with a file it cannot parse (``broken_files``). Shared code never names a
client.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpcost.configs.clients.broken_files import BrokenFileRule
from mcpcost.configs.clients.formats import FileFormat
from mcpcost.configs.clients.presentation import NOTHING_ON_RECORD, Presentation, Provenance
from mcpcost.configs.clients.raw_server import ParseContext, RawServer
from mcpcost.configs.clients.settings_files import ClientSettings, SettingsFile
from mcpcost.configs.config_file import ClientName, ConfigFile, Scope
from mcpcost.configs.jsonc import KeyPath
from mcpcost.configs.variables import VariableSyntax

__all__ = [
    "Approval",
    "Claim",
    "Client",
    "ClientName",
    "ClientSessionRule",
    "Consent",
    "Location",
    "Parsed",
    "Parser",
    "Places",
    "ProjectFile",
    "Scope",
    "ServerPolicy",
    "SettingsEnv",
]


@dataclass(frozen=True, slots=True)
class Parsed:
    """A parser's result: the raw entries, and the readable defaults of VS Code style inputs."""

    raws: list[RawServer]
    inputs: Mapping[str, str | None] = field(default_factory=dict)


Parser = Callable[[Any, Mapping[KeyPath, int], ParseContext, list[str]], Parsed]


@dataclass(frozen=True, slots=True)
class Location:
    """One place a client may keep a config. ``pattern`` may hold a ``*`` in its last part.
    ``optional_section``: a general settings file, skipped by discovery when it has no MCP block."""

    client: ClientName
    scope: Scope
    pattern: Path
    optional_section: bool = False


@dataclass(frozen=True, slots=True)
class ProjectFile:
    """A config file in a repository, relative to its root (``*`` allowed in the last part)."""

    path: str
    optional_section: bool = False


def always(data: Mapping[str, Any], text_format: FileFormat | None) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class Claim:
    """How a file of unknown origin is recognised as this client's: its top-level ``key`` holds a
    value and ``matches`` agrees. Claims are tried by ``rank``, lowest first; the first wins."""

    key: str
    rank: int
    matches: Callable[[Mapping[str, Any], FileFormat | None], bool] = always


def env_value(environ: Mapping[str, str], name: str, platform: str) -> str | None:
    """A non-empty environment value; names are case-insensitive on Windows."""
    if platform == "win32":
        for key, value in environ.items():
            if key.upper() == name.upper():
                return value or None
        return None
    return environ.get(name) or None


@dataclass(frozen=True, slots=True)
class Places:
    """The base directories client files live under on one machine (pure: values in).

    ``root`` stands in for ``/`` (and ``programdata`` for ``C:\\ProgramData``) so tests can hold
    managed files in a temporary directory."""

    home: Path
    cwd: Path
    platform: str  # linux | darwin | win32
    environ: Mapping[str, str]
    root: Path
    programdata: Path
    system_root: Path | None = None  # what ``root`` stands in for ``/`` with, when it does

    @classmethod
    def build(
        cls,
        *,
        home: Path,
        cwd: Path,
        platform: str,
        environ: Mapping[str, str],
        system_root: Path | None = None,
    ) -> Places:
        if platform not in ("linux", "darwin", "win32"):
            raise ValueError(f"unknown platform {platform!r}")
        if system_root is not None:
            programdata = system_root / "ProgramData"
        else:
            programdata = Path(env_value(environ, "PROGRAMDATA", platform) or "C:/ProgramData")
        root = system_root if system_root is not None else Path("/")
        return cls(home, cwd, platform, environ, root, programdata, system_root)

    def env(self, name: str) -> str | None:
        return env_value(self.environ, name, self.platform)

    def env_path(self, name: str, fallback: Path) -> Path:
        value = self.env(name)
        return Path(value) if value else fallback

    @property
    def appdata(self) -> Path:
        return self.env_path("APPDATA", self.home / "AppData" / "Roaming")

    @property
    def localappdata(self) -> Path:
        return self.env_path("LOCALAPPDATA", self.home / "AppData" / "Local")

    @property
    def xdg(self) -> Path:
        return self.env_path("XDG_CONFIG_HOME", self.home / ".config")

    @property
    def app_dir(self) -> Path:
        """Where desktop apps keep their settings: XDG, Application Support or %APPDATA%."""
        support = self.home / "Library" / "Application Support"
        return {"linux": self.xdg, "darwin": support, "win32": self.appdata}[self.platform]

    def project(self, client: ClientName, files: tuple[ProjectFile, ...]) -> list[Location]:
        return [
            Location(client, Scope.PROJECT, self.cwd / f.path, f.optional_section) for f in files
        ]


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientSessionRule:
    """How a client loads its files into one session for the project it runs in.

    Every file of the client that discovery found for that project joins one session, except
    that with ``alternatives`` each user file's directory is a separate installation or profile
    (VS Code and VS Code Insiders, a profile, the editor an extension runs in): each one starts
    its own session, and the project and managed files join every one of them.

    ``precedence``: the scopes from winning to losing when two files name the same server (an
    entry's own scope, such as Claude Code's ``local`` block, counts before its file's).
    ``documented`` says whether the client documents that order (``source``: where) or the audit
    assumes the nearest file wins. ``managed_exclusive``: a managed file with servers replaces
    every other file (Claude Code's ``managed-mcp.json``). ``scope_phrases``: how the report
    names a scope of this client where its bare name would not say where the entry is."""

    precedence: tuple[Scope, ...] = (Scope.MANAGED, Scope.PROJECT, Scope.USER)
    documented: bool = False
    source: str | None = None
    alternatives: bool = False
    managed_exclusive: bool = False
    scope_phrases: Mapping[Scope, str] = field(default_factory=dict)


NEAREST_WINS = ClientSessionRule()


def json_format(source: str) -> FileFormat:
    return FileFormat.JSON


@dataclass(frozen=True, slots=True, kw_only=True)
class Approval:
    """A project config as its client's recorded approvals leave it (entries switched off or
    noted), and the names of the servers the client would load from it without asking."""

    config: ConfigFile
    runs: frozenset[str]


# The consent hook: a project-level config, the client's settings files as read, the parse
# context -> its approvals, or None when the client runs nothing of such a file unasked.
Consent = Callable[[ConfigFile, ClientSettings, ParseContext], Approval | None]


def no_settings_files(at: Places) -> tuple[SettingsFile, ...]:
    return ()


@dataclass(frozen=True, slots=True, kw_only=True)
class SettingsEnv:
    """Variables a client's own settings files put in the environment of the servers it starts,
    so a reference to one in its configs resolves. ``values``: the client's settings files as
    read and the parse context -> name -> value (pure; the highest-precedence file wins, and a
    value here wins over the shell's). ``rule`` says it in words for ``docs/CLIENTS.md``."""

    values: Callable[[ClientSettings, ParseContext], Mapping[str, str]]
    rule: str
    provenance: Provenance


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerPolicy:
    """An administrator's list of the servers a client may start, from its settings files.
    ``apply``: one of the client's configs, its settings as read, the parse context -> the
    config with the servers the policy forbids switched off (each naming the rule and file)."""

    apply: Callable[[ConfigFile, ClientSettings, ParseContext], ConfigFile]
    rule: str
    provenance: Provenance


@dataclass(frozen=True, slots=True, kw_only=True)
class Client:
    """One MCP client: its files, their format and shape, and how it treats what they declare."""

    name: ClientName  # the identifier in reports and on the command line
    label: str  # the product's display name
    syntax: VariableSyntax  # the variable references it expands
    parse: Parser
    locations: Callable[[Places], list[Location]]  # user, project and managed files, in order
    project_files: tuple[ProjectFile, ...] = ()  # the ones a repository holds (read by the Action)
    file_format: Callable[[str], FileFormat] = json_format  # from the file's path
    claims: tuple[Claim, ...] = ()  # recognising its files by content
    # the settings files that decide what it does with its servers (read once, at the edge)
    settings_files: Callable[[Places], tuple[SettingsFile, ...]] = no_settings_files
    consent: Consent | None = None  # None: a project config of it runs only on the user's word
    presentation: Presentation = NOTHING_ON_RECORD  # how it presents tools to its model
    # a macOS app that starts servers with launchd's PATH, not the login shell's
    launchd_path_on_macos: bool = False
    session: ClientSessionRule = NEAREST_WINS  # how its files form one session, and who wins a name
    # what it does with a file of its own it cannot parse, where that is on record
    broken_files: tuple[BrokenFileRule, ...] = ()
    # the variables its settings files set for the servers it starts (None: none on record)
    settings_env: SettingsEnv | None = None
    # which servers its administrator lets it start (None: no such policy on record)
    server_policy: ServerPolicy | None = None
