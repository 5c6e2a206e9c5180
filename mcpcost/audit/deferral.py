"""The regimes of the one model of loading: whether a client session's definitions load up front.

Pure logic. ``decide`` is the only place a session's load verdict (``LoadVerdict``) is made; the
client lens (``audit.lens``) calls it with the session's numbers and puts the result
(``Loading``) in the session's ``ModelView``. Every client's rule is a regime of it:

* an explicit ``--config`` file (nobody said which client reads it) and a client with no
  deferral rule on record: cannot be said;
* a client whose module supplies a posture model (``Presentation.deferral``: Claude Code's tool
  search) resolves its posture from the shell's variables and its settings files as read at the
  edge: loads up front, defers everything, a threshold, or cannot be said (a setting unresolved
  or unrecognized, or any posture ``DeferralMode.cannot_say`` marks);
* a threshold in the model's tokens (``ENABLE_TOOL_SEARCH=auto``/``auto:N``) is evaluated here on
  the session's request tokens: counted exactly where a divergence run counted every server,
  else a calibrated estimate, else the wire total through a ratio band (the run's, or the
  published one);
* a regime of the lens's rules (``DeferralRegime``): ``always`` (Cursor's names-only), a tool
  count (Codex's 100 tools), or model-dependent (cannot be said).

``alwaysLoad: true`` servers stay up front when the rest defers (``Loading.always_load``). A
server without a number that could decide a threshold makes the verdict cannot-be-said.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

from mcpcost.configs.clients import KNOWN_CLIENTS, client_named, presentation_of
from mcpcost.configs.clients.presentation import (
    DeferralMode,
    DeferralRegime,
    LoadVerdict,
    Posture,
    Presentation,
    Setting,
    SettingsSource,
    Trigger,
)
from mcpcost.configs.clients.settings_files import ClientSettings
from mcpcost.configs.config_file import EXPLICIT, ClientName

if TYPE_CHECKING:  # a divergence run is read (and its module loaded) only with --claude
    from mcpcost.core.divergence import DivergenceRun

# The published band of Anthropic request tokens per o200k wire token, across measured servers
# (the Claude model divergence run): how a threshold in the model's tokens is read from ours.
PUBLISHED_RATIO_LOW = 0.20
PUBLISHED_RATIO_HIGH = 1.92
PUBLISHED_RATIO_SERVERS = 20

# the regime names of the two cases without a rule of the client's
CLIENT_UNKNOWN = str(DeferralMode.CLIENT_UNKNOWN)
NONE_ON_RECORD = str(DeferralMode.NONE_ON_RECORD)


@dataclass(frozen=True, slots=True, kw_only=True)
class RatioBand:
    low: float
    high: float
    servers: int
    source: Literal["published", "run"]

    def to_dict(self) -> dict[str, Any]:
        return {"low": self.low, "high": self.high, "servers": self.servers, "source": self.source}


PUBLISHED_BAND = RatioBand(
    low=PUBLISHED_RATIO_LOW,
    high=PUBLISHED_RATIO_HIGH,
    servers=PUBLISHED_RATIO_SERVERS,
    source="published",
)


class EvidenceKind(StrEnum):
    """What one piece of a verdict's evidence is."""

    SETTING = "setting"  # a setting read (or its documented default)
    THRESHOLD = "threshold"  # a threshold evaluated, with its numbers
    GATING = "gating"  # where the client's own gating keeps the rule from applying
    RULE = "rule"  # the client's rule on record, with its source
    UNMEASURED = "unmeasured"  # a server without a number that the verdict depends on


@dataclass(frozen=True, slots=True, kw_only=True)
class Evidence:
    kind: EvidenceKind
    text: str
    source: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "source": self.source}


@dataclass(frozen=True, slots=True, kw_only=True)
class DeferralServer:
    """One measured server as the loading arithmetic sees it."""

    name: str
    tokens: int
    anthropic_tokens: int | None = None  # exact Anthropic count when a current run row matched
    always_load: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class AlwaysLoad:
    """Servers pinned ``alwaysLoad: true``: loaded at session start whatever else defers."""

    servers: tuple[str, ...]
    tokens: int  # their wire tokens
    unmeasured: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "servers": list(self.servers),
            "tokens": self.tokens,
            "unmeasured": list(self.unmeasured),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestTokens:
    """A session's definitions in the model's request tokens, for a threshold: ``low``..``high``
    (equal when exact); ``ratio`` the band it was read through (None: exact counts, or a
    calibrated estimate when ``estimated`` > 0)."""

    low: int
    high: int
    exact: int  # servers counted exactly
    estimated: int  # servers estimated
    ratio: RatioBand | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "low": self.low,
            "high": self.high,
            "exact": self.exact,
            "estimated": self.estimated,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadInputs:
    """What decides a session's loading, gathered before the lens: its client, its measured
    servers (wire tokens), those without a number, its context window, the client's posture as
    resolved on this machine (None: no posture model, or an explicit file) and, for a threshold,
    the session's request tokens."""

    client: ClientName
    sources: tuple[str, ...] = ()
    servers: tuple[DeferralServer, ...] = ()
    unmeasured: tuple[str, ...] = ()
    pinned_unmeasured: tuple[str, ...] = ()
    context_window: int
    posture: Posture | None = None
    request: RequestTokens | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Loading:
    """The session's load verdict, what decides it (``condition``), and its ``evidence``; the
    rest are the regime's particulars as the report renders them."""

    client: ClientName
    verdict: LoadVerdict
    condition: str
    evidence: tuple[Evidence, ...]
    regime: str  # the rule's name: its mechanism ("tool-search"), or why there is none
    mode: DeferralMode  # the posture the regime resolved to
    mechanism: str | None
    sources: tuple[str, ...]
    setting: Setting | None = None
    threshold_share: float | None = None
    threshold_tokens: int | None = None  # a threshold in the model's request tokens
    min_tools: int | None = None  # a threshold in tools (a tool-count regime)
    tool_count: int = 0
    request: RequestTokens | None = None
    wire_tokens: int = 0
    is_floor: bool = False  # a server without a number: the session's numbers are floors
    crosses: bool | None = None  # a threshold's outcome (None: not evaluated or undecided)
    exceptions: tuple[str, ...] = ()
    always_load: AlwaysLoad = AlwaysLoad(servers=(), tokens=0)

    def reference_dict(self) -> dict[str, Any]:
        """The reference-compatible ``deferral`` object of a config file in ``audit --json``."""
        r = self.request
        distance = (
            {"low": r.low - self.threshold_tokens, "high": r.high - self.threshold_tokens}
            if r is not None and self.threshold_tokens is not None
            else None
        )
        return {
            "client": self.client,
            "mode": self.mode,
            "mechanism": self.mechanism,
            "sources": list(self.sources),
            "setting": self.setting.to_dict() if self.setting else None,
            "thresholdShare": self.threshold_share,
            "thresholdTokens": self.threshold_tokens,
            "wireTokens": self.wire_tokens,
            "clientTokens": r.to_dict() if r is not None else None,
            "ratio": r.ratio.to_dict() if r is not None and r.ratio is not None else None,
            "isFloor": self.is_floor,
            "distanceTokens": distance,
            "crosses": self.crosses,
            "sharedMeasurements": 0,
            "exceptions": list(self.exceptions),
            "alwaysLoad": self.always_load.to_dict(),
        }


# --------------------------------------------------------------------------- inputs


def _run_band(divergence: DivergenceRun | None) -> RatioBand | None:
    """The ratio band of a divergence run's current rows (None: no run, or no usable row)."""
    ratios = divergence.current_ratios() if divergence is not None else []
    if not ratios:
        return None
    return RatioBand(low=min(ratios), high=max(ratios), servers=len(ratios), source="run")


def request_tokens(
    servers: Sequence[DeferralServer],
    divergence: DivergenceRun | None,
    estimate: RequestTokens | None,
) -> RequestTokens:
    """The session's request tokens for a threshold: exact where a run counted every server;
    else ``estimate`` (a calibrated estimate) when there is one; else the wire tokens through
    the run's ratio band or the published one."""
    if servers and all(s.anthropic_tokens is not None for s in servers):
        exact = sum(s.anthropic_tokens or 0 for s in servers)
        return RequestTokens(low=exact, high=exact, exact=len(servers), estimated=0)
    if estimate is not None:
        return estimate
    band = _run_band(divergence) or PUBLISHED_BAND
    low = high = 0.0
    exact_n = estimated = 0
    for s in servers:
        if s.anthropic_tokens is not None:
            low += s.anthropic_tokens
            high += s.anthropic_tokens
            exact_n += 1
        else:
            low += s.tokens * band.low
            high += s.tokens * band.high
            estimated += 1
    return RequestTokens(
        low=round(low), high=round(high), exact=exact_n, estimated=estimated, ratio=band
    )


def client_posture_sources(
    client: ClientName, settings: Mapping[ClientName, ClientSettings] | None
) -> tuple[SettingsSource, ...] | None:
    """What ``client``'s settings files set of its deciding variables, by its deferral model
    (None: the settings were not read in this run, or the client has no deferral model)."""
    model = presentation_of(client).deferral
    if model is None or settings is None:
        return None
    return model.sources(settings.get(client) or ClientSettings(files=()))


def load_inputs(
    *,
    client: ClientName,
    sources: Sequence[str],
    servers: Sequence[DeferralServer],
    unmeasured: Sequence[str],
    pinned_unmeasured: Sequence[str] = (),
    context_window: int,
    shell_environ: Mapping[str, str] | None = None,
    settings: Sequence[SettingsSource] | None = None,
    divergence: DivergenceRun | None = None,
    estimate: RequestTokens | None = None,
) -> LoadInputs:
    """A session's ``LoadInputs``: its client's posture resolved from the shell and ``settings``
    (what its settings files set of the deciding variables; None: not read), and, under a
    threshold posture, its request tokens."""
    posture = None
    model = presentation_of(client).deferral if client != EXPLICIT else None
    if model is not None:
        posture = model.resolve(shell_environ or {}, settings)
    request = None
    if posture is not None and posture.mode is DeferralMode.THRESHOLD:
        request = request_tokens(servers, divergence, estimate)
    return LoadInputs(
        client=client,
        sources=tuple(sources),
        servers=tuple(servers),
        unmeasured=tuple(unmeasured),
        pinned_unmeasured=tuple(pinned_unmeasured),
        context_window=context_window,
        posture=posture,
        request=request,
    )


# --------------------------------------------------------------------------- the verdict


def _label(client: ClientName) -> str:
    return client_named(client).label if client in KNOWN_CLIENTS else str(client)


def _setting_evidence(st: Setting) -> Evidence:
    if st.unresolved == "sources-disagree":
        text = f"{st.variable} is set to different values in the shell and in {st.source}"
    elif st.unresolved == "value-unreadable":
        text = f"{st.variable} is set to something that is not a string"
    elif st.unresolved == "source-unreadable":
        text = "a settings file exists and could not be read"
    elif not st.read_from_machine:
        text = f"{st.variable} is unset (the documented default)"
    else:
        text = f"{st.variable}={st.value}"
    return Evidence(kind=EvidenceKind.SETTING, text=text, source=st.source)


def _unmeasured_evidence(names: Sequence[str]) -> tuple[Evidence, ...]:
    return tuple(Evidence(kind=EvidenceKind.UNMEASURED, text=f"{n} has no number") for n in names)


def _crosses(low: int, high: int, threshold: int, floor: bool) -> bool | None:
    if low >= threshold:
        return True
    if floor or high >= threshold:
        return None
    return False


def _outcome(crosses: bool | None) -> LoadVerdict:
    if crosses is None:
        return LoadVerdict.CANNOT_BE_SAID
    return LoadVerdict.DEFERRED if crosses else LoadVerdict.LOADED_UP_FRONT


def decide(inputs: LoadInputs, presentation: Presentation, tool_count: int) -> Loading:
    """The session's ``Loading`` under its client's regime; ``tool_count``: the tools the lens
    found visible to the model (a tool-count regime counts them)."""
    i, p = inputs, presentation
    label = _label(i.client)
    pinned = [s for s in i.servers if s.always_load]
    base = Loading(
        client=i.client,
        verdict=LoadVerdict.CANNOT_BE_SAID,
        condition="",
        evidence=(),
        regime=CLIENT_UNKNOWN,
        mode=DeferralMode.CLIENT_UNKNOWN,
        mechanism=None,
        sources=i.sources,
        tool_count=tool_count,
        wire_tokens=sum(s.tokens for s in i.servers),
        is_floor=bool(i.unmeasured),
        always_load=AlwaysLoad(
            servers=tuple(s.name for s in pinned),
            tokens=sum(s.tokens for s in pinned),
            unmeasured=i.pinned_unmeasured,
        ),
    )
    if i.client == EXPLICIT:
        return replace(
            base,
            condition="Which client reads this file is not known (--config), so whether its "
            "definitions are deferred cannot be said.",
            evidence=(Evidence(kind=EvidenceKind.RULE, text="an explicit --config file"),),
        )
    regime, model = p.regime, p.deferral
    if regime is None and model is None:
        return replace(
            base,
            regime=NONE_ON_RECORD,
            mode=DeferralMode.NONE_ON_RECORD,
            condition=f"No deferral rule of {label}'s is on record, so whether it keeps these "
            "definitions back cannot be said.",
            evidence=(Evidence(kind=EvidenceKind.RULE, text="no deferral rule on record"),),
        )
    if regime is not None and regime.trigger is not Trigger.VERDICT:
        return _regime(base, regime, i, label)
    assert model is not None  # a VERDICT regime follows the client's posture model
    posture = i.posture
    if posture is None:  # the client has a posture model, but nothing was resolved
        return replace(
            base,
            regime=model.mechanism,
            mode=DeferralMode.SETTING_UNRESOLVED,
            mechanism=model.mechanism,
            condition=f"{label}'s {model.mechanism} setting was not read.",
        )
    rule = Evidence(
        kind=EvidenceKind.RULE,
        text=f"{model.mechanism}: {regime.note if regime is not None else model.reads_from}",
        source=model.provenance.source,
    )
    gating = tuple(
        Evidence(kind=EvidenceKind.GATING, text=f"not where deferral does not apply: {e}")
        for e in model.exceptions
    )
    loading = replace(
        base,
        regime=model.mechanism,
        mode=posture.mode,
        mechanism=model.mechanism,
        setting=posture.setting,
        evidence=(rule, _setting_evidence(posture.setting)),
    )
    words = model.mechanism.replace("-", " ")
    verdict = posture.mode.verdict
    if verdict is LoadVerdict.LOADED_UP_FRONT:
        return replace(
            loading,
            verdict=verdict,
            condition=f"{label}'s {words} is off here, so every request carries these definitions.",
        )
    if verdict is LoadVerdict.DEFERRED:
        return replace(
            loading,
            verdict=verdict,
            exceptions=model.exceptions,
            evidence=(*loading.evidence, *gating),
            condition=f"{label} defers every MCP tool definition ({words}) at any size"
            + (", but its alwaysLoad servers." if pinned or i.pinned_unmeasured else "."),
        )
    if posture.mode is DeferralMode.VENDOR_GATED:
        return replace(
            loading,
            verdict=LoadVerdict.CANNOT_BE_SAID,
            evidence=(
                *loading.evidence,
                Evidence(
                    kind=EvidenceKind.GATING,
                    text=f"the vendor turns {words} on or off per account, out of this "
                    "machine's sight",
                    source=model.provenance.source,
                ),
            ),
            condition=f"{label}'s vendor decides per account whether it uses {words}, so "
            "whether it defers cannot be said here.",
        )
    if verdict is LoadVerdict.CANNOT_BE_SAID:
        return replace(
            loading,
            verdict=verdict,
            condition=f"What decides {label}'s {words} here cannot be read or is not a "
            "documented value, so whether it defers cannot be said.",
        )
    share = posture.threshold_share or 0.0
    threshold = round(i.context_window * share)
    r = i.request or request_tokens(i.servers, None, None)
    crosses = _crosses(r.low, r.high, threshold, bool(i.unmeasured))
    how = (
        "counted exactly"
        if r.estimated == 0
        else "a calibrated estimate"
        if r.ratio is None
        else f"wire x {r.ratio.low:.2f}-{r.ratio.high:.2f}"
    )
    span = f"{r.low:,}" if r.low == r.high else f"{r.low:,}-{r.high:,}"
    measured = (
        Evidence(
            kind=EvidenceKind.THRESHOLD,
            text=f"{span} request tokens ({how}) against {threshold:,} "
            f"({round(share * 100)}% of a {i.context_window:,}-token context window)",
        ),
    )
    verdict = _outcome(crosses)
    said = {
        LoadVerdict.DEFERRED: "this session is at or above it: deferred",
        LoadVerdict.LOADED_UP_FRONT: "this session is under it: loaded up front",
        LoadVerdict.CANNOT_BE_SAID: "which side this session is on cannot be said",
    }[verdict]
    return replace(
        loading,
        verdict=verdict,
        threshold_share=share,
        threshold_tokens=threshold,
        request=r,
        crosses=crosses,
        exceptions=model.exceptions,
        evidence=(
            *loading.evidence,
            *measured,
            *(gating if verdict is LoadVerdict.DEFERRED else ()),
            *(_unmeasured_evidence(i.unmeasured) if crosses is None else ()),
        ),
        condition=f"{label} defers these definitions once they reach {threshold:,} request "
        f"tokens ({round(share * 100)}% of the context window); {said}.",
    )


def _regime(base: Loading, regime: DeferralRegime, i: LoadInputs, label: str) -> Loading:
    """A regime of the lens's rules: always, a tool count, or model-dependent."""
    words = regime.mechanism.replace("-", " ")
    rule = Evidence(
        kind=EvidenceKind.RULE,
        text=f"{regime.mechanism}: {regime.note}" if regime.note else regime.mechanism,
        source=regime.provenance.source,
    )
    loading = replace(base, regime=regime.mechanism, mechanism=regime.mechanism, evidence=(rule,))
    if regime.trigger is Trigger.ALWAYS:
        return replace(
            loading,
            verdict=LoadVerdict.DEFERRED,
            mode=DeferralMode.DEFERS_ALL,
            condition=f"{label} keeps every MCP tool definition back ({words}), at any size.",
        )
    if regime.trigger is Trigger.MODEL_DEPENDENT:
        return replace(
            loading,
            verdict=LoadVerdict.CANNOT_BE_SAID,
            mode=DeferralMode.MODEL_DEPENDENT,
            evidence=(
                rule,
                Evidence(kind=EvidenceKind.GATING, text="only with some models"),
            ),
            condition=f"{label} defers definitions ({words}) only with some models, so whether "
            "it defers them here cannot be said.",
        )
    least = regime.min_tools or 0
    crosses = _crosses(base.tool_count, base.tool_count, least, False)
    if crosses is False and i.unmeasured:
        crosses = None
    verdict = _outcome(crosses)
    said = {
        LoadVerdict.DEFERRED: "it has that many: deferred",
        LoadVerdict.LOADED_UP_FRONT: "it has fewer: loaded up front",
        LoadVerdict.CANNOT_BE_SAID: "servers without a number could reach it: cannot be said",
    }[verdict]
    return replace(
        loading,
        verdict=verdict,
        mode=DeferralMode.THRESHOLD,
        min_tools=least,
        crosses=crosses,
        evidence=(
            rule,
            Evidence(
                kind=EvidenceKind.THRESHOLD,
                text=f"{base.tool_count:,} tools against {least:,}",
            ),
            *(_unmeasured_evidence(i.unmeasured) if crosses is None else ()),
        ),
        condition=f"{label} defers its MCP tools ({words}) once a session has {least:,}; "
        f"this session has {base.tool_count:,}, {said}.",
    )
