"""Run a sweep: measure each selected entry, stage each result as it lands, guard, then publish.

The measuring itself is passed in (``MeasureJob``): the CLI wires it to
``mcpcost.measuring.measure_server``; tests may pass their own. The runner adds what is about
sweeps: dummy environments, the container plan, the cold-cache retry for docker
startup-failures (when the retry fails too, the notes carry both failures), progress, the
harness guard and publishing.

Results are staged as they land, apart from the published tree, and reach it in one commit
after the guard approved them (``mcpcost.runtime.output_tree.open_tree``): a sweep killed at any
instant leaves the previous tree, or (once the commit point is passed) the new one, completed by
the next command; never a mix the guard would have refused.

A startup-failure because the launcher itself (``npx``, ``uvx``, ``docker``) is not on PATH, on
the host or in the image, gets a note that names it and says how to get it; it is not retried
with a cold cache, which could not help. Nor is a container's certificate-chain failure (a
TLS-intercepting proxy whose CA the container does not trust); its note points at ``--ca-bundle``
when the sweep mounted none.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import time
from collections.abc import Callable, Iterable, Sized
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from mcpcost.core.badge import badge_file_text
from mcpcost.core.model import HOST_ISOLATION, Isolation, Measurement, render_measurement
from mcpcost.core.plural import counted
from mcpcost.core.redact import redact_text
from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status
from mcpcost.errors import EXIT_CHECK_FAILED, EXIT_OK
from mcpcost.measuring.containers import (
    ContainerPlan,
    HostTrust,
    self_docker_isolation,
    with_docker_host,
)
from mcpcost.measuring.server import cut_notes
from mcpcost.runtime.clock import iso_utc
from mcpcost.runtime.output_tree import TreeTransaction, open_tree
from mcpcost.runtime.workers import Background, side_by_side
from mcpcost.sweep.catalog import Catalog, CatalogEntry
from mcpcost.sweep.files import badge_rel, measurement_rel, parse_measurement
from mcpcost.sweep.guard import Snapshot, Verdict, judge, take_snapshot
from mcpcost.sweep.isolation import plan_container
from mcpcost.sweep.publish import Published, publish_into

DEFAULT_TIMEOUT_S = 60.0
COLD_RETRY_MIN_TIMEOUT_S = 240.0
COLD_RETRY_PREFIX = "reproduced with the shared package cache bypassed; "
COLD_FIRST_LABEL = "first attempt: "
COLD_RETRY_LABEL = "; retry: "
NOTES_MAX = 700
# launcher -> how to get it
LAUNCHER_HELP = {
    "npx": "install Node.js, which provides npx (e.g. apt-get install nodejs npm)",
    "uvx": "install uv, which provides uvx (pip install uv)",
    "docker": "install the Docker CLI and point --docker-host or DOCKER_HOST at an engine",
}
TLS_TRUST_FAILURE = re.compile(
    r"SELF_SIGNED_CERT_IN_CHAIN|self[- ]signed certificate|UNABLE_TO_GET_ISSUER_CERT|"
    r"unable to get local issuer certificate|CERTIFICATE_VERIFY_FAILED|UnknownIssuer|"
    r"invalid peer certificate"
)
CA_BUNDLE_ADVICE = (
    "the container does not trust the TLS certificate chain it was served (a TLS-intercepting "
    "proxy?): sweep with --ca-bundle auto or --ca-bundle PATH; "
)

Clock = Callable[[], dt.datetime]
Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Job:
    """One measurement to take: what to reach, how it is isolated, and the budget."""

    entry: CatalogEntry
    spec: ServerSpec
    timeout_s: float
    isolation: Isolation
    container: ContainerPlan | None  # None: a host process (including self-docker commands)


MeasureJob = Callable[[Job], Measurement]  # measures one sweep job (a spec placed, a budget)
PreCheck = Callable[[CatalogEntry], Measurement | None]  # a record without measuring, or None
PostCheck = Callable[[CatalogEntry, Measurement], Measurement]  # a second look at a result


@dataclass(frozen=True, slots=True)
class SweepOptions:
    docker: bool = False
    concurrency: int = 3
    default_timeout_s: float = DEFAULT_TIMEOUT_S
    image_override: str | None = None
    docker_host: str | None = None  # a non-default engine address, passed to `docker run` commands
    trust: HostTrust | None = None  # the host's CA bundle and proxy, given to containers


@dataclass(frozen=True, slots=True)
class SweepOutcome:
    """What happened: per-server statuses, the guard's verdict, and what was published.

    ``discarded`` counts the servers whose new results a harness fault threw away.
    """

    statuses: dict[str, Status]
    verdict: Verdict
    discarded: int
    published: Published | None

    @property
    def exit_code(self) -> int:
        return EXIT_CHECK_FAILED if self.verdict.fault else EXIT_OK


def failure(
    entry: CatalogEntry,
    status: Status,
    notes: str,
    *,
    now: dt.datetime,
    timeout_s: float,
    isolation: Isolation | None,
) -> Measurement:
    """A published failure record for an entry."""
    return Measurement(
        status=status,
        server_name=entry.name,
        launch_command=entry.command,
        measured_at=iso_utc(now),
        timeout_ms=int(timeout_s * 1000),
        isolation=isolation,
        notes=notes[:NOTES_MAX],
    )


def plan_job(
    entry: CatalogEntry,
    options: SweepOptions,
    *,
    shared_cache: bool = True,
    timeout_s: float | None = None,
) -> Job:
    """The job for an entry under the sweep's options."""
    budget = timeout_s or entry.timeout_seconds or options.default_timeout_s
    spec = entry.spec()
    if entry.is_self_docker:
        spec = with_docker_host(spec, options.docker_host)
    if entry.url is not None or not options.docker:
        return Job(entry, spec, budget, HOST_ISOLATION, None)
    if entry.is_self_docker:
        return Job(entry, spec, budget, self_docker_isolation(options.docker_host), None)
    plan = plan_container(
        entry,
        image_override=options.image_override,
        shared_cache=shared_cache,
        trust=options.trust,
    )
    return Job(entry, spec, budget, plan.isolation, plan)


def missing_launcher(job: Job, m: Measurement) -> str | None:
    """The launcher a startup-failure shows is not on PATH (host or image), else None."""
    argv = job.entry.argv
    if m.status is not Status.STARTUP_FAILURE or not argv or not m.notes:
        return None
    name = os.path.basename(argv[0])
    if name not in LAUNCHER_HELP:
        return None
    if job.container is None:
        gone = f"spawn failed: {job.spec.argv[0] if job.spec.argv else argv[0]}:" in m.notes
    else:  # sh -lc reports "sh: 1: uvx: not found" (bash: "uvx: command not found")
        gone = (
            re.search(rf"(?<![\w.-]){re.escape(argv[0])}: (command )?not found", m.notes)
            is not None
        )
    return name if gone else None


def tls_trust_failure(job: Job, m: Measurement) -> bool:
    """A container startup-failure whose output shows an untrusted certificate chain."""
    return (
        job.container is not None
        and m.status is Status.STARTUP_FAILURE
        and m.notes is not None
        and TLS_TRUST_FAILURE.search(m.notes) is not None
    )


def launcher_note(job: Job, launcher: str, notes: str) -> str:
    """An actionable note for a missing launcher, ahead of what the failure said."""
    if job.container is not None:
        advice = (
            f"{launcher} is not on PATH in image {job.container.image}: use an image that has "
            "it (the entry's dockerImage or --image)"
        )
    else:
        advice = f"{launcher} is not on PATH: {LAUNCHER_HELP[launcher]}"
        if launcher != "docker":
            advice += ", or sweep with --docker"
    return f"{advice}; {notes}"[:NOTES_MAX]


def _ca_bundle(options: SweepOptions | None) -> str | None:
    return None if options is None or options.trust is None else options.trust.ca_bundle


def _secrets(job: Job, options: SweepOptions | None) -> tuple[str, ...]:
    trust = None if options is None else options.trust
    return job.spec.secret_values + (() if trust is None else trust.secret_values)


def _guarded(
    measure: MeasureJob, job: Job, clock: Clock, options: SweepOptions | None = None
) -> Measurement:
    secrets = _secrets(job, options)
    try:
        m = measure(job)
    except Exception as exc:  # a harness bug must not abort the sweep; it is a failure
        detail = redact_text(f"{type(exc).__name__}: {exc}", secrets)
        return failure(
            job.entry,
            Status.STARTUP_FAILURE,
            f"harness error: {detail}",
            now=clock(),
            timeout_s=job.timeout_s,
            isolation=job.isolation,
        )
    # The recorded launch is the catalog's command line, never the wrapped form.
    changes: dict[str, object] = {"launch_command": job.entry.command}
    if m.isolation is None:
        changes["isolation"] = job.isolation
    if m.has_number:  # the catalog's names; never DOCKER_HOST, which only reaches the CLI
        changes["env_var_names"] = tuple(sorted(job.entry.env))
    if m.notes:  # proxy credentials reach containers and may be echoed back on stderr
        notes = redact_text(m.notes, secrets)
        launcher = missing_launcher(job, m.with_(notes=notes))
        if launcher is not None:
            notes = launcher_note(job, launcher, notes)
        elif tls_trust_failure(job, m) and _ca_bundle(options) is None:
            notes = (CA_BUNDLE_ADVICE + notes)[:NOTES_MAX]
        changes["notes"] = notes
    return m.with_(**changes)


def measure_entry(
    entry: CatalogEntry, measure: MeasureJob, options: SweepOptions, clock: Clock
) -> Measurement:
    """Measure one entry, with the cold-cache retry for docker startup-failures."""
    job = plan_job(entry, options)
    first = _guarded(measure, job, clock, options)
    if not (job.container is not None and first.status is Status.STARTUP_FAILURE):
        return first
    if missing_launcher(job, first) is not None or tls_trust_failure(job, first):
        return first
    cold = plan_job(
        entry, options, shared_cache=False, timeout_s=max(job.timeout_s, COLD_RETRY_MIN_TIMEOUT_S)
    )
    retry = _guarded(measure, cold, clock, options)
    if retry.status is not Status.STARTUP_FAILURE:
        return retry
    return first.with_(notes=cold_retry_notes(first.notes or "", retry.notes or ""))


def cold_retry_notes(first: str, retry: str) -> str:
    """The notes of an entry whose cold-cache retry failed too: both failures, each cut so that
    the whole stays within ``NOTES_MAX`` (the shorter keeps all of itself, the longer gets the
    rest). Both were masked whole before they were cut (``_guarded``)."""
    head = f"{COLD_RETRY_PREFIX}{COLD_FIRST_LABEL}"
    room = NOTES_MAX - len(head) - len(COLD_RETRY_LABEL)
    first_room = max(room // 2, room - len(retry))
    first = cut_notes(first, first_room)
    return f"{head}{first}{COLD_RETRY_LABEL}{cut_notes(retry, room - len(first))}"


def persist(txn: TreeTransaction, name: str, m: Measurement) -> None:
    """Stage measurement.json and the badge for one server (the badge only when it changes).

    The measurement is always staged, so that a staged measurement says the entry is done and a
    resumed sweep (``run_sweep``'s ``resume``) can tell what not to measure again.
    """
    txn.put(measurement_rel(name), render_measurement(m))
    txn.put_if_changed(badge_rel(name), badge_file_text(m))


def progress_line(name: str, m: Measurement, seconds: float) -> str:
    if m.has_number:
        return (
            f"{name}: {counted(m.total_tokens or 0, 'token')} / {counted(m.tool_count or 0, 'tool')} "
            f"({m.status}, {seconds:.1f}s)"
        )
    return f"{name}: {m.status} ({seconds:.1f}s)"


@dataclass(frozen=True, slots=True)
class Swept:
    """What the measuring phase leaves for the guard: each swept name's new status and the
    status it had in the published tree before (the guard's snapshot, taken entry by entry)."""

    statuses: dict[str, Status]
    snapshot: Snapshot
    resumed: int  # entries a killed sweep had finished, taken from its staged files


def _staged_result(txn: TreeTransaction, name: str) -> Measurement | None:
    """The measurement a resumed sweep had staged for ``name``, or None."""
    rel = measurement_rel(name)
    return parse_measurement(txn.read(rel)) if txn.is_staged(rel) else None


def measure_all(
    entries: Iterable[CatalogEntry],
    txn: TreeTransaction,
    measure: MeasureJob,
    options: SweepOptions,
    *,
    clock: Clock,
    progress: Progress,
    pre_check: PreCheck | None = None,
    post_check: PostCheck | None = None,
) -> Swept:
    """Measure entries concurrently, drawn from ``entries`` as workers come free; each result is
    staged the moment it is known and then dropped, so memory is bounded per entry, not per
    sweep (what is kept is each name's status, for the guard). An entry whose measurement is
    already staged (a resumed sweep) is not measured again."""
    statuses: dict[str, Status] = {}
    prior: dict[str, Status | None] = {}
    total = len(entries) if isinstance(entries, Sized) else None
    resumed = 0

    def one(entry: CatalogEntry) -> tuple[str, Measurement, float | None]:
        started = time.monotonic()
        done = _staged_result(txn, entry.name)
        if done is not None:
            return entry.name, done, None
        m = pre_check(entry) if pre_check is not None else None
        if m is None:
            m = measure_entry(entry, measure, options, clock)
            if post_check is not None:
                m = post_check(entry, m)
        return entry.name, m, time.monotonic() - started

    def badge_only(name: str, m: Measurement) -> None:
        txn.put_if_changed(badge_rel(name), badge_file_text(m))

    tasks = (partial(one, e) for e in entries if e.sweepable)
    limit = max(1, options.concurrency)
    # The measurements go on while their results are written: each write waits for its fsync,
    # a quarter of a worker's time on loopback if the worker made it (docs/PERFORMANCE.md).
    # As many writers as measurements at once, so writing keeps up where it was the workers' own.
    writers = Background(threads=limit, queued=2 * limit, name="mcpcost-stage")
    with writers, side_by_side(tasks, limit=limit, name="mcpcost-sweep") as finished:
        for name, m, seconds in finished:
            prior.update(take_snapshot(txn.root, [name]).prior)
            if seconds is None:
                resumed += 1
                writers.submit(partial(badge_only, name, m))
                line = f"{name}: {m.status} (resumed: measured before the sweep was killed)"
            else:
                writers.submit(partial(persist, txn, name, m))
                line = progress_line(name, m, seconds)
            statuses[name] = m.status
            shown = f"{len(statuses)}/{total}" if total is not None else str(len(statuses))
            progress(f"[{shown}] {line}")
    return Swept(statuses, Snapshot(prior), resumed)


def drop_unselected(txn: TreeTransaction, swept: set[str]) -> int:
    """Unstage what a killed sweep had staged for entries this one did not sweep (the registry
    changed within the day of the resume key); returns how many. Only what this sweep swept is
    published, and a staged file it never read again (one a machine's crash may have cut) is
    never published unread."""
    dropped = 0
    for name in sorted(txn.staged_names("results") - swept):
        if txn.is_staged(measurement_rel(name)):
            txn.unstage(measurement_rel(name))
            txn.unstage(badge_rel(name))
            dropped += 1
    return dropped


def conclude(
    txn: TreeTransaction,
    catalog: Catalog | None,
    snapshot: Snapshot,
    statuses: dict[str, Status],
    *,
    progress: Progress,
    publish_pages: bool = True,
) -> SweepOutcome:
    """Apply the harness guard; on a fault drop the staged results, otherwise publish them."""
    verdict = judge(snapshot, statuses)
    progress(verdict.reason)
    if verdict.fault:
        txn.discard()
        progress("HARNESS FAULT — refusing to publish this sweep")
        progress(
            f"regressed: {len(verdict.regressed)} ({', '.join(verdict.regressed)}); "
            f"the published files are left as they were; new results dropped: {len(statuses)}"
        )
        return SweepOutcome(statuses, verdict, len(statuses), None)
    published = publish_into(txn, catalog) if publish_pages else None
    txn.commit()
    good = sum(1 for s in statuses.values() if s.has_number)
    progress(f"done: {good}/{len(statuses)} measured")
    return SweepOutcome(statuses, verdict, 0, published)


def run_sweep(
    catalog: Catalog | Callable[[], Catalog | None] | None,
    selected: Iterable[CatalogEntry],
    root: Path,
    measure: MeasureJob,
    options: SweepOptions,
    *,
    clock: Clock,
    progress: Progress,
    publish_pages: bool = True,
    pre_check: PreCheck | None = None,
    post_check: PostCheck | None = None,
    resume: str | None = None,
) -> SweepOutcome:
    """The whole sweep over ``selected`` (entries of ``catalog``), writing under ``root``.

    ``selected`` may be a stream (a registry read page by page); ``catalog`` is then a function
    giving it once the stream has ended, for the pages. With ``resume`` (a key naming the
    selection), the results a killed sweep of the same key had staged are kept and their entries
    are not measured again (``runtime.output_tree.open_tree``).
    """
    with open_tree(root, resume=resume) as txn:
        swept = measure_all(
            selected,
            txn,
            measure,
            options,
            clock=clock,
            progress=progress,
            pre_check=pre_check,
            post_check=post_check,
        )
        if swept.resumed:
            progress(f"resumed {counted(swept.resumed, 'result')} a killed sweep had staged")
        left_over = drop_unselected(txn, set(swept.statuses))
        if left_over:
            progress(
                f"dropped {counted(left_over, 'result')} a killed sweep had staged for entries "
                "this sweep did not select"
            )
        final = catalog() if callable(catalog) else catalog
        return conclude(
            txn,
            final,
            swept.snapshot,
            swept.statuses,
            progress=progress,
            publish_pages=publish_pages,
        )
