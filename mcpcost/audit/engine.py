"""Measure every distinct launch once, with bounded concurrency, and build the report.

``run_audit(configs, *, measure, concurrency, context_window, progress, ...) -> AuditReport`` is
the two steps in one call: ``measure_launches`` (the servers) then ``report.build_report``.
``while_waiting`` runs on the calling thread once every measurement has been handed to the pool;
the CLI uses it to load what the report needs while the servers start, so none of that delays
the first launch
(the report modules are imported here only when the report is built, for the same reason).

* ``measure(spec) -> Measurement`` is injected (the CLI passes the real transport-backed one with
  its timeout bound; tests pass functions over fixed tool arrays).
* A launch is identified by ``ServerSpec.launch_key()`` (argv + env + cwd, or URL + headers):
  two configs declaring the identical server share one measurement; entries that differ only in
  env are measured separately (see ``report.py`` for why nothing is collapsed).
* Entries without a launch (unresolved references, missing command) and disabled entries are
  never launched; they appear in the report with their reason.
* A measure function that raises is recorded as a ``startup-failure`` with the exception's
  first line, masked; it never aborts the audit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING

from mcpcost.audit.progress import NullProgress, ProgressObserver
from mcpcost.configs.config_file import ConfigFile, ConfigState
from mcpcost.core.redact import redact_text
from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status
from mcpcost.runtime.workers import Workers

# The measurement record loads with the first measurement, not with this module: the CLI
# imports it before its first launches and should not wait for it.
if TYPE_CHECKING:
    from mcpcost.audit.deferral import SettingsSource
    from mcpcost.audit.report_model import AuditReport
    from mcpcost.core.divergence import DivergenceRun
    from mcpcost.core.model import Measurement

DEFAULT_CONCURRENCY = 4
MeasureFn = Callable[[ServerSpec], "Measurement"]


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


def first_taken(launches: Mapping[str, ServerSpec], concurrency: int) -> list[ServerSpec]:
    """The launches ``measure_all`` starts at once, before any has finished."""
    return list(launches.values())[:concurrency]


def _failed(spec: ServerSpec, exc: BaseException) -> Measurement:
    from mcpcost.core.model import Measurement

    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return Measurement(
        status=Status.STARTUP_FAILURE,
        server_name=spec.name,
        launch_command=spec.display(),
        measured_at="",
        timeout_ms=0,
        notes=redact_text(f"{type(exc).__name__}: {text}", spec.secret_values)[:200],
    )


def measure_all(
    launches: Mapping[str, ServerSpec],
    measure: MeasureFn,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: ProgressObserver | None = None,
    while_waiting: Callable[[], object] | None = None,
) -> dict[str, Measurement]:
    """Measure each launch once, at most ``concurrency`` at a time; ``while_waiting`` runs on
    this thread once every measurement has been handed to the pool."""
    if concurrency <= 0:
        raise ValueError("concurrency must be positive")
    observer = progress or NullProgress()
    total = len(launches)
    results: dict[str, Measurement] = {}
    if not total:
        if while_waiting is not None:
            while_waiting()
        return results

    def one(key: str, spec: ServerSpec) -> tuple[str, Measurement]:
        observer.started(spec.name, total)
        try:
            return key, measure(spec)
        except Exception as exc:  # a measuring bug must not take the audit down
            return key, _failed(spec, exc)

    tasks = [partial(one, k, s) for k, s in launches.items()]
    with Workers(tasks, limit=concurrency, name="mcpcost-measure") as workers:
        if while_waiting is not None:
            while_waiting()
        for done, (_, (key, m)) in enumerate(workers.as_finished(), start=1):
            results[key] = m
            observer.finished(launches[key].name, m.status, done, total)
    return results


def measure_launches(
    configs: Sequence[ConfigFile],
    measure: MeasureFn,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: ProgressObserver | None = None,
    while_waiting: Callable[[], object] | None = None,
) -> dict[str, Measurement]:
    """Launch key -> measurement for every distinct live launch of the configs."""
    return measure_all(
        distinct_launches(configs),
        measure,
        concurrency=concurrency,
        progress=progress,
        while_waiting=while_waiting,
    )


def run_audit(
    configs: Sequence[ConfigFile],
    *,
    measure: MeasureFn,
    concurrency: int = DEFAULT_CONCURRENCY,
    context_window: int | None = None,
    progress: ProgressObserver | None = None,
    generated_at: str = "",
    shell_environ: Mapping[str, str] | None = None,
    settings: Sequence[SettingsSource] | None = None,
    divergence: DivergenceRun | None = None,
    problems: Sequence[str] = (),
) -> AuditReport:
    """Measure every distinct launch once and assemble the per-config report
    (``context_window`` None: the report's default, 200,000)."""
    measurements = measure_launches(configs, measure, concurrency=concurrency, progress=progress)
    from mcpcost.audit.report import build_report
    from mcpcost.audit.report_model import DEFAULT_CONTEXT_WINDOW

    return build_report(
        configs,
        measurements,
        context_window=context_window or DEFAULT_CONTEXT_WINDOW,
        generated_at=generated_at,
        shell_environ=shell_environ,
        settings=settings,
        divergence=divergence,
        problems=problems,
    )
