"""Who pays the number: whether a client loads a config's tool definitions up front or defers them.

Pure logic. Inputs are values: the shell's three tool-search variables, Claude Code's settings
files as read (``SettingsSource``, read by ``read_settings_sources`` at the edge), the measured
servers of one session, and optionally a published Claude divergence run.

Modes (``DeferralVerdict.mode``):

* ``client-unknown``: an explicit ``--config`` file; nobody said which client reads it.
* ``no-deferral-on-record``: every client whose module records no deferral (all but Claude Code;
  named in the verdict). This is
  an absence of a record about the client, not a measurement of it.
* Claude Code, resolved from the shell plus four settings files (managed, project-local,
  project, user; highest precedence first):
  ``setting-unresolved`` (a settings file exists but cannot be read, a deciding value is not a
  string, or two places disagree), ``loads-upfront`` (betas disabled, ``ENABLE_TOOL_SEARCH=false``,
  or a base URL off api.anthropic.com while ``ENABLE_TOOL_SEARCH`` is unset), ``defers-all``
  (unset or ``true``), ``threshold`` (``auto`` / ``auto:N``), ``setting-unrecognized``.

``alwaysLoad: true`` is read from the config: pinned servers are counted as
loaded at session start even when the rest defers (``DeferralVerdict.always_load``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from mcpcost.configs.clients import EXPLICIT, DeferralRule, deferral_rule
from mcpcost.configs.clients.claude_code import settings_object
from mcpcost.core.patterns import LazyPattern
from mcpcost.core.record import Record, replace
from mcpcost.errors import InputError

if TYPE_CHECKING:  # a divergence run is read (and its module loaded) only with --claude
    from mcpcost.core.divergence import DivergenceRun

BETAS = "CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS"
TOOL_SEARCH = "ENABLE_TOOL_SEARCH"
BASE_URL = "ANTHROPIC_BASE_URL"
VARIABLES = (BETAS, TOOL_SEARCH, BASE_URL)
SHELL_SOURCE = "(shell environment)"
ANTHROPIC_HOST = "api.anthropic.com"
DEFAULT_THRESHOLD_SHARE = 0.10
DOCUMENTED_VALUES = ("true", "false", "auto", "auto:N (N from 0 to 100)")

# The published Claude divergence band (o200k wire tokens -> Anthropic request tokens).
PUBLISHED_RATIO_LOW = 0.20
PUBLISHED_RATIO_HIGH = 1.92
PUBLISHED_RATIO_SERVERS = 20

EXCEPTIONS = (
    "a Microsoft Foundry deployment hosted on Azure, which rejects tool search server-side",
    "Google Cloud's Agent Platform on a model earlier than the Claude 4.5 generation",
    "a model without support for tool_reference blocks (before Sonnet 4.5 / Haiku 4.5 / Opus 4.5)",
)


_AUTO_N = LazyPattern(r"auto:(\d{1,3})")


# --------------------------------------------------------------------------- settings sources


class SettingsSource(Record, frozen=True, kw_only=True):
    """One place Claude Code reads the tool-search variables from, as it was found."""

    scope: str  # shell | managed | project-local | project | user
    source: str  # a path, or SHELL_SOURCE
    state: str  # read | absent | unreadable
    values: tuple[tuple[str, str], ...] = ()  # non-empty string values of the three variables
    unreadable: tuple[str, ...] = ()  # variables set to something that is not a string

    @property
    def sets(self) -> tuple[str, ...]:
        names = {k for k, _ in self.values} | set(self.unreadable)
        return tuple(v for v in VARIABLES if v in names)

    def value(self, name: str) -> str | None:
        return dict(self.values).get(name)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "scope": self.scope,
            "source": self.source,
            "state": self.state,
            "sets": list(self.sets),
        }
        if self.unreadable:
            out["unreadable"] = list(self.unreadable)
        return out


def parse_settings(scope: str, source: str, text: str | bytes | None) -> SettingsSource:
    """A settings file's text (None when absent) -> what it sets of the three variables."""
    state, data = settings_object(text)
    if state != "read":
        return SettingsSource(scope=scope, source=source, state=state)
    env = data.get("env")
    if env is None:
        return SettingsSource(scope=scope, source=source, state="read")
    if not isinstance(env, dict):
        return SettingsSource(scope=scope, source=source, state="unreadable")
    values: list[tuple[str, str]] = []
    unreadable: list[str] = []
    for name in VARIABLES:
        if name not in env:
            continue
        value = env[name]
        if isinstance(value, str):
            if value:
                values.append((name, value))
        else:
            unreadable.append(name)
    return SettingsSource(
        scope=scope, source=source, state="read", values=tuple(values), unreadable=tuple(unreadable)
    )


def read_settings_sources(
    paths: Sequence[tuple[str, str]], read: Callable[[str], bytes | None]
) -> tuple[SettingsSource, ...]:
    """Read each settings file with ``read`` (returns None when absent, raises OSError/
    InputError when it exists but cannot be read)."""
    out: list[SettingsSource] = []
    for scope, path in paths:
        try:
            data = read(path)
        except (OSError, InputError):
            out.append(SettingsSource(scope=scope, source=path, state="unreadable"))
            continue
        out.append(parse_settings(scope, path, data))
    return tuple(out)


def shell_source(environ: Mapping[str, str]) -> SettingsSource:
    """The shell's three variables (only their non-empty values)."""
    values = tuple((n, environ[n]) for n in VARIABLES if environ.get(n))
    return SettingsSource(scope="shell", source=SHELL_SOURCE, state="read", values=values)


# --------------------------------------------------------------------------- verdict


class RatioBand(Record, frozen=True, kw_only=True):
    low: float
    high: float
    servers: int
    source: str  # published | run

    def to_dict(self) -> dict[str, Any]:
        return {"low": self.low, "high": self.high, "servers": self.servers, "source": self.source}


PUBLISHED_BAND = RatioBand(
    low=PUBLISHED_RATIO_LOW,
    high=PUBLISHED_RATIO_HIGH,
    servers=PUBLISHED_RATIO_SERVERS,
    source="published",
)


class Setting(Record, frozen=True, kw_only=True):
    """How the deciding variable was resolved, and every place that was consulted."""

    variable: str | None
    value: str | None  # base URL values are reduced to the hostname
    read_from_machine: bool
    source: str | None
    sources: tuple[SettingsSource, ...]
    settings_read: bool  # False when the settings files were not read at all
    unresolved: str | None  # sources-disagree | value-unreadable | source-unreadable

    def to_dict(self) -> dict[str, Any]:
        return {
            "variable": self.variable,
            "value": self.value,
            "readFromMachine": self.read_from_machine,
            "source": self.source,
            "sources": [s.to_dict() for s in self.sources],
            "settingsRead": self.settings_read,
            "unresolved": self.unresolved,
        }


class SessionServer(Record, frozen=True, kw_only=True):
    """One measured server as the deferral arithmetic sees it."""

    name: str
    tokens: int
    claude_tokens: int | None = None  # exact Anthropic count when a current run row matched
    always_load: bool = False


class AlwaysLoad(Record, frozen=True, kw_only=True):
    """Servers pinned ``alwaysLoad: true``: loaded at session start whatever else defers."""

    servers: tuple[str, ...]
    tokens: int
    unmeasured: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "servers": list(self.servers),
            "tokens": self.tokens,
            "unmeasured": list(self.unmeasured),
        }


class DeferralVerdict(Record, frozen=True, kw_only=True):
    client: str
    mode: str
    mechanism: str | None
    sources: tuple[str, ...]
    setting: Setting | None
    threshold_share: float | None
    threshold_tokens: int | None
    wire_tokens: int
    client_tokens: dict[str, Any] | None  # {low, high, exact, estimated}
    ratio: RatioBand | None
    is_floor: bool
    distance_tokens: dict[str, int] | None
    crosses: bool | None
    shared_measurements: int
    exceptions: tuple[str, ...]
    always_load: AlwaysLoad

    def to_dict(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "mode": self.mode,
            "mechanism": self.mechanism,
            "sources": list(self.sources),
            "setting": self.setting.to_dict() if self.setting else None,
            "thresholdShare": self.threshold_share,
            "thresholdTokens": self.threshold_tokens,
            "wireTokens": self.wire_tokens,
            "clientTokens": self.client_tokens,
            "ratio": self.ratio.to_dict() if self.ratio else None,
            "isFloor": self.is_floor,
            "distanceTokens": self.distance_tokens,
            "crosses": self.crosses,
            "sharedMeasurements": self.shared_measurements,
            "exceptions": list(self.exceptions),
            "alwaysLoad": self.always_load.to_dict(),
        }


class _Resolved(Record, frozen=True):
    value: str | None
    source: str | None
    problem: str | None


def _resolve(name: str, shell: SettingsSource, files: Sequence[SettingsSource]) -> _Resolved:
    winner = next((s for s in files if name in s.sets), None)
    shell_value = shell.value(name)
    if winner is not None:
        if name in winner.unreadable:
            return _Resolved(None, winner.source, "value-unreadable")
        value = winner.value(name)
        if shell_value and shell_value != value:
            return _Resolved(None, winner.source, "sources-disagree")
        return _Resolved(value, winner.source, None)
    if shell_value:
        return _Resolved(shell_value, SHELL_SOURCE, None)
    return _Resolved(None, None, None)


def _hostname(url: str) -> str | None:
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    return host or None


class Posture(Record, frozen=True):
    """Claude Code's resolved tool-search posture on this machine (before any arithmetic)."""

    mode: str
    threshold_share: float | None
    setting: Setting


def claude_code_posture(
    shell_environ: Mapping[str, str], settings: Sequence[SettingsSource] | None
) -> Posture:
    """Resolve the three variables across the shell and the settings files."""
    shell = shell_source(shell_environ)
    files = tuple(settings or ())
    consulted = (shell, *files)
    settings_read = settings is not None

    def setting(
        variable: str | None,
        value: str | None,
        source: str | None,
        unresolved: str | None = None,
        from_machine: bool = True,
    ) -> Setting:
        return Setting(
            variable=variable,
            value=value,
            read_from_machine=from_machine,
            source=source,
            sources=consulted,
            settings_read=settings_read,
            unresolved=unresolved,
        )

    bad_file = next((s for s in files if s.state == "unreadable"), None)
    if bad_file is not None:
        return Posture(
            "setting-unresolved", None, setting(None, None, bad_file.source, "source-unreadable")
        )
    betas = _resolve(BETAS, shell, files)
    if betas.problem:
        return Posture(
            "setting-unresolved", None, setting(BETAS, None, betas.source, betas.problem)
        )
    if betas.value:
        return Posture("loads-upfront", None, setting(BETAS, betas.value, betas.source))
    search = _resolve(TOOL_SEARCH, shell, files)
    if search.problem:
        return Posture(
            "setting-unresolved", None, setting(TOOL_SEARCH, None, search.source, search.problem)
        )
    if search.value is not None:
        value = search.value.strip()
        made = setting(TOOL_SEARCH, search.value, search.source)
        if value == "true":
            return Posture("defers-all", None, made)
        if value == "false":
            return Posture("loads-upfront", None, made)
        if value == "auto":
            return Posture("threshold", DEFAULT_THRESHOLD_SHARE, made)
        auto = _AUTO_N.fullmatch(value)
        if auto and int(auto.group(1)) <= 100:
            return Posture("threshold", int(auto.group(1)) / 100, made)
        return Posture("setting-unrecognized", None, made)
    base = _resolve(BASE_URL, shell, files)
    if base.problem:
        return Posture(
            "setting-unresolved", None, setting(BASE_URL, None, base.source, base.problem)
        )
    if base.value is not None:
        host = _hostname(base.value)
        if host != ANTHROPIC_HOST:
            shown = host if host is not None else "(unreadable URL)"
            return Posture("loads-upfront", None, setting(BASE_URL, shown, base.source))
    return Posture("defers-all", None, setting(TOOL_SEARCH, None, None, from_machine=False))


def _run_band(divergence: DivergenceRun | None) -> RatioBand | None:
    """The ratio band of a divergence run's current rows (None: no run, or no usable row)."""
    ratios = divergence.current_ratios() if divergence is not None else []
    if not ratios:
        return None
    return RatioBand(low=min(ratios), high=max(ratios), servers=len(ratios), source="run")


def _always_load(servers: Sequence[SessionServer], pinned_unmeasured: Sequence[str]) -> AlwaysLoad:
    pinned = [s for s in servers if s.always_load]
    return AlwaysLoad(
        servers=tuple(s.name for s in pinned),
        tokens=sum(s.tokens for s in pinned),
        unmeasured=tuple(pinned_unmeasured),
    )


def decide(
    *,
    client: str,
    sources: Sequence[str],
    servers: Sequence[SessionServer],
    is_floor: bool,
    context_window: int,
    shell_environ: Mapping[str, str] | None = None,
    settings: Sequence[SettingsSource] | None = None,
    divergence: DivergenceRun | None = None,
    pinned_unmeasured: Sequence[str] = (),
    shared_measurements: int = 0,
) -> DeferralVerdict:
    """The verdict for one session scope (all Claude Code files together, else one file)."""
    verdict = DeferralVerdict(
        client=client,
        mode="client-unknown",
        mechanism=None,
        sources=tuple(sources),
        setting=None,
        threshold_share=None,
        threshold_tokens=None,
        wire_tokens=sum(s.tokens for s in servers),
        client_tokens=None,
        ratio=None,
        is_floor=is_floor,
        distance_tokens=None,
        crosses=None,
        shared_measurements=shared_measurements,
        exceptions=(),
        always_load=_always_load(servers, pinned_unmeasured),
    )
    if client == EXPLICIT:
        return verdict
    if deferral_rule(client) is not DeferralRule.TOOL_SEARCH:
        return replace(verdict, mode="no-deferral-on-record")
    posture = claude_code_posture(shell_environ or {}, settings)
    verdict = replace(verdict, mode=posture.mode, mechanism="tool-search", setting=posture.setting)
    if posture.mode == "defers-all":
        return replace(verdict, exceptions=EXCEPTIONS)
    if posture.mode != "threshold":
        return verdict
    share = posture.threshold_share or 0.0
    threshold = round(context_window * share)
    verdict = replace(
        verdict, threshold_share=share, threshold_tokens=threshold, exceptions=EXCEPTIONS
    )
    if shared_measurements > 0:
        return verdict
    band = _run_band(divergence) or PUBLISHED_BAND
    low = high = 0.0
    exact = estimated = 0
    for s in servers:
        if s.claude_tokens is not None:
            low += s.claude_tokens
            high += s.claude_tokens
            exact += 1
        else:
            low += s.tokens * band.low
            high += s.tokens * band.high
            estimated += 1
    low_i, high_i = round(low), round(high)
    crosses: bool | None
    if low_i >= threshold:
        crosses = True
    elif is_floor or high_i >= threshold:
        crosses = None
    else:
        crosses = False
    return replace(
        verdict,
        client_tokens={"low": low_i, "high": high_i, "exact": exact, "estimated": estimated},
        ratio=band,
        distance_tokens={"low": low_i - threshold, "high": high_i - threshold},
        crosses=crosses,
    )


def upfront_tokens(verdict: DeferralVerdict) -> int | None:
    """Wire tokens every request carries before the user types, or None when it cannot be said."""
    if verdict.mode in ("client-unknown", "no-deferral-on-record", "loads-upfront"):
        return verdict.wire_tokens
    if verdict.mode == "defers-all":
        return verdict.always_load.tokens
    if verdict.mode == "threshold" and verdict.crosses is not None:
        return verdict.always_load.tokens if verdict.crosses else verdict.wire_tokens
    return None
