"""Baseline diff: what changed between an earlier ``audit --json`` report and this one.

``diff_reports(baseline, report) -> AuditDiff`` is pure. ``baseline`` is either a report file
read by ``mcpcost.audit.baseline.parse_baseline`` or a report value (a base side audited in the
same run: ``compose.BaseSide``, as the Action audits a pull request's base commit).

Config pairing, strongest evidence first: the exact ``source``; then the same path spelled
differently (``./.mcp.json``, ``.mcp.json`` and ``/abs/repo/.mcp.json`` pair when exactly one
candidate matches by trailing path components); then ``sole-config`` when each side has exactly
one config left (the CI case: a baseline from a different machine). Unpaired configs in this run
are ``unmatched``; unpaired baseline configs are ``droppedConfigs`` (a config that disappeared is
not a config that got cheaper).

Per-server kinds (``DiffKind``; a server with no number still counts as present): ``added``,
``removed``, ``changed``, ``unchanged``, ``unmeasured-now``, ``unmeasured-before``,
``unmeasured-both``.
A config's diff is ``exact`` only when every server has a number on each side it appears on:
a server that stopped measuring, started measuring, was added unmeasurable or was never measured
makes it inexact, so a server failing is never reported as a saving.

Each server on both sides also compares its launch as the config writes it (``LaunchMatch``, from
``DeclaredLaunch``): an ``unmeasured-both`` server whose launch is the same is a *known unknown*
(``ServerDiff.known_unknown``), which the increase gate carries over instead of failing.

A caller that knows a config held no live server on one side (a base side read from the same
places: the file is absent there, or declares none; ``compose.side_presence``) says so with
``empty_before`` / ``empty_now`` (sources). Such a config is compared with an explicit empty one (total 0) instead of being
``unmatched`` or dropped: a config added by the change grows from 0, one it deletes or empties
shrinks to 0, and both deltas are established.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection
from dataclasses import dataclass
from enum import StrEnum

from mcpcost.audit.baseline import Baseline, BaselineConfig, baseline_of_report
from mcpcost.audit.report_model import AuditReport, ConfigResult, ServerStatus
from mcpcost.configs.config_file import ClientName, Scope
from mcpcost.core.spec import DeclaredLaunch


class DiffKind(StrEnum):
    """What happened to one server between the baseline and this run."""

    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"
    UNCHANGED = "unchanged"
    UNMEASURED_NOW = "unmeasured-now"  # a number before, none now
    UNMEASURED_BEFORE = "unmeasured-before"  # a number now, none before
    UNMEASURED_BOTH = "unmeasured-both"
    # A run with nothing to compare against (the Action on a push): the server's state only.
    MEASURED = "measured"
    UNMEASURED = "unmeasured"


# kinds whose delta cannot be established: a server without a number on a side it appears on
INEXACT_KINDS = frozenset(
    {DiffKind.UNMEASURED_NOW, DiffKind.UNMEASURED_BEFORE, DiffKind.UNMEASURED_BOTH}
)


class LaunchMatch(StrEnum):
    """How a server's launch in this run compares with the baseline's (``DeclaredLaunch``)."""

    SAME = "same"  # the config writes the same launch on both sides
    CHANGED = "changed"  # some part of the launch as written differs
    NOT_RECORDED = "not-recorded"  # the baseline records none (an older or the reference's report)
    NO_LAUNCH = "no-launch"  # this run's entry writes no launch (no command or url)
    FILES_CHANGED = "files-changed"  # written the same, but it names files the change modified


class MatchedBy(StrEnum):
    """How a config of this run was paired with a baseline config, strongest evidence first."""

    EXACT = "exact"
    PATH = "path"
    SOLE_CONFIG = "sole-config"
    UNMATCHED = "unmatched"


# --------------------------------------------------------------------------- diff values


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerDiff:
    name: str
    kind: DiffKind
    before: int | None
    after: int | None
    delta: int | None
    before_status: ServerStatus | None  # None: not in the baseline, or no status it knows
    after_status: ServerStatus | None  # None: not in this run
    note: str | None = None
    launch: LaunchMatch | None = None  # None: not on both sides
    launch_changes: tuple[str, ...] = ()  # the parts that differ, when ``launch`` is CHANGED

    @property
    def blind(self) -> bool:
        """True when this server's change cannot be established (no number on some side)."""
        return self.kind in INEXACT_KINDS or (self.kind is DiffKind.ADDED and self.after is None)

    @property
    def known_unknown(self) -> bool:
        """Without a number in either run, launched as the config wrote it on both sides: an
        unknown the change did not cause, carried over rather than failed."""
        return self.kind is DiffKind.UNMEASURED_BOTH and self.launch is LaunchMatch.SAME


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigDiff:
    client: ClientName
    source: str
    baseline_source: str | None
    matched_by: MatchedBy
    before_total: int | None
    after_total: int
    delta: int | None
    before_share: float | None
    after_share: float
    exact: bool
    understated_by: int
    overstated_by: int
    servers: tuple[ServerDiff, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class DroppedConfig:
    client: ClientName
    source: str
    total_tokens: int


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditDiff:
    baseline_generated_at: str
    baseline_methodology_version: str
    baseline_encoding: str
    comparable: bool
    dropped_configs: tuple[DroppedConfig, ...]
    warnings: tuple[str, ...]
    configs: tuple[ConfigDiff, ...]
    worst_increase: tuple[str, int] | None  # (source, delta): never a sum across configs


def _norm(path: str) -> str:
    p = posixpath.normpath(path.replace("\\", "/"))
    return "" if p == "." else p


def _is_abs(p: str) -> bool:
    return p.startswith("/") or (len(p) > 2 and p[1] == ":" and p[2] == "/")


def _same_path(a: str, b: str) -> bool:
    na, nb = _norm(a), _norm(b)
    if not na or not nb:
        return False
    if na == nb:
        return True
    a_abs, b_abs = _is_abs(na), _is_abs(nb)
    if a_abs == b_abs:
        return False
    absolute, relative = (na, nb) if a_abs else (nb, na)
    return relative != ".." and not relative.startswith("../") and absolute.endswith("/" + relative)


def pair_configs(
    baseline: tuple[BaselineConfig, ...], configs: tuple[ConfigResult, ...]
) -> tuple[list[tuple[ConfigResult, BaselineConfig | None, MatchedBy]], list[BaselineConfig]]:
    """(config, its baseline or None, how they paired) for each config, and the unpaired baseline."""
    left = list(baseline)
    paired: dict[int, tuple[BaselineConfig, MatchedBy]] = {}
    for i, c in enumerate(configs):
        exact = [b for b in left if b.source == c.source and b.client == c.client] or [
            b for b in left if b.source == c.source
        ]
        if exact:
            paired[i] = (exact[0], MatchedBy.EXACT)
            left.remove(exact[0])
    for i, c in enumerate(configs):
        if i in paired:
            continue
        same = [b for b in left if _same_path(b.source, c.source)]
        if len(same) == 1:
            paired[i] = (same[0], MatchedBy.PATH)
            left.remove(same[0])
    unpaired = [i for i in range(len(configs)) if i not in paired]
    if len(unpaired) == 1 and len(left) == 1 and len(configs) == 1 and len(baseline) == 1:
        paired[unpaired[0]] = (left.pop(), MatchedBy.SOLE_CONFIG)
    out: list[tuple[ConfigResult, BaselineConfig | None, MatchedBy]] = []
    for i, c in enumerate(configs):
        if i in paired:
            out.append((c, paired[i][0], paired[i][1]))
        else:
            out.append((c, None, MatchedBy.UNMATCHED))
    return out, left


def _kind_and_note(
    before: int | None,
    after: int | None,
    status_now: ServerStatus | None,
    in_before: bool,
    in_now: bool,
) -> tuple[DiffKind, str | None]:
    """One server's kind, and the note explaining a side without a number."""
    if not in_before:
        note = f"added, and could not be measured ({status_now})" if after is None else None
        return DiffKind.ADDED, note
    if not in_now:
        return DiffKind.REMOVED, None if before is not None else "removed; it was never measured"
    if before is not None and after is not None:
        return (DiffKind.UNCHANGED if after == before else DiffKind.CHANGED), None
    if before is not None:
        return (
            DiffKind.UNMEASURED_NOW,
            "its cost is missing from the total, not gone from the config",
        )
    if after is not None:
        return DiffKind.UNMEASURED_BEFORE, "the baseline total was missing its cost"
    return DiffKind.UNMEASURED_BOTH, "not measured in either run: it hides an unknown cost"


def _delta(kind: DiffKind, before: int | None, after: int | None) -> int | None:
    if kind is DiffKind.ADDED:
        return after
    if kind is DiffKind.REMOVED:
        return -before if before is not None else None
    if kind in (DiffKind.CHANGED, DiffKind.UNCHANGED) and before is not None and after is not None:
        return after - before
    return None


def _launch(
    before: DeclaredLaunch | None, after: DeclaredLaunch | None, touched: bool
) -> tuple[LaunchMatch, tuple[str, ...]]:
    if after is None:
        return LaunchMatch.NO_LAUNCH, ()
    if before is None:
        return LaunchMatch.NOT_RECORDED, ()
    changes = after.differences(before)
    if changes:
        return LaunchMatch.CHANGED, changes
    return (LaunchMatch.FILES_CHANGED if touched else LaunchMatch.SAME), ()


CARRIED_NOTE = "not measured in either run, launched the same way: a known unknown, carried over"


def _server_diffs(
    before: BaselineConfig, after: ConfigResult, touched: Collection[str] = ()
) -> list[ServerDiff]:
    b = {s.name: s for s in before.servers}
    a = {s.name: s for s in (*after.servers, *after.skipped)}
    out = []
    for name in sorted(set(b) | set(a)):
        bs, as_ = b.get(name), a.get(name)
        bt = bs.tokens if bs else None
        at = as_.tokens if as_ else None
        now_status = as_.status if as_ else None
        kind, note = _kind_and_note(bt, at, now_status, bs is not None, as_ is not None)
        launch, changes = (
            _launch(bs.declared, as_.declared, name in touched)
            if bs is not None and as_ is not None
            else (None, ())
        )
        if kind is DiffKind.UNMEASURED_BOTH and launch is LaunchMatch.SAME:
            note = CARRIED_NOTE
        out.append(
            ServerDiff(
                name=name,
                kind=kind,
                before=bt,
                after=at,
                delta=_delta(kind, bt, at),
                before_status=bs.status if bs else None,
                after_status=now_status,
                note=note,
                launch=launch,
                launch_changes=changes,
            )
        )
    return sorted(out, key=lambda s: (-abs(s.delta or 0), s.name))


def _empty_result(client: ClientName, source: str) -> ConfigResult:
    """A config declaring no live server: what a file that is absent or empty costs."""
    return ConfigResult(
        client=client,
        source=source,
        scope=Scope.PROJECT,
        total_tokens=0,
        tool_count=0,
        server_count=0,
        context_share=0.0,
        servers=(),
        skipped=(),
        disabled=(),
        heaviest_tools=(),
        trim_advice=None,
    )


def _with_empty_before(
    configs: tuple[BaselineConfig, ...], report: AuditReport, empty_before: Collection[str]
) -> tuple[BaselineConfig, ...]:
    """The baseline plus an explicit empty config for each known-empty source of this run."""
    have = {b.source for b in configs}
    extra = tuple(
        BaselineConfig(client=c.client, source=c.source, total_tokens=0, servers=())
        for c in report.configs
        if c.source in empty_before and c.source not in have
    )
    return configs + extra


def _emptied(base: BaselineConfig, window: int) -> ConfigDiff:
    """A baseline config known to hold no live server now: every server removed, total 0."""
    servers = _server_diffs(base, _empty_result(base.client, base.source))
    return ConfigDiff(
        client=base.client,
        source=base.source,
        baseline_source=base.source,
        matched_by=MatchedBy.EXACT,
        before_total=base.total_tokens,
        after_total=0,
        delta=-base.total_tokens,
        before_share=base.total_tokens / window,
        after_share=0.0,
        exact=not any(s.kind in INEXACT_KINDS for s in servers),
        understated_by=0,
        overstated_by=0,
        servers=tuple(servers),
    )


def _comparability_warnings(baseline: Baseline, report: AuditReport) -> list[str]:
    """Warnings for what changed between the baseline's run and this one."""
    warnings: list[str] = []
    if baseline.methodology_version != report.methodology_version:
        warnings.append(
            f"methodology changed: baseline {baseline.methodology_version}, "
            f"now {report.methodology_version}; the numbers are not comparable"
        )
    if baseline.encoding != report.encoding:
        warnings.append(
            f"encoding changed: baseline {baseline.encoding}, now {report.encoding}; "
            "the numbers are not comparable"
        )
    if baseline.context_window is not None and baseline.context_window != report.context_window:
        warnings.append(
            f"context window changed ({baseline.context_window:,} → {report.context_window:,}): "
            "shares are not comparable, token counts are"
        )
    return warnings


def _unmatched(config: ConfigResult, after_share: float) -> ConfigDiff:
    """A config of this run with no counterpart in the baseline."""
    return ConfigDiff(
        client=config.client,
        source=config.source,
        baseline_source=None,
        matched_by=MatchedBy.UNMATCHED,
        before_total=None,
        after_total=config.total_tokens,
        delta=None,
        before_share=None,
        after_share=after_share,
        exact=False,
        understated_by=0,
        overstated_by=0,
        servers=(),
    )


def _paired(
    config: ConfigResult,
    base: BaselineConfig,
    matched_by: MatchedBy,
    servers: list[ServerDiff],
    window: int,
    after_share: float,
) -> ConfigDiff:
    """A config of this run compared with its baseline counterpart."""
    return ConfigDiff(
        client=config.client,
        source=config.source,
        baseline_source=base.source,
        matched_by=matched_by,
        before_total=base.total_tokens,
        after_total=config.total_tokens,
        delta=config.total_tokens - base.total_tokens,
        before_share=base.total_tokens / window,
        after_share=after_share,
        exact=not any(s.blind for s in servers),
        understated_by=sum(s.before or 0 for s in servers if s.kind is DiffKind.UNMEASURED_NOW),
        overstated_by=sum(s.after or 0 for s in servers if s.kind is DiffKind.UNMEASURED_BEFORE),
        servers=tuple(servers),
    )


def _config_diffs(
    pairs: list[tuple[ConfigResult, BaselineConfig | None, MatchedBy]],
    report: AuditReport,
    window: int,
    touched: Collection[tuple[str, str]],
    warnings: list[str],
) -> list[ConfigDiff]:
    """One diff per config of this run; appends a warning for each sole-config pairing."""
    diffs: list[ConfigDiff] = []
    for config, base, matched_by in pairs:
        after_share = config.total_tokens / report.context_window
        if base is None:
            diffs.append(_unmatched(config, after_share))
            continue
        if matched_by is MatchedBy.SOLE_CONFIG:
            warnings.append(
                f"paired {config.source} with the baseline's {base.source}: "
                "the only config on each side"
            )
        names = {name for source, name in touched if source == config.source}
        servers = _server_diffs(base, config, names)
        diffs.append(_paired(config, base, matched_by, servers, window, after_share))
    return diffs


def diff_reports(
    baseline: Baseline | AuditReport,
    report: AuditReport,
    *,
    empty_before: Collection[str] = (),
    empty_now: Collection[str] = (),
    touched: Collection[tuple[str, str]] = (),
) -> AuditDiff:
    """Compare this run to a baseline, config by config. Pure.

    ``empty_before``: sources of this run known to hold no live server in the baseline's state
    (compared with an empty config, total 0). ``empty_now``: baseline sources known to hold no
    live server now (every server removed, total 0) rather than not found. ``touched``: (source,
    server) of this run whose launch names files the change modified (the Action knows them
    from git): never the same launch, however it is written.
    """
    if isinstance(baseline, AuditReport):
        baseline = baseline_of_report(baseline)
    comparable = (
        baseline.methodology_version == report.methodology_version
        and baseline.encoding == report.encoding
    )
    warnings = _comparability_warnings(baseline, report)
    pairs, unpaired = pair_configs(
        _with_empty_before(baseline.configs, report, empty_before), report.configs
    )
    dropped = [d for d in unpaired if d.source not in empty_now]
    window = baseline.context_window or report.context_window
    diffs = _config_diffs(pairs, report, window, touched, warnings)
    diffs += [_emptied(d, window) for d in unpaired if d.source in empty_now]
    for d in dropped:
        warnings.append(
            f"{d.source} is in the baseline and was not found in this run: a config that "
            "disappeared is not a config that got cheaper"
        )
    increases = [(d.source, d.delta) for d in diffs if d.delta is not None]
    worst = max(increases, key=lambda x: x[1]) if increases else None
    return AuditDiff(
        baseline_generated_at=baseline.generated_at,
        baseline_methodology_version=baseline.methodology_version,
        baseline_encoding=baseline.encoding,
        comparable=comparable,
        dropped_configs=tuple(
            DroppedConfig(client=d.client, source=d.source, total_tokens=d.total_tokens)
            for d in dropped
        ),
        warnings=tuple(warnings),
        configs=tuple(diffs),
        worst_increase=worst if worst is not None and worst[1] > 0 else None,
    )
