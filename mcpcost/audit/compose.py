"""One audit, composed once: configs, launches, measurements, report, baseline diff, gates.

``mcpcost audit``, the library's ``audit_configs`` and the GitHub Action all call ``run_audit``
and differ only in how they render its answer, an ``Audit`` (the report, the diff against a
baseline, the gate result). The steps, in order:

1. **Inputs**, at the edge: ``read_inputs`` finds the configs (discovery, or the files named)
   and reads each client's settings files once (``AuditInputs``). The Action reads its configs
   from git and builds the inputs itself.
2. **Launches**: every distinct launch of the live, launchable entries of usable files
   (``distinct_launches``, by ``ServerSpec.launch_key()``: argv + env + cwd, or URL + headers).
   Two configs declaring the identical server share one measurement; entries that differ only in
   env are measured separately (``report.py`` says why nothing is collapsed). Entries without a
   launch (unresolved references, missing command) and disabled entries are never launched; they
   appear in the report with their reason.
3. **Measurements**: each launch measured once by the ``measure`` function given
   (``MeasureLaunch``), at most ``concurrency`` at a time (``measure_launches``). A measure
   function that raises is recorded as a ``startup-failure`` with the exception's first line,
   masked; it never aborts the audit.
4. **Report**: ``report.build_report`` (pure), with the client settings and shell environment of
   the inputs (the deferral verdicts) and an optional divergence run (``--claude``).
5. **Baseline diff**: against an earlier report (a ``Baseline`` read from a file) or against a
   base side (``BaseSide``: configs measured in the same run, the Action's base commit), whose
   own report is then the baseline. A base side also says which configs are known empty on
   either side (``side_presence``), so a config added or deleted diffs against an empty one, and
   which entries' launches name files the change modified (``touched``: never carried over as
   known unknowns).
6. **Gates**: ``gates.evaluate_gates`` over the report and the diff (``GateRequest``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from mcpcost.audit.gates import evaluate_gates
from mcpcost.audit.progress import NullProgress, ProgressObserver
from mcpcost.audit.report import build_report
from mcpcost.audit.report_model import DEFAULT_CONTEXT_WINDOW
from mcpcost.configs.clients import ParseContext
from mcpcost.configs.clients.settings_files import ClientSettings
from mcpcost.configs.config_file import ClientName, ConfigFile, ConfigState
from mcpcost.configs.discovery import discover, load_explicit, read_client_settings
from mcpcost.core.model import Measurement
from mcpcost.core.redact import redact_text
from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status
from mcpcost.errors import InputError
from mcpcost.measuring.server import MeasureOptions, measure_server
from mcpcost.runtime.clock import iso_utc, utc_now
from mcpcost.runtime.workers import side_by_side

# What the report needs loads with the first report, not with this module: the command line
# imports this module before its first launches and should not wait for those.
if TYPE_CHECKING:
    from mcpcost.audit.baseline import Baseline
    from mcpcost.audit.diff import AuditDiff
    from mcpcost.audit.gates import BudgetCost, GateResult
    from mcpcost.audit.report_model import AuditReport
    from mcpcost.core.divergence import DivergenceRun
    from mcpcost.core.model import Measurement
    from mcpcost.runtime.clock import Clock

DEFAULT_CONCURRENCY = 4
DEFAULT_TIMEOUT_S = 60.0

# Measures one launch: the real transport-backed ``measure_server`` with its options bound, a
# container-backed one (``--docker``), or, in tests, a function over fixed tool arrays.
MeasureLaunch = Callable[[ServerSpec], "Measurement"]
Measurements = dict[str, "Measurement"]  # launch key -> its measurement


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditInputs:
    """What one audit is about, as read at the edge."""

    configs: tuple[ConfigFile, ...]
    # each client's settings files as read (None: not read in this run, as in the Action)
    settings: Mapping[ClientName, ClientSettings] | None = None
    shell_environ: Mapping[str, str] = field(default_factory=dict)
    problems: tuple[str, ...] = ()  # met while reading them, carried into the report


@dataclass(frozen=True, slots=True, kw_only=True)
class GateRequest:
    """The gates asked for (none by default)."""

    budget: int | None = None
    budget_judges: BudgetCost = "upfront"  # what a session's budget judges (--budget-full: full)
    max_increase: int | None = None
    max_increase_percent: float | None = None
    require_measured: bool = False
    limits: bool = False  # fail on client-lens findings that drop, reject or cut something

    @property
    def any(self) -> bool:
        return (
            self.budget is not None
            or self.max_increase is not None
            or self.max_increase_percent is not None
            or self.require_measured
            or self.limits
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class AuditOptions:
    concurrency: int = DEFAULT_CONCURRENCY
    context_window: int | None = None  # None: the report's default, 200,000
    divergence: DivergenceRun | None = None  # a published Claude model divergence run
    gates: GateRequest = field(default_factory=GateRequest)
    generated_at: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class BaseSide:
    """A base side measured in the same run (the Action's base commit): its configs, read from
    the same places as the head's, so a source missing from one side is absent there."""

    configs: tuple[ConfigFile, ...]
    # (source, server) of head entries whose launch names files the change modified
    touched: frozenset[tuple[str, str]] = frozenset()


@dataclass(frozen=True, slots=True, kw_only=True)
class SidePresence:
    """Which config sources are known absent, or holding no live server, on each side."""

    empty_before: frozenset[str]  # head sources absent or empty on the base side
    empty_now: frozenset[str]  # base sources absent or empty on the head side
    added: frozenset[str]  # absent on the base side
    removed: frozenset[str]  # absent on the head side
    emptied: frozenset[str]  # live servers on the base side, none on the head side


@dataclass(frozen=True, slots=True, kw_only=True)
class Audit:
    """An audit's answer: what every output renders."""

    report: AuditReport
    diff: AuditDiff | None
    gates: GateResult
    base: AuditReport | None = None  # the base side's own report, with a ``BaseSide``
    presence: SidePresence | None = None  # with a ``BaseSide``


# --------------------------------------------------------------------------- 1. inputs


def read_inputs(
    paths: Sequence[str | os.PathLike[str]] | None,
    *,
    home: Path,
    cwd: Path,
    platform: str,
    environ: Mapping[str, str],
    clients: Collection[str] | None = None,
    trust_project: bool = False,
) -> AuditInputs:
    """The given config files, parsed (InputError when one cannot be read), or with ``paths``
    None every known client's config found here (``clients`` narrows discovery) and every
    client's settings files, each read once: the values the consent and deferral hooks parse.

    Files named in ``paths`` are the caller's choice and run (no client is known for them, so no
    client's settings decide anything about them); discovered project-level files run only as
    far as the client itself would run them (its consent hook), or entirely with
    ``trust_project``."""
    if paths is None:
        settings = read_client_settings(
            home=home, cwd=cwd, platform=platform, environ=environ, clients=clients
        )
        found = discover(
            home=home,
            cwd=cwd,
            platform=platform,
            environ=environ,
            clients=clients,
            settings=settings,
            trust_project=trust_project,
        )
        return AuditInputs(configs=tuple(found), settings=settings, shell_environ=dict(environ))
    if clients is not None:
        raise ValueError("clients narrows discovery; it cannot be combined with paths")
    context = ParseContext(
        environ=dict(environ),
        home=str(home),
        cwd=str(cwd),
        platform=platform,
        project_key=str(cwd),
        realpath=os.path.realpath,
    )
    files = load_explicit([Path(p) for p in paths], context=context)
    for f in files:
        if f.state == ConfigState.ERROR:
            if not (Path(f.source).exists() or Path(f.source).is_symlink()):
                raise InputError(f"{f.source}: no such file")
            raise InputError(f"{f.source}: {f.error or 'cannot be read'}")
    return AuditInputs(configs=tuple(files), settings={}, shell_environ=dict(environ))


# --------------------------------------------------------------------------- 2-3. launches


def distinct_launches(configs: Sequence[ConfigFile]) -> dict[str, ServerSpec]:
    """Launch key -> the first spec seen with it, over live launchable entries of usable files."""
    out: dict[str, ServerSpec] = {}
    for c in configs:
        if c.state != ConfigState.OK:
            continue
        for e in c.live_entries:
            if e.spec is not None:
                out.setdefault(e.spec.launch_key(), e.spec)
    return out


def _failed(spec: ServerSpec, exc: BaseException) -> Measurement:

    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return Measurement(
        status=Status.STARTUP_FAILURE,
        server_name=spec.name,
        launch_command=spec.display(),
        measured_at="",
        timeout_ms=0,
        notes=redact_text(f"{type(exc).__name__}: {text}", spec.secret_values)[:200],
    )


def measure_launches(
    launches: Mapping[str, ServerSpec],
    measure: MeasureLaunch,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: ProgressObserver | None = None,
) -> Measurements:
    """Measure each launch once, at most ``concurrency`` at a time."""
    if concurrency <= 0:
        raise ValueError("concurrency must be positive")
    observer = progress or NullProgress()
    total = len(launches)
    results: Measurements = {}
    if not total:
        return results

    def one(key: str, spec: ServerSpec) -> tuple[str, Measurement]:
        observer.started(spec.name, total)
        try:
            return key, measure(spec)
        except Exception as exc:  # a measuring bug must not take the audit down
            return key, _failed(spec, exc)

    tasks = [partial(one, k, s) for k, s in launches.items()]
    with side_by_side(tasks, limit=concurrency, name="mcpcost-measure") as finished:
        for done, (key, m) in enumerate(finished, start=1):
            results[key] = m
            observer.finished(launches[key].name, m.status, done, total)
    return results


# --------------------------------------------------------------------------- 5. sides


def _holds_nothing(config: ConfigFile) -> bool:
    return config.state != ConfigState.ERROR and not config.live_entries


def side_presence(base: Sequence[ConfigFile], head: Sequence[ConfigFile]) -> SidePresence:
    """What each side is known to hold, from the config files read for both.

    Both sides are read from the same places, so a source missing from one side is a file
    absent there; an unreadable file is never "known empty".
    """
    before = {c.source: c for c in base}
    now = {c.source: c for c in head}
    return SidePresence(
        empty_before=frozenset(s for s in now if s not in before or _holds_nothing(before[s])),
        empty_now=frozenset(s for s in before if s not in now or _holds_nothing(now[s])),
        added=frozenset(now.keys() - before.keys()),
        removed=frozenset(before.keys() - now.keys()),
        emptied=frozenset(
            s
            for s in before.keys() & now.keys()
            if _holds_nothing(now[s]) and not _holds_nothing(before[s])
        ),
    )


# --------------------------------------------------------------------------- the audit


def run_audit(
    inputs: AuditInputs,
    *,
    measure: MeasureLaunch,
    options: AuditOptions | None = None,
    baseline: Baseline | BaseSide | None = None,
    progress: ProgressObserver | None = None,
) -> Audit:
    """Measure every distinct launch once (of both sides, with a ``BaseSide``), build the report,
    diff it against the baseline and judge the gates asked for."""
    opts = options or AuditOptions()
    base_configs = baseline.configs if isinstance(baseline, BaseSide) else ()
    measurements = measure_launches(
        distinct_launches([*base_configs, *inputs.configs]),
        measure,
        concurrency=opts.concurrency,
        progress=progress,
    )

    def report_of(configs: Sequence[ConfigFile]) -> AuditReport:
        return build_report(
            configs,
            measurements,
            context_window=opts.context_window or DEFAULT_CONTEXT_WINDOW,
            generated_at=opts.generated_at,
            shell_environ=inputs.shell_environ,
            settings=inputs.settings,
            divergence=opts.divergence,
            problems=inputs.problems,
        )

    report = report_of(inputs.configs)
    if isinstance(baseline, BaseSide):
        base = report_of(baseline.configs)  # the base side's report is the head's baseline
        presence = side_presence(baseline.configs, inputs.configs)
        return judge(
            report,
            baseline=base,
            presence=presence,
            opts=opts,
            base=base,
            touched=baseline.touched,
        )
    return judge(report, baseline=baseline, presence=None, opts=opts)


def judge(
    report: AuditReport,
    *,
    baseline: Baseline | AuditReport | None,
    presence: SidePresence | None,
    opts: AuditOptions,
    base: AuditReport | None = None,
    touched: Collection[tuple[str, str]] = (),
) -> Audit:
    """The diff against ``baseline`` (with what ``presence`` knows of empty configs, and the
    entries whose launch names changed files, ``touched``) and the gates asked for (pure)."""

    diff = None
    if baseline is not None:
        from mcpcost.audit.diff import diff_reports

        known = presence or SidePresence(
            empty_before=frozenset(),
            empty_now=frozenset(),
            added=frozenset(),
            removed=frozenset(),
            emptied=frozenset(),
        )
        diff = diff_reports(
            baseline,
            report,
            empty_before=known.empty_before,
            empty_now=known.empty_now,
            touched=touched,
        )
    asked = opts.gates
    budget = asked.budget
    unreadable = any(e.state == ConfigState.ERROR for e in report.empty_configs)
    if diff is not None and diff.configs and not report.configs and not unreadable:
        budget = None  # every config is known to hold nothing now: 0 fits any budget
    gates = evaluate_gates(
        report,
        diff,
        budget=budget,
        max_increase=asked.max_increase if diff is not None else None,
        max_increase_percent=asked.max_increase_percent if diff is not None else None,
        require_measured=asked.require_measured,
        budget_judges=asked.budget_judges,
        limits=asked.limits,
    )
    return Audit(report=report, diff=diff, gates=gates, base=base, presence=presence)


# --------------------------------------------------------------------------- the library


def audit_configs(
    paths: Sequence[str | os.PathLike[str]] | None = None,
    *,
    measure: MeasureLaunch | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    concurrency: int = DEFAULT_CONCURRENCY,
    context_window: int | None = None,
    clients: Collection[str] | None = None,
    home: Path | None = None,
    cwd: Path | None = None,
    environ: Mapping[str, str] | None = None,
    platform: str | None = None,
    progress: ProgressObserver | None = None,
    now: Clock | None = None,
    trust_project: bool = False,
    divergence: DivergenceRun | None = None,
) -> AuditReport:
    """Audit config files (or, with no ``paths``, the configs discovery finds) and return the
    report. ``home``, ``cwd``, ``environ`` and ``platform`` default to this process's own;
    ``context_window`` (the size shares are computed against) to 200,000; ``divergence`` (a
    published Claude model divergence run, ``core.divergence.parse_divergence``) adds the
    Anthropic request tokens, as ``mcpcost audit --claude`` does.

    A discovered project-level config (``.mcp.json``, ``.vscode/mcp.json``... in ``cwd``) came
    with the repository, so its servers are launched only when the client itself would run them
    (the approvals it recorded) or with ``trust_project=True``; the others appear in the report,
    not launched, with the reason."""
    env = dict(os.environ if environ is None else environ)
    inputs = read_inputs(
        paths,
        home=home or Path.home(),
        cwd=cwd or Path.cwd(),
        platform=platform or sys.platform,
        environ=env,
        clients=clients,
        trust_project=trust_project,
    )

    options = AuditOptions(
        concurrency=concurrency,
        context_window=context_window,
        divergence=divergence,
        generated_at=iso_utc((now or utc_now)()),
    )
    audit = run_audit(
        inputs,
        measure=measure or partial(measure_server, options=MeasureOptions(timeout_s=timeout_s)),
        options=options,
        progress=progress,
    )
    return audit.report
