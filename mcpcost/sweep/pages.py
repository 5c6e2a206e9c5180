"""Rendering: leaderboard (md, csv), server pages, index and dashboard from a ``Board``.

Every page goes through a sandboxed Jinja environment; HTML templates autoescape, markdown
cells pass through ``md_cell``. Output is a function of the inputs alone: no timestamps.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import FileSystemLoader, StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from mcpcost.core.bands import BANDS, BANDS_FROZEN_ON
from mcpcost.core.markdown import md_text
from mcpcost.core.model import METHODOLOGY_VERSION
from mcpcost.core.status import Status
from mcpcost.sweep.estimator import Estimator
from mcpcost.sweep.history import HistoryRow
from mcpcost.sweep.views import Board, Row

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
MD_CELL_MAX = 160
PAGE_MD_ACTIVE = frozenset("\\|`[]<>")
PAGE_TOOL_LIMIT = 30
SPARK_W, SPARK_H, SPARK_PAD, SPARK_POINTS = 56, 18, 3, 12
CSV_HEADER = (
    "name",
    "tokens",
    "toolCount",
    "status",
    "category",
    "metric",
    "metricSource",
    "claudeTokens",
    "claudeModel",
    "sessionStartTokens",
    "sessionStartIsFloor",
    "toolNameTokens",
    "instructionsTokens",
)


def md_cell(value: object, limit: int = MD_CELL_MAX) -> str:
    """Third-party text made safe for a markdown table cell (and for markdown prose)."""
    return md_text(value, limit, mentions=False, active=PAGE_MD_ACTIVE)


def thousands(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


@lru_cache(maxsize=1)
def environment() -> SandboxedEnvironment:
    env = SandboxedEnvironment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=lambda name: bool(name and name.endswith(".html.j2")),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["md"] = md_cell
    env.filters["thousands"] = thousands
    return env


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


def session_text(row: Row) -> str:
    s = row.session
    if s is None:
        return "—"
    return f"≥{s.total:,}" if s.is_floor else f"{s.total:,}"


def largest_text(row: Row) -> str:
    lt = row.largest_tool
    return "—" if lt is None else f"{md_cell(lt[0], 80)} ({lt[1]:,})"


def isolation_text(row: Row) -> str:
    m = row.measurement
    if m is None or m.isolation is None:
        return "not recorded"
    iso = m.isolation
    if not iso.docker:
        return "host process (no container)"
    parts = ["docker"]
    if iso.image:
        parts.append(iso.image)
    if iso.network:
        parts.append(f"network {iso.network}")
    if iso.note:
        parts.append(iso.note)
    return " · ".join(parts)


def estimator_context(est: Estimator | None) -> dict[str, Any] | None:
    if est is None:
        return None
    return {
        "coefficient": f"{est.coefficient:.5f}",
        "n": est.n,
        "mae": f"{est.mae:.1f}",
        "mape": f"{est.mape:.1f}",
        "p90": f"{est.p90_abs_error:.1f}",
        "p90pct": f"{est.p90_abs_pct_error:.1f}",
    }


def leaderboard_md(board: Board, est: Estimator | None) -> str:
    show_claude = board.divergence_model is not None
    rows = []
    for rank, r in enumerate(board.measured, 1):
        m = r.measurement
        rows.append(
            {
                "rank": rank,
                "name": md_cell(r.name),
                "link": f"../docs/servers/{r.name}.md",
                "tokens": thousands(r.tokens),
                "session": session_text(r),
                "claude": thousands(r.divergence.claude_tokens) if r.divergence else "—",
                "tools": thousands(r.tool_count),
                "largest": largest_text(r),
                "status": str(r.status),
                "category": md_cell(r.category) or "—",
                "dynamic": m is not None and m.status is Status.DYNAMIC,
            }
        )
    costlier = [
        {"name": md_cell(r.name), "session": f"{r.session.total:,}", "tokens": thousands(r.tokens)}
        for r in board.measured
        if r.session is not None and r.tokens is not None and r.session.total >= r.tokens
    ]
    floors = sum(1 for r in board.measured if r.session is not None and r.session.is_floor)
    return render(
        "leaderboard.md.j2",
        methodology=METHODOLOGY_VERSION,
        measured_count=len(board.measured),
        total=board.total,
        show_claude=show_claude,
        claude_model=md_cell(board.divergence_model or ""),
        claude_date=md_cell(board.divergence_date or ""),
        claude_count=sum(1 for r in board.measured if r.divergence is not None),
        floors=floors,
        costlier=costlier,
        rows=rows,
        not_measured=[
            {"name": md_cell(r.name), "status": str(r.status), "note": md_cell(r.note)}
            for r in board.not_measured
        ],
        estimator=estimator_context(est),
    )


def leaderboard_csv(board: Board) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(CSV_HEADER)
    for r in board.all_rows:
        e = r.entry
        metric = "" if e is None or e.metric is None else _num(e.metric)
        s = r.session
        writer.writerow(
            [
                r.name,
                "" if r.tokens is None else r.tokens,
                "" if r.tool_count is None else r.tool_count,
                str(r.status),
                r.category,
                metric,
                (e.metric_source if e else None) or "",
                r.divergence.claude_tokens if r.divergence else "",
                r.divergence.model if r.divergence else "",
                "" if s is None else s.total,
                "" if s is None else ("true" if s.is_floor else "false"),
                "" if s is None else s.tool_name_tokens,
                "" if s is None or s.instructions_tokens is None else s.instructions_tokens,
            ]
        )
    return buf.getvalue()


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


def _change(prev: HistoryRow | None, cur: HistoryRow) -> str:
    if prev is None:
        return "—"
    if prev.isolation and cur.isolation and prev.isolation != cur.isolation:
        return "not comparable"
    delta = cur.tokens - prev.tokens
    return "no change" if delta == 0 else f"{delta:+,}"


def server_page(row: Row, all_history: Sequence[HistoryRow]) -> str:
    m = row.measurement
    assert m is not None and row.tokens is not None and row.band is not None
    tools = sorted(enumerate(m.tools), key=lambda it: (-it[1].tokens, it[0]))
    shown = tools[:PAGE_TOOL_LIMIT]
    rest = tools[PAGE_TOOL_LIMIT:]
    total = row.tokens or 1
    history = sorted(r for r in all_history if r.server == row.name)
    over_time = []
    prev: HistoryRow | None = None
    for h in history:
        over_time.append(
            {
                "date": h.date,
                "tokens": f"{h.tokens:,}",
                "tools": h.tool_count,
                "iso": h.isolation or "not recorded",
                "change": _change(prev, h),
            }
        )
        prev = h
    version = m.server_version or ""
    if version[:1] in ("v", "V") and version[1:2].isdigit():
        version = version[1:]
    entry = row.entry
    env_names = ", ".join(m.env_var_names) if m.env_var_names else "none"
    d = row.divergence
    return render(
        "server.md.j2",
        name=md_cell(row.name),
        slug=row.name,
        tokens=f"{row.tokens:,}",
        tool_count=row.tool_count,
        band=row.band,
        measured_on=md_cell(m.measured_at[:10]),
        methodology=md_cell(m.methodology_version),
        server_name=md_cell(m.server_name),
        server_version=md_cell(version) if version else "",
        status=str(m.status),
        dynamic=m.status is Status.DYNAMIC,
        encoding=md_cell(m.encoding),
        launch=md_cell(m.launch_command, 400),
        isolation=md_cell(isolation_text(row), 300),
        env_names=md_cell(env_names, 400),
        sha=md_cell(m.canonical_sha256 or ""),
        category=md_cell(row.category) or "—",
        repo=md_cell(entry.repo) if entry and entry.repo else "—",
        tools=[
            {
                "name": md_cell(t.name, 80),
                "tokens": f"{t.tokens:,}",
                "share": f"{100 * t.tokens / total:.1f}%",
                "desc": f"{t.description_tokens:,}",
                "schema": f"{t.input_schema_tokens:,}",
            }
            for _, t in shown
        ],
        rest_count=len(rest),
        rest_tokens=f"{sum(t.tokens for _, t in rest):,}",
        divergence=None
        if d is None
        else {
            "model": md_cell(d.model),
            "date": md_cell(d.measured_on),
            "claude": f"{d.claude_tokens:,}",
            "mapped": thousands(d.o200k_mapped),
            "ratio": f"{d.claude_tokens / row.tokens:.2f}" if row.tokens else "—",
            "share": f"{100 * (row.tokens - d.o200k_mapped) / row.tokens:.1f}%"
            if d.o200k_mapped is not None and row.tokens
            else "—",
        },
        over_time=over_time if len(over_time) > 1 else [],
        dropped=row.series.dropped,
        series_start=row.series.rows[0].date if row.series.rows else "",
        conditions_unknown=row.series.conditions_unknown,
    )


def index_page(board: Board) -> str:
    return render(
        "index.md.j2",
        rows=[
            {
                "rank": i,
                "name": md_cell(r.name),
                "slug": r.name,
                "tokens": thousands(r.tokens),
                "tools": thousands(r.tool_count),
                "band": r.band.label if r.band else "",
            }
            for i, r in enumerate(board.measured, 1)
        ],
        not_measured=[
            {"name": md_cell(r.name), "status": str(r.status)} for r in board.not_measured
        ],
        methodology=METHODOLOGY_VERSION,
    )


def sparkline(values: Sequence[int]) -> dict[str, Any] | None:
    """Polyline points of the last points of a series, or None when under two points."""
    pts = list(values)[-SPARK_POINTS:]
    if len(pts) < 2:
        return None
    lo, hi = min(pts), max(pts)
    inner_w, inner_h = SPARK_W - 2 * SPARK_PAD, SPARK_H - 2 * SPARK_PAD
    coords = []
    for i, v in enumerate(pts):
        x = SPARK_PAD + inner_w * i / (len(pts) - 1)
        y = SPARK_H / 2 if hi == lo else SPARK_PAD + inner_h * (hi - v) / (hi - lo)
        coords.append((round(x, 1), round(y, 1)))
    return {
        "points": " ".join(f"{x:g},{y:g}" for x, y in coords),
        "cx": coords[-1][0],
        "cy": coords[-1][1],
        "width": SPARK_W,
        "height": SPARK_H,
    }


def dashboard(board: Board, est: Estimator | None) -> str:
    measured = board.measured
    top = max((r.tokens or 0 for r in measured), default=0) or 1
    tokens_sorted = sorted(r.tokens or 0 for r in measured)
    median = tokens_sorted[len(tokens_sorted) // 2] if tokens_sorted else None
    bars = []
    for rank, r in enumerate(measured, 1):
        tokens = r.tokens or 0
        lt = r.largest_tool
        series = [h.tokens for h in r.series.rows]
        m = r.measurement
        bars.append(
            {
                "rank": rank,
                "name": r.name,
                "tokens": f"{tokens:,}",
                "pct": f"{max(1.2, 100 * tokens / top):.1f}",
                "band": r.band,
                "tools": r.tool_count,
                "category": r.category or "—",
                "status": str(r.status),
                "largest": f"{lt[0]} ({lt[1]:,})" if lt else "—",
                "version": (m.server_version if m else None) or "—",
                "spark": sparkline(series),
                "trend": f"{len(series)} comparable sweeps"
                + (
                    f"; {r.series.dropped} earlier dropped (isolation changed)"
                    if r.series.dropped
                    else ""
                ),
                "claude": f"{r.divergence.claude_tokens:,}" if r.divergence else "—",
            }
        )
    pending = sum(1 for r in board.not_measured if r.status is Status.NOT_YET_RUN)
    return render(
        "dashboard.html.j2",
        methodology=METHODOLOGY_VERSION,
        measured_count=len(measured),
        total=board.total,
        median=thousands(median),
        priciest=bars[0] if bars else None,
        pending=pending,
        bars=bars,
        bands=BANDS,
        bands_frozen_on=BANDS_FROZEN_ON,
        not_measured=[
            {"name": r.name, "status": str(r.status), "note": r.note[:MD_CELL_MAX]}
            for r in board.not_measured
        ],
        estimator=estimator_context(est),
    )
