"""The audit report as values: one result per server, per config file and per client session,
and the report that holds them. ``audit.report`` builds it; the renderers read it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Literal

from mcpcost.audit.client_sessions import Overridden
from mcpcost.audit.deferral import Loading
from mcpcost.audit.model_view import ModelView
from mcpcost.configs.clients.presentation import Provenance
from mcpcost.configs.config_file import EXPLICIT, ClientName, ConfigState, ReadFailure, Scope
from mcpcost.core.measure import SessionStart
from mcpcost.core.model import Authorization, Isolation
from mcpcost.core.spec import DeclaredLaunch, TransportName
from mcpcost.core.status import Status
from mcpcost.version import __version__

if TYPE_CHECKING:  # the calibration (and the tokenizer it counts with) loads with an estimate
    from mcpcost.core.calibration import RequestEstimate

DEFAULT_CONTEXT_WINDOW = 200_000


# The shape of ``audit --json`` (mcpcost/schemas/audit-report.schema.json). Adding optional
# fields keeps it; renaming, removing or changing the meaning of a field raises it.
REPORT_VERSION = 2


HEAVIEST_TOOLS = 5


TRIM_TOOLS = 3


NOTE_LIMIT = 200  # the longest note (first line of a message) a report or a view carries


class Unlaunched(StrEnum):
    """Why a config entry was never launched, so has no measurement status of its own."""

    UNRESOLVED = "unresolved"  # a launch still holds a variable reference
    NOT_LAUNCHABLE = "not-launchable"  # the entry cannot be turned into a launch (no command...)


# A server's status in the report: its measurement's, or why it was never launched.
ServerStatus = Status | Unlaunched
# How the report shows a server is reached: its launch's transport, or "none" without a launch.
ReportTransport = TransportName | Literal["none"]

UNRESOLVED = Unlaunched.UNRESOLVED
NOT_LAUNCHABLE = Unlaunched.NOT_LAUNCHABLE
NOT_MEASURED = Status.NOT_YET_RUN  # a launchable entry the audit has no measurement for


def server_status(text: str) -> ServerStatus | None:
    """The status a report file spells as ``text`` (None: not one this version knows)."""
    for kind in (Status, Unlaunched):
        try:
            return kind(text)
        except ValueError:
            continue
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerResult:
    """One config entry in the report: measured (tokens set) or skipped (tokens None)."""

    name: str
    transport: ReportTransport  # "none": it cannot be launched
    command: str | None  # display form, credentials masked
    url: str | None  # masked
    env_var_names: tuple[str, ...]
    header_names: tuple[str, ...]
    status: ServerStatus
    tokens: int | None
    tool_count: int | None
    share: float | None
    canonical_sha256: str | None
    notes: str | None
    always_load: bool = False
    unresolved: tuple[str, ...] = ()
    session_start: SessionStart | None = None
    anthropic_tokens: int | None = None  # the Claude model's count, from a divergence run
    launch_key: str | None = None
    tools: tuple[tuple[str, int], ...] = ()  # (tool name, tokens): feeds heaviestTools
    isolation: Isolation | None = None  # how the launch was run, when it was measured
    config_notes: tuple[str, ...] = ()  # from the config: approval, envFile (names, no values)
    authorization: Authorization | None = None  # when measured signed in (never who or a token)
    declared: DeclaredLaunch | None = None  # the launch as the config writes it (no secrets)
    # the client's own tool filter in the config (allowlist, denylist): the lens applies it
    enabled_tools: tuple[str, ...] | None = None
    disabled_tools: tuple[str, ...] = ()

    @property
    def measured(self) -> bool:
        return self.tokens is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class HeaviestTool:
    server: str
    tool: str
    tokens: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TrimAdvice:
    tools: tuple[HeaviestTool, ...]
    recoverable_tokens: int
    recoverable_share: float


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigResult:
    client: ClientName
    source: str
    scope: Scope
    total_tokens: int
    tool_count: int
    server_count: int
    context_share: float
    servers: tuple[ServerResult, ...]
    skipped: tuple[ServerResult, ...]
    disabled: tuple[str, ...]
    heaviest_tools: tuple[HeaviestTool, ...]
    trim_advice: TrimAdvice | None
    deferral: Loading | None = None  # its session's (ModelView.loading), reference-compatible
    problems: tuple[str, ...] = ()
    disabled_reasons: tuple[tuple[str, str], ...] = ()  # (name, why) when a setting switched it off

    @property
    def complete(self) -> bool:
        """True when every live entry has a number (the total is not a floor)."""
        return not self.skipped


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientSessionEntry:
    """A server a session loads, with the file it comes from; ``share`` is of the session."""

    server: ServerResult
    source: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientSession:
    """What one client session in this project pays: the union of the files it loads."""

    key: str
    client: ClientName
    label: str
    sources: tuple[str, ...]
    total_tokens: int  # over measured servers only (a floor when ``skipped`` is not empty)
    tool_count: int
    server_count: int
    context_share: float
    servers: tuple[ClientSessionEntry, ...]  # measured, heaviest first
    skipped: tuple[ClientSessionEntry, ...]  # loaded but without a number
    overridden: tuple[Overridden, ...]  # declared, but another file's entry of the name wins
    heaviest_tools: tuple[HeaviestTool, ...]
    trim_advice: TrimAdvice | None
    precedence: tuple[Scope, ...]  # scopes, winning first
    precedence_documented: bool
    precedence_source: str | None
    model_view: ModelView  # the one model: its load verdict and every figure shown for it
    # Claude tokens of its measured definitions, where its client sends Anthropic-shaped tools
    claude_estimate: RequestEstimate | None = None

    @property
    def complete(self) -> bool:
        return not self.skipped


@dataclass(frozen=True, slots=True, kw_only=True)
class EmptyConfig:
    """A config file that contributes no live server: nothing declared, all off, or unreadable."""

    client: ClientName
    source: str
    state: ConfigState
    all_disabled: tuple[str, ...] = ()
    error: str | None = None
    disabled_reasons: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class UnreadableConfig:
    """A config file found but not usable: the audit names it first and fails (exit 2).

    ``client_says`` is what the client itself does with such a file, where that is on record
    (``Client.broken_files``, with its ``provenance``); None means nothing is on record."""

    client: ClientName
    label: str  # the client's display name ("explicit" for a --config file)
    source: str
    failure: ReadFailure
    error: str  # one line: what reading or parsing it met
    line: int | None = None  # the line a parse error names
    client_says: str | None = None
    provenance: Provenance | None = None

    def sentence(self) -> str:
        """The report's one line about it: where, what went wrong, and what the client does
        with such a file (its recorded behaviour, or that none is on record)."""
        where = f"{self.source} line {self.line}" if self.line is not None else self.source
        if self.client_says is not None:
            known = f" ({self.provenance.confidence})" if self.provenance is not None else ""
            then = self.client_says + known
        elif self.client == EXPLICIT:
            then = "none of its servers is in this report"
        else:
            then = (
                f"none of its servers is in this report, and what {self.label} does with such a "
                "file is not on record"
            )
        return f"{self.label}: {where}: {self.error}. {then[0].upper()}{then[1:]}."


@dataclass(frozen=True, slots=True, kw_only=True)
class EnvVariant:
    """Entries that run the same command/URL with different env or headers (measured apart)."""

    launch: str
    entries: tuple[tuple[str, str], ...]  # (source, name)


@dataclass(frozen=True, slots=True, kw_only=True)
class UnresolvedEntry:
    client: ClientName
    source: str
    name: str
    references: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class AnthropicRunInfo:
    """The published Claude model divergence run the report joined (``--claude``)."""

    model: str
    measured_at: str


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditReport:
    methodology_version: str
    encoding: str
    generated_at: str
    context_window: int
    configs: tuple[ConfigResult, ...]
    empty_configs: tuple[EmptyConfig, ...] = ()
    problems: tuple[str, ...] = ()
    unresolved: tuple[UnresolvedEntry, ...] = ()
    env_variants: tuple[EnvVariant, ...] = ()
    anthropic_divergence: AnthropicRunInfo | None = None
    sessions: tuple[ClientSession, ...] = ()
    mcpcost_version: str = __version__
    unreadable: tuple[UnreadableConfig, ...] = ()  # found, but cannot be read or parsed

    @property
    def measured_any(self) -> bool:
        """False when there was nothing to audit or every server failed (the audit's exit 1)."""
        return any(c.servers for c in self.configs)


def first_line(text: str | None, limit: int = NOTE_LIMIT) -> str | None:
    """The first line of ``text``, at most ``limit`` characters (a cut one ends in "…")."""
    if not text or not text.strip():
        return None
    line = text.strip().splitlines()[0]
    return line if len(line) <= limit else line[: limit - 1] + "…"
