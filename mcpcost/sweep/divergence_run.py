"""A divergence run over a measured tree: count each server's projection with a vendor's endpoint.

The method is the column's (``core.divergence``): a baseline request (one user message, no
tools), a probe request (one minimal tool; ``probeDelta`` bounds the fixed overhead), then, for
every measurement with a number, the request with its projected tools; each row's delta is that
count minus the baseline. Servers are counted on at most ``concurrency`` threads. The endpoint is
whatever ``Counter`` is given (the command hands in a vendor SDK's client): this module never
opens a connection.

A ``CountRejected`` for one server becomes that row's ``error`` (the others go on); a
``CountFailed`` (a refused key, an unreachable endpoint) ends the run, and nothing is written.
Rows of the previous run for servers not counted now are kept when the run is of the same
method and model (the hash rule then marks them stale); a run of another model starts afresh.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Protocol

from mcpcost.core.calibration import (
    CALIBRATION_REL,
    Calibration,
    calibration_document,
    fit_calibration,
)
from mcpcost.core.divergence import (
    COLUMNS,
    Column,
    DivergenceRow,
    DivergenceRun,
    RowState,
    parse_divergence,
    probe_tool,
    project,
    projection_text,
)
from mcpcost.core.jsonvalue import JSONValue, parse_json, stringify_pretty
from mcpcost.core.model import Measurement
from mcpcost.core.tokenizer import get_tokenizer
from mcpcost.errors import InputError, McpcostError
from mcpcost.runtime.output_tree import TreeTransaction
from mcpcost.runtime.workers import side_by_side


class CountRejected(McpcostError):
    """The endpoint refused one request (its projection); the row records why."""


class CountFailed(McpcostError):
    """The endpoint cannot be used at all (the key was refused, it cannot be reached)."""

    def __init__(self, message: str, *, auth: bool = False) -> None:
        super().__init__(message)
        self.auth = auth


class Counter(Protocol):
    """A vendor's count endpoint: the request's input tokens with these tools (None: none)."""

    def count(self, tools: list[JSONValue] | None) -> int: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class RowReport:
    name: str
    state: RowState
    counted: bool  # counted in this run (else kept from the previous one)
    delta: int | None
    error: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class RunOutcome:
    run: DivergenceRun
    rows: tuple[RowReport, ...]

    @property
    def errors(self) -> int:
        return sum(1 for r in self.rows if r.state is RowState.ERROR and r.counted)


def candidates(measurements: Mapping[str, Measurement]) -> dict[str, Measurement]:
    """The measurements a run counts: a number and the capture it was computed from."""
    return {
        name: m
        for name, m in measurements.items()
        if m.has_number and isinstance(m.raw_tools_capture, list) and m.canonical_sha256
    }


def run_divergence(
    column: Column,
    model: str,
    measurements: Mapping[str, Measurement],
    counter: Counter,
    *,
    today: str,
    previous: DivergenceRun | None = None,
    concurrency: int = 4,
    progress: Callable[[str], None] = lambda line: None,
    error_limit: int = 200,
) -> RunOutcome:
    """Count every candidate's projection and fold the rows into a run (see the docstring)."""
    try:
        baseline = counter.count(None)
        probe = counter.count([probe_tool(column.api)]) - baseline
    except CountRejected as exc:  # without a baseline no row can be computed
        raise CountFailed(f"the baseline request failed: {exc}") from None
    progress(f"baseline {baseline} tokens; probe delta {probe} (bounds the fixed tool overhead)")
    chosen = candidates(measurements)
    tk = get_tokenizer()

    def row_for(name: str) -> DivergenceRow:
        m = chosen[name]
        capture = m.raw_tools_capture
        base = DivergenceRow(
            name=name,
            delta=0,
            o200k_full=m.total_tokens,
            o200k_mapped=tk.count(projection_text(column.api, capture)),
            captured_sha256=m.canonical_sha256,
            error=None,
            tool_count=m.tool_count,
        )
        try:
            delta = counter.count(project(column.api, capture)) - baseline
        except CountRejected as exc:
            return replace(base, error=str(exc)[:error_limit] or "rejected")
        return replace(base, delta=delta)

    names = sorted(chosen)
    counted: dict[str, DivergenceRow] = {}
    tasks = [partial(row_for, n) for n in names]
    with side_by_side(tasks, limit=concurrency, name="mcpcost-count") as finished:
        for row in finished:
            counted[row.name] = row
            shown = f"ERROR {row.error}" if row.error is not None else f"{row.delta}"
            progress(f"{row.name}: o200k {row.o200k_full}, mapped {row.o200k_mapped}: {shown}")
    kept: dict[str, DivergenceRow] = {}
    if previous is not None and previous.method == column.method and previous.model == model:
        kept = {r.name: r for r in previous.rows if r.name not in counted}
    run = DivergenceRun(
        method=column.method,
        model=model,
        measured_at=today,
        rows=tuple({**kept, **counted}.values()),
        baseline_tokens=baseline,
        probe_delta=probe,
        extras=previous.extras if previous is not None else {},
    )
    reports = tuple(
        RowReport(
            name=r.name,
            state=r.state_for(measurements.get(r.name)),
            counted=r.name in counted,
            delta=r.delta if r.error is None else None,
            error=r.error,
        )
        for r in sorted(run.rows, key=lambda r: r.name)
    )
    return RunOutcome(run=run, rows=reports)


def read_run(data: bytes | None) -> DivergenceRun | None:
    """A run file's bytes (None: absent) as a run; None when it cannot be read as one."""
    if data is None:
        return None
    try:
        return parse_divergence(parse_json(data))
    except InputError:
        return None


def calibrations(
    runs: Iterable[DivergenceRun | None], measurements: Mapping[str, Measurement]
) -> list[Calibration]:
    """The fit of each run, on its rows computed from the captures on disk."""
    current = {name: m.canonical_sha256 for name, m in measurements.items() if m.has_number}
    fits = (fit_calibration(run, current) for run in runs if run is not None)
    return [f for f in fits if f is not None]


def calibration_text(fits: Sequence[Calibration]) -> str | None:
    """``results/calibration.json``'s text, or None when no column has a fit."""
    return stringify_pretty(calibration_document(fits)) + "\n" if fits else None


@dataclass(frozen=True, slots=True)
class Staged:
    fits: tuple[Calibration, ...]
    changed: bool


def stage_calibration(txn: TreeTransaction, measurements: Mapping[str, Measurement]) -> Staged:
    """Fit every column's run in the tree and stage ``results/calibration.json`` (removed when
    no column has a fit)."""
    runs = [read_run(txn.read(column.rel)) for column in COLUMNS.values()]
    fits = tuple(calibrations(runs, measurements))
    text = calibration_text(fits)
    if text is None:
        if txn.read(CALIBRATION_REL) is None:
            return Staged(fits, False)
        txn.remove(CALIBRATION_REL)
        return Staged(fits, True)
    return Staged(fits, txn.put_if_changed(CALIBRATION_REL, text))
