"""The rows every published page is drawn from, computed from measurements alone.

Pure: takes the catalog, the measurements, history rows and the optional side files
(the Claude and OpenAI divergence runs, session-start backfill), returns values. No clock, no
file system.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcpcost.core.bands import Band, band_for
from mcpcost.core.divergence import parse_divergence
from mcpcost.core.measure import SessionStart, session_start
from mcpcost.core.model import NOT_CAPTURED, Measurement
from mcpcost.core.status import Status
from mcpcost.errors import InputError
from mcpcost.sweep.catalog import Catalog, CatalogEntry
from mcpcost.sweep.history import HistoryRow, Series, by_server, plottable
from mcpcost.sweep.interim import parse_not_yet_run


@dataclass(frozen=True, slots=True)
class Divergence:
    """A current divergence row of one column (stale rows are never turned into one)."""

    model: str
    measured_on: str
    tokens: int  # the vendor's request-token delta (claudeDelta / openaiDelta)
    o200k_full: int | None
    o200k_mapped: int | None


@dataclass(frozen=True, slots=True)
class Row:
    """One catalog entry (or measured directory) as the pages show it."""

    name: str
    status: Status
    entry: CatalogEntry | None
    measurement: Measurement | None
    session: SessionStart | None
    divergence: Divergence | None  # the Claude column
    series: Series
    band: Band | None
    openai: Divergence | None = None  # the OpenAI column
    pending: str | None = None  # why a not-yet-run entry was not run (results/not-yet-run.json)

    @property
    def tokens(self) -> int | None:
        m = self.measurement
        return m.total_tokens if m is not None and m.has_number else None

    @property
    def tool_count(self) -> int | None:
        m = self.measurement
        return m.tool_count if m is not None and m.has_number else None

    @property
    def category(self) -> str:
        return (self.entry.category if self.entry else None) or ""

    @property
    def largest_tool(self) -> tuple[str, int] | None:
        m = self.measurement
        if m is None or not m.tools:
            return None
        best = max(m.tools, key=lambda t: t.tokens)  # first of equals
        return best.name, best.tokens

    @property
    def note(self) -> str:
        if self.status is Status.REMOTE_AUTH_WALL and self.measurement is None:
            return "OAuth-gated remote server; listed, not measured"
        if self.status is Status.NOT_YET_RUN:
            return f"not run yet: {self.pending}" if self.pending else "not swept yet"
        m = self.measurement
        return (m.notes or "") if m is not None else ""


@dataclass(frozen=True, slots=True)
class Board:
    """Everything the leaderboard, pages and dashboard need."""

    measured: tuple[Row, ...]  # measured/dynamic, by tokens desc (stable on catalog order)
    not_measured: tuple[Row, ...]  # catalog order
    all_rows: tuple[Row, ...]  # catalog order, then uncatalogued directories by name
    divergence_model: str | None
    divergence_date: str | None
    openai_model: str | None = None
    openai_date: str | None = None

    @property
    def total(self) -> int:
        return len(self.all_rows)


def costlier_to_defer(board: Board) -> tuple[Row, ...]:
    """Measured rows whose exact session-start load is at least their headline number.

    Floors never qualify: their instructions half was not captured, so their total is a lower
    bound, not a figure to compare.
    """
    return tuple(
        r
        for r in board.measured
        if r.session is not None
        and not r.session.is_floor
        and r.tokens is not None
        and r.session.total >= r.tokens
    )


def segment_starts(rows: Sequence[HistoryRow]) -> frozenset[int]:
    """Indexes (into ``sorted(rows)``) where a comparable run begins after an isolation change.

    Built by applying ``plottable`` again to whatever it dropped, so the boundaries a page shows
    are the cuts the trend makes. Where the newest rows have no isolation record the trend cannot
    cut (nothing to compare against); the search then continues from the newest row that has
    one, so a known change earlier in the history is still marked.
    """
    ordered = sorted(rows)
    starts: set[int] = set()
    end = len(ordered)
    while end:
        if not ordered[end - 1].isolation:
            end -= 1
            continue
        dropped = plottable(ordered[:end]).dropped
        if dropped == 0:
            break
        starts.add(dropped)
        end = dropped
    return frozenset(starts)


def _divergence_rows(
    doc: Any, measurements: Mapping[str, Measurement]
) -> tuple[dict[str, Divergence], str | None, str | None]:
    try:
        run = parse_divergence(doc)
    except InputError:
        return {}, None, None
    out: dict[str, Divergence] = {}
    for row in run.rows:
        m = measurements.get(row.name)
        if m is None or not row.current_for(m.canonical_sha256) or row.delta is None:
            continue
        out[row.name] = Divergence(
            run.model, run.measured_at, row.delta, row.o200k_full, row.o200k_mapped
        )
    return out, run.model, run.measured_at


def _session_with_backfill(name: str, m: Measurement, backfill: Any) -> SessionStart | None:
    capture = m.raw_tools_capture
    if not m.has_number or not isinstance(capture, list):
        return None
    if m.server_instructions is not NOT_CAPTURED:
        return session_start(capture, m.server_instructions, captured=True)
    rows = backfill.get("servers") if isinstance(backfill, dict) else None
    row = rows.get(name) if isinstance(rows, dict) else None
    if (
        isinstance(row, dict)
        and "error" not in row
        and isinstance(row.get("instructionsTokens"), int)
        and m.canonical_sha256 is not None
        and row.get("capturedSha256") == m.canonical_sha256
        and isinstance(row.get("instructions"), str | None)
    ):
        return session_start(capture, row.get("instructions"), captured=True)
    return session_start(capture, None, captured=False)


def build_board(
    catalog: Catalog | None,
    measurements: Mapping[str, Measurement],
    history: Sequence[HistoryRow],
    *,
    divergence: Any = None,
    session_backfill: Any = None,
    openai: Any = None,
    not_yet_run: Any = None,
) -> Board:
    """Rows for every catalog entry plus every measured directory the catalog lacks;
    ``not_yet_run`` is the parsed ``results/not-yet-run.json`` (the reasons of the interim
    leaderboard's not-yet-run rows)."""
    entries = catalog.entries if catalog is not None else ()
    names = [e.name for e in entries]
    names += sorted(n for n in measurements if n not in set(names))
    lookup = {e.name: e for e in entries}
    div, model, day = _divergence_rows(divergence, measurements)
    oai, oai_model, oai_day = _divergence_rows(openai, measurements)
    hist = by_server(history)
    reasons = parse_not_yet_run(not_yet_run)
    rows: list[Row] = []
    for name in names:
        entry = lookup.get(name)
        m = measurements.get(name)
        if m is not None:
            status = m.status
        elif entry is not None and entry.remote:
            status = Status.REMOTE_AUTH_WALL
        else:
            status = Status.NOT_YET_RUN
        good = m is not None and m.has_number
        rows.append(
            Row(
                name=name,
                status=status,
                entry=entry,
                measurement=m,
                session=_session_with_backfill(name, m, session_backfill) if m else None,
                divergence=div.get(name) if good else None,
                series=plottable(hist.get(name, [])),
                band=band_for(m.total_tokens)
                if good and m and m.total_tokens is not None
                else None,
                openai=oai.get(name) if good else None,
                pending=reasons.get(name) if status is Status.NOT_YET_RUN else None,
            )
        )
    order = {n: i for i, n in enumerate(names)}
    measured = sorted(
        (r for r in rows if r.tokens is not None), key=lambda r: (-(r.tokens or 0), order[r.name])
    )
    not_measured = tuple(r for r in rows if r.tokens is None)
    current = [r for r in measured if r.divergence is not None]
    current_openai = [r for r in measured if r.openai is not None]
    return Board(
        tuple(measured),
        not_measured,
        tuple(rows),
        model if current else None,
        day if current else None,
        oai_model if current_openai else None,
        oai_day if current_openai else None,
    )
