"""``results/data.json``: every entry of the published tree as one reusable document. Pure.

The document's shape is ``spec/dataset.schema.json`` (version ``DATASET_VERSION``; explained in
``spec/DATASET.md``). It is built from the leaderboard's rows (``views.build_board``), so its
numbers, statuses and session-start costs are the pages' own; entries are in name order so a
merged sweep and a single one give the same bytes. ``coverage`` counts the rows by status in
``COVERAGE_ORDER``, the order the leaderboard's coverage table uses.
"""

from __future__ import annotations

from typing import Any, Final

from mcpcost.core.model import ENCODING, METHODOLOGY_VERSION
from mcpcost.core.status import Status
from mcpcost.sweep.estimator import Estimator
from mcpcost.sweep.views import Board, Row

DATASET_VERSION: Final = "1"
DATASET_REL: Final = "results/data.json"
SCHEMA_ID: Final = "https://github.com/mcp-context-cost/mcp-context-cost/spec/dataset.schema.json"
# measured first, then why not, from the server's answer to what was never launched
COVERAGE_ORDER: Final = (
    Status.MEASURED,
    Status.DYNAMIC,
    Status.AUTH_REQUIRED,
    Status.REMOTE_AUTH_WALL,
    Status.NEEDS_CONFIG,
    Status.UNREACHABLE,
    Status.GONE,
    Status.STARTUP_FAILURE,
    Status.TIMEOUT,
    Status.INACTIVE,
    Status.OTHER,
    Status.NOT_YET_RUN,
)


def coverage(board: Board) -> list[tuple[Status, int]]:
    """Rows per status, every status in ``COVERAGE_ORDER`` (zeros kept: a zero is a finding)."""
    counts = dict.fromkeys(COVERAGE_ORDER, 0)
    for row in board.all_rows:
        counts[row.status] = counts.get(row.status, 0) + 1
    return list(counts.items())


def source_of(row: Row) -> dict[str, Any] | None:
    """Where an entry came from: the registry entry its measurement (or catalog entry) names,
    or a catalog entry's package and version; None for a measured directory no catalog lists."""
    m = row.measurement
    if m is not None and m.registry_entry is not None:
        said = dict(m.registry_entry)
        name, version = said.pop("name"), said.pop("version")
        return {"kind": "registry", "name": name, "version": version or None, **said}
    entry = row.entry
    if entry is None:
        return None
    if entry.registry_name is not None:
        said = dict(entry.registry_details)
        return {"kind": "registry", "name": entry.registry_name, "version": entry.version, **said}
    return {"kind": "catalog", "package": entry.package, "version": entry.version}


def dataset_entry(row: Row) -> dict[str, Any]:
    m = row.measurement
    iso = None if m is None or m.isolation is None else m.isolation.to_dict()
    return {
        "name": row.name,
        "status": str(row.status),
        "totalTokens": row.tokens,
        "toolCount": row.tool_count,
        "canonicalSha256": m.canonical_sha256 if m is not None and m.has_number else None,
        "sessionStart": None if row.session is None else row.session.to_dict(),
        "measuredAt": None if m is None else m.measured_at,
        "isolation": iso,
        "transport": None if m is None or m.transport is None else str(m.transport),
        "source": source_of(row),
        "notes": (m.notes if m is not None else row.pending) or None,  # pending: the reason
    }


def dataset_document(board: Board, estimator: Estimator | None) -> dict[str, Any]:
    """The whole dataset: header, coverage, the estimator's fit and every entry."""
    rows = sorted(board.all_rows, key=lambda r: r.name)
    return {
        "$schema": SCHEMA_ID,
        "datasetVersion": DATASET_VERSION,
        "methodologyVersion": METHODOLOGY_VERSION,
        "encoding": ENCODING,
        "entryCount": len(rows),
        "coverage": {str(status): n for status, n in coverage(board)},
        "estimator": None if estimator is None else estimator.to_dict(),
        "entries": [dataset_entry(r) for r in rows],
    }
