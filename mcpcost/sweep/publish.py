"""Regenerate every published file from the measurements on disk (deterministic).

Order: history fold -> estimator -> leaderboard (md, csv) -> server pages + index -> dashboard.
Files whose content would not change are not rewritten. Server pages that an earlier publish
wrote (they start with ``pages.GENERATED_MARK``) are deleted once their server has no measured
number; any other file under ``docs/servers/`` is left alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpcost.core.jsonvalue import parse_json, stringify_pretty
from mcpcost.errors import InputError
from mcpcost.sweep import pages
from mcpcost.sweep.catalog import Catalog
from mcpcost.sweep.estimator import Estimator, fit, samples_from
from mcpcost.sweep.files import atomic_write, load_measurements, read_bytes
from mcpcost.sweep.history import fold, parse_history, render_history
from mcpcost.sweep.views import build_board


@dataclass(frozen=True)
class Published:
    """What a publish run wrote (paths relative to the root) and the estimator it fitted."""

    written: tuple[str, ...]
    measured: int
    total: int
    estimator: Estimator | None
    removed: tuple[str, ...] = ()


def _read_json(path: Path) -> Any:
    data = read_bytes(path)
    if data is None:
        return None
    try:
        return parse_json(data)
    except InputError:
        return None


def _write_if_changed(root: Path, rel: str, text: str, written: list[str]) -> None:
    path = root / rel
    data = text.encode("utf-8")
    if read_bytes(path) != data:
        atomic_write(path, data)
        written.append(rel)


def fold_history(root: Path) -> list[str]:
    """Fold every measurement into results/history.csv; returns the paths written."""
    written: list[str] = []
    path = root / "results" / "history.csv"
    old = read_bytes(path)
    rows = parse_history(old.decode("utf-8", "replace")) if old is not None else []
    rows = fold(rows, load_measurements(root))
    _write_if_changed(root, "results/history.csv", render_history(rows), written)
    return written


SERVER_PAGES = "docs/servers"


def is_generated_page(path: Path) -> bool:
    """True for a regular file whose first line is the mark publish writes into server pages."""
    if path.is_symlink() or not path.is_file():
        return False
    mark = pages.GENERATED_MARK.encode("utf-8")
    with path.open("rb") as fh:
        first = fh.readline(len(mark) + 2)
    return first.rstrip(b"\r\n") == mark


def remove_stale_pages(root: Path, keep: set[str]) -> list[str]:
    """Delete generated server pages not in ``keep`` (paths relative to root), in name order."""
    folder = root / SERVER_PAGES
    if not folder.is_dir():
        return []
    removed: list[str] = []
    for path in sorted(folder.glob("*.md")):
        rel = f"{SERVER_PAGES}/{path.name}"
        if rel not in keep and is_generated_page(path):
            path.unlink()
            removed.append(rel)
    return removed


def publish(root: Path, catalog: Catalog | None) -> Published:
    """Write history, estimator, leaderboard, server pages, index and dashboard under root."""
    written = fold_history(root)
    measurements = load_measurements(root)
    history_bytes = read_bytes(root / "results" / "history.csv") or b""
    history = parse_history(history_bytes.decode("utf-8", "replace"))
    board = build_board(
        catalog,
        measurements,
        history,
        divergence=_read_json(root / "results" / "divergence.json"),
        session_backfill=_read_json(root / "results" / "session-start.json"),
    )
    est = fit(samples_from(measurements))
    if est is not None:
        _write_if_changed(
            root, "results/estimator.json", stringify_pretty(est.to_dict()) + "\n", written
        )
    _write_if_changed(root, "results/leaderboard.md", pages.leaderboard_md(board, est), written)
    _write_if_changed(root, "results/leaderboard.csv", pages.leaderboard_csv(board), written)
    keep = {f"{SERVER_PAGES}/index.md"}
    for row in board.measured:
        rel = f"{SERVER_PAGES}/{row.name}.md"
        keep.add(rel)
        _write_if_changed(root, rel, pages.server_page(row, history), written)
    removed = remove_stale_pages(root, keep)
    _write_if_changed(root, f"{SERVER_PAGES}/index.md", pages.index_page(board), written)
    _write_if_changed(root, "docs/dashboard.html", pages.dashboard(board, est), written)
    return Published(tuple(written), len(board.measured), board.total, est, tuple(removed))
