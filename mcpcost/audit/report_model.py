"""The audit report as values: one result per server, per config file and per client session,
and the report that holds them. ``audit.report`` builds it; the renderers read it."""

from __future__ import annotations

from mcpcost.audit.deferral import (
    DeferralVerdict,
)
from mcpcost.audit.sessions import Overridden
from mcpcost.core.measure import SessionStart
from mcpcost.core.model import Authorization, Isolation
from mcpcost.core.record import Record
from mcpcost.version import __version__

DEFAULT_CONTEXT_WINDOW = 200_000


# The shape of ``audit --json`` (mcpcost/schemas/audit-report.schema.json). Adding optional
# fields keeps it; renaming, removing or changing the meaning of a field raises it.
REPORT_VERSION = 1


HEAVIEST_TOOLS = 5


TRIM_TOOLS = 3


NOTE_LIMIT = 200  # the longest note (first line of a message) a report or a view carries


UNRESOLVED = "unresolved"  # a launch still holds a variable reference: never launched


NOT_LAUNCHABLE = "not-launchable"  # the entry cannot be turned into a launch (no command...)


NOT_MEASURED = "not-yet-run"  # a launchable entry the engine has no measurement for


class ServerResult(Record, frozen=True, kw_only=True):
    """One config entry in the report: measured (tokens set) or skipped (tokens None)."""

    name: str
    transport: str  # stdio | auto | http | sse | none (cannot be launched)
    command: str | None  # display form, credentials masked
    url: str | None  # masked
    env_var_names: tuple[str, ...]
    header_names: tuple[str, ...]
    status: str
    tokens: int | None
    tool_count: int | None
    share: float | None
    canonical_sha256: str | None
    notes: str | None
    always_load: bool = False
    unresolved: tuple[str, ...] = ()
    session_start: SessionStart | None = None
    claude_tokens: int | None = None
    launch_key: str | None = None
    tools: tuple[tuple[str, int], ...] = ()  # (tool name, tokens): feeds heaviestTools
    isolation: Isolation | None = None  # how the launch was run, when it was measured
    config_notes: tuple[str, ...] = ()  # from the config: approval, envFile (names, no values)
    authorization: Authorization | None = None  # when measured signed in (never who or a token)

    @property
    def measured(self) -> bool:
        return self.tokens is not None


class HeaviestTool(Record, frozen=True, kw_only=True):
    server: str
    tool: str
    tokens: int


class TrimAdvice(Record, frozen=True, kw_only=True):
    tools: tuple[HeaviestTool, ...]
    recoverable_tokens: int
    recoverable_share: float


class ConfigResult(Record, frozen=True, kw_only=True):
    client: str
    source: str
    scope: str
    total_tokens: int
    tool_count: int
    server_count: int
    context_share: float
    servers: tuple[ServerResult, ...]
    skipped: tuple[ServerResult, ...]
    disabled: tuple[str, ...]
    heaviest_tools: tuple[HeaviestTool, ...]
    trim_advice: TrimAdvice | None
    deferral: DeferralVerdict | None = None
    problems: tuple[str, ...] = ()
    disabled_reasons: tuple[tuple[str, str], ...] = ()  # (name, why) when a setting switched it off

    @property
    def complete(self) -> bool:
        """True when every live entry has a number (the total is not a floor)."""
        return not self.skipped


class SessionEntry(Record, frozen=True, kw_only=True):
    """A server a session loads, with the file it comes from; ``share`` is of the session."""

    server: ServerResult
    source: str


class SessionResult(Record, frozen=True, kw_only=True):
    """What one client session in this project pays: the union of the files it loads."""

    key: str
    client: str
    label: str
    sources: tuple[str, ...]
    total_tokens: int  # over measured servers only (a floor when ``skipped`` is not empty)
    tool_count: int
    server_count: int
    context_share: float
    servers: tuple[SessionEntry, ...]  # measured, heaviest first
    skipped: tuple[SessionEntry, ...]  # loaded but without a number
    overridden: tuple[Overridden, ...]  # declared, but another file's entry of the name wins
    heaviest_tools: tuple[HeaviestTool, ...]
    trim_advice: TrimAdvice | None
    precedence: tuple[str, ...]  # scopes, winning first
    precedence_documented: bool
    precedence_source: str | None
    deferral: DeferralVerdict | None = None

    @property
    def complete(self) -> bool:
        return not self.skipped


class EmptyConfig(Record, frozen=True, kw_only=True):
    """A config file that contributes no live server: nothing declared, all off, or unreadable."""

    client: str
    source: str
    state: str
    all_disabled: tuple[str, ...] = ()
    error: str | None = None
    disabled_reasons: tuple[tuple[str, str], ...] = ()


class EnvVariant(Record, frozen=True, kw_only=True):
    """Entries that run the same command/URL with different env or headers (measured apart)."""

    launch: str
    entries: tuple[tuple[str, str], ...]  # (source, name)


class UnresolvedEntry(Record, frozen=True, kw_only=True):
    client: str
    source: str
    name: str
    references: tuple[str, ...]


class ClaudeRunInfo(Record, frozen=True, kw_only=True):
    model: str
    measured_at: str


class AuditReport(Record, frozen=True, kw_only=True):
    methodology_version: str
    encoding: str
    generated_at: str
    context_window: int
    configs: tuple[ConfigResult, ...]
    empty_configs: tuple[EmptyConfig, ...] = ()
    problems: tuple[str, ...] = ()
    unresolved: tuple[UnresolvedEntry, ...] = ()
    env_variants: tuple[EnvVariant, ...] = ()
    claude_divergence: ClaudeRunInfo | None = None
    sessions: tuple[SessionResult, ...] = ()
    mcpcost_version: str = __version__

    @property
    def measured_any(self) -> bool:
        return any(c.servers for c in self.configs)

    @property
    def audited_anything(self) -> bool:
        """False when there was nothing to audit or every server failed: exit 1."""
        return self.measured_any


def first_line(text: str | None, limit: int = NOTE_LIMIT) -> str | None:
    """The first line of ``text``, at most ``limit`` characters (a cut one ends in "…")."""
    if not text or not text.strip():
        return None
    line = text.strip().splitlines()[0]
    return line if len(line) <= limit else line[: limit - 1] + "…"
