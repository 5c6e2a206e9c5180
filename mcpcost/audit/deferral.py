"""Who pays the number: whether a client session's tool definitions load up front or are deferred.

Pure logic. What a client does is its own module's model (``Client.presentation.deferral``, a
``DeferralModel``): it resolves the client's posture from the shell's variables and its settings
files as read at the edge. Here is only what every client shares: the modes that need no posture
and the arithmetic of a threshold.

Modes (``DeferralMode``):

* ``client-unknown``: an explicit ``--config`` file; nobody said which client reads it.
* ``no-deferral-on-record``: a client whose module records no deferral regime. This is an
  absence of a record about the client, not a measurement of it.
* otherwise the client's posture: ``setting-unresolved``, ``setting-unrecognized``,
  ``loads-upfront``, ``defers-all``, or ``threshold``, where the session's wire tokens are
  converted to the model's request tokens (exactly for servers a divergence run counted, else
  through a ratio band: the run's, or the published one) and compared with the threshold.

``alwaysLoad: true`` is read from the config: pinned servers are counted as loaded at session
start even when the rest defers (``DeferralVerdict.always_load``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from mcpcost.configs.clients import presentation_of
from mcpcost.configs.clients.presentation import DeferralMode, Setting, SettingsSource
from mcpcost.configs.clients.settings_files import ClientSettings
from mcpcost.configs.config_file import EXPLICIT, ClientName

if TYPE_CHECKING:  # a divergence run is read (and its module loaded) only with --claude
    from mcpcost.core.divergence import DivergenceRun

# The published band of Anthropic request tokens per o200k wire token, across measured servers
# (the Claude model divergence run): how a threshold in the model's tokens is read from ours.
PUBLISHED_RATIO_LOW = 0.20
PUBLISHED_RATIO_HIGH = 1.92
PUBLISHED_RATIO_SERVERS = 20

# the modes whose session pays its whole wire total before the user types
_PAYS_ALL = (DeferralMode.CLIENT_UNKNOWN, DeferralMode.NONE_ON_RECORD, DeferralMode.LOADS_UPFRONT)


# --------------------------------------------------------------------------- verdict


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


@dataclass(frozen=True, slots=True, kw_only=True)
class DeferralServer:
    """One measured server as the deferral arithmetic sees it."""

    name: str
    tokens: int
    anthropic_tokens: int | None = None  # exact Anthropic count when a current run row matched
    always_load: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class AlwaysLoad:
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


@dataclass(frozen=True, slots=True, kw_only=True)
class DeferralVerdict:
    client: ClientName
    mode: DeferralMode
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


def _run_band(divergence: DivergenceRun | None) -> RatioBand | None:
    """The ratio band of a divergence run's current rows (None: no run, or no usable row)."""
    ratios = divergence.current_ratios() if divergence is not None else []
    if not ratios:
        return None
    return RatioBand(low=min(ratios), high=max(ratios), servers=len(ratios), source="run")


def _always_load(servers: Sequence[DeferralServer], pinned_unmeasured: Sequence[str]) -> AlwaysLoad:
    pinned = [s for s in servers if s.always_load]
    return AlwaysLoad(
        servers=tuple(s.name for s in pinned),
        tokens=sum(s.tokens for s in pinned),
        unmeasured=tuple(pinned_unmeasured),
    )


def decide(
    *,
    client: ClientName,
    sources: Sequence[str],
    servers: Sequence[DeferralServer],
    is_floor: bool,
    context_window: int,
    shell_environ: Mapping[str, str] | None = None,
    settings: Sequence[SettingsSource] | None = None,
    divergence: DivergenceRun | None = None,
    pinned_unmeasured: Sequence[str] = (),
    shared_measurements: int = 0,
) -> DeferralVerdict:
    """The verdict for one client session. ``settings``: what the client's settings files set of
    its deciding variables (its model's ``sources``; None: the files were not read)."""
    verdict = DeferralVerdict(
        client=client,
        mode=DeferralMode.CLIENT_UNKNOWN,
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
    model = presentation_of(client).deferral
    if model is None:
        return replace(verdict, mode=DeferralMode.NONE_ON_RECORD)
    posture = model.resolve(shell_environ or {}, settings)
    verdict = replace(
        verdict, mode=posture.mode, mechanism=model.mechanism, setting=posture.setting
    )
    if posture.mode is DeferralMode.DEFERS_ALL:
        return replace(verdict, exceptions=model.exceptions)
    if posture.mode is not DeferralMode.THRESHOLD:
        return verdict
    share = posture.threshold_share or 0.0
    threshold = round(context_window * share)
    verdict = replace(
        verdict, threshold_share=share, threshold_tokens=threshold, exceptions=model.exceptions
    )
    if shared_measurements > 0:
        return verdict
    band = _run_band(divergence) or PUBLISHED_BAND
    low = high = 0.0
    exact = estimated = 0
    for s in servers:
        if s.anthropic_tokens is not None:
            low += s.anthropic_tokens
            high += s.anthropic_tokens
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


def with_request_estimate(
    verdict: DeferralVerdict, low: int, high: int, exact: int, estimated: int
) -> DeferralVerdict:
    """A threshold verdict judged on a calibrated estimate of the session's request tokens
    (``low``..``high``: the estimate and its band) instead of a ratio band; any other verdict,
    or one a divergence run already counted exactly, unchanged."""
    if (
        verdict.mode is not DeferralMode.THRESHOLD
        or verdict.threshold_tokens is None
        or verdict.client_tokens is None
        or verdict.client_tokens.get("estimated", 0) == 0
    ):
        return verdict
    threshold = verdict.threshold_tokens
    crosses: bool | None
    if low >= threshold:
        crosses = True
    elif verdict.is_floor or high >= threshold:
        crosses = None
    else:
        crosses = False
    return replace(
        verdict,
        client_tokens={"low": low, "high": high, "exact": exact, "estimated": estimated},
        ratio=None,
        distance_tokens={"low": low - threshold, "high": high - threshold},
        crosses=crosses,
    )


def upfront_tokens(verdict: DeferralVerdict) -> int | None:
    """Wire tokens every request carries before the user types, or None when it cannot be said."""
    if verdict.mode in _PAYS_ALL:
        return verdict.wire_tokens
    if verdict.mode is DeferralMode.DEFERS_ALL:
        return verdict.always_load.tokens
    if verdict.mode is DeferralMode.THRESHOLD and verdict.crosses is not None:
        return verdict.always_load.tokens if verdict.crosses else verdict.wire_tokens
    return None


def client_posture_sources(
    client: ClientName, settings: Mapping[ClientName, ClientSettings] | None
) -> tuple[SettingsSource, ...] | None:
    """What ``client``'s settings files set of its deciding variables, by its deferral model
    (None: the settings were not read in this run, or the client has no deferral model)."""
    model = presentation_of(client).deferral
    if model is None or settings is None:
        return None
    return model.sources(settings.get(client) or ClientSettings(files=()))
