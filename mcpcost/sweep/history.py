"""``results/history.csv``: one row per (UTC date, server) of every good measurement.

Header ``date,server,tokens,toolCount,status,isolation``. Rows are folded from measurement
files by upsert on (date, server): the newest fold wins for a day, older days are never
removed, failures never write rows. ``isolation`` is ``docker``, ``host``, or empty when the
measurement did not record it (old 5-field rows read as empty, never back-filled).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from mcpcost.core.model import Measurement
from mcpcost.core.status import Status

HEADER = ("date", "server", "tokens", "toolCount", "status", "isolation")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_STATUSES = frozenset(Status)


@dataclass(frozen=True, order=True, slots=True)
class HistoryRow:
    date: str
    server: str
    tokens: int
    tool_count: int
    status: Status
    isolation: str  # "docker", "host" or "" (not recorded)


@dataclass(frozen=True, slots=True)
class Series:
    """The comparable run of one server's rows ending at its newest row."""

    rows: tuple[HistoryRow, ...]
    dropped: int  # earlier rows left out because they were measured under other isolation
    conditions_unknown: bool  # some kept rows have no isolation record


def parse_history(text: str) -> list[HistoryRow]:
    """Rows of a history file; malformed lines are dropped."""
    rows: list[HistoryRow] = []
    for i, cells in enumerate(csv.reader(io.StringIO(text))):
        if i == 0 and tuple(cells[:5]) == HEADER[:5]:
            continue
        if len(cells) not in (5, 6) or not _DATE.match(cells[0]) or not cells[1]:
            continue
        try:
            tokens, tools = int(cells[2]), int(cells[3])
        except ValueError:
            continue
        if cells[4] not in _STATUSES:
            continue
        iso = cells[5] if len(cells) == 6 and cells[5] in ("docker", "host") else ""
        rows.append(HistoryRow(cells[0], cells[1], tokens, tools, Status(cells[4]), iso))
    return rows


def render_history(rows: Iterable[HistoryRow]) -> str:
    """CSV text, sorted by date then server; quoting only where a cell needs it."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(HEADER)
    for r in sorted(rows):
        writer.writerow([r.date, r.server, r.tokens, r.tool_count, r.status, r.isolation])
    return buf.getvalue()


def row_for(server: str, m: Measurement) -> HistoryRow | None:
    """The history row a measurement contributes, or None (failures, bad dates)."""
    if not m.has_number or m.tool_count is None or m.total_tokens is None:
        return None
    date = m.measured_at[:10]
    if not _DATE.match(date):
        return None
    iso = "" if m.isolation is None else ("docker" if m.isolation.docker else "host")
    return HistoryRow(date, server, m.total_tokens, m.tool_count, m.status, iso)


def fold(rows: Iterable[HistoryRow], measurements: Mapping[str, Measurement]) -> list[HistoryRow]:
    """Upsert every measurement's row into ``rows`` (idempotent)."""
    table = {(r.date, r.server): r for r in rows}
    for server, m in measurements.items():
        row = row_for(server, m)
        if row is not None:
            table[(row.date, row.server)] = row
    return sorted(table.values())


def plottable(rows: Sequence[HistoryRow]) -> Series:
    """One server's comparable trend: cut at the newest known isolation change."""
    ordered = sorted(rows)
    if not ordered:
        return Series((), 0, False)
    newest = ordered[-1].isolation
    start = 0
    if newest:
        for i in range(len(ordered) - 1, -1, -1):
            if ordered[i].isolation and ordered[i].isolation != newest:
                start = i + 1
                break
    kept = tuple(ordered[start:])
    return Series(kept, start, any(not r.isolation for r in kept))


def by_server(rows: Iterable[HistoryRow]) -> dict[str, list[HistoryRow]]:
    out: dict[str, list[HistoryRow]] = {}
    for r in rows:
        out.setdefault(r.server, []).append(r)
    return out
