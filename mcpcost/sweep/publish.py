"""Regenerate every published file from the measurements on disk (deterministic).

Order: history fold -> calibration of the divergence columns -> estimator -> leaderboard (md,
csv) -> the dataset (``results/data.json``, ``sweep/data_json.py``) -> server pages (Markdown, and the
HTML the dashboard links to) + index -> dashboard. Files whose content would not change are not
rewritten. Server pages that an earlier publish wrote (they start with ``pages.GENERATED_MARK``)
are deleted once their server has no measured number; any other file under ``docs/servers/``
is left alone. Badges are the measurement writers' (sweep, merge, measure), except for the
entries the pages show as ``not-yet-run``: each gets a grey ``not yet run`` badge
(``core.badge``), so an embedded endpoint never answers 404; such a badge is deleted once its
entry is neither not-yet-run nor measured, and a measurement's own badge replaces it. Every
change is staged in a
``TreeTransaction`` and reaches the tree in its one commit (``mcpcost.runtime.output_tree``).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpcost.core.badge import BadgeState, badge_state, state_badge_file_text
from mcpcost.core.calibration import CALIBRATION_REL
from mcpcost.core.divergence import CLAUDE, OPENAI
from mcpcost.core.jsonvalue import parse_json, stringify_pretty
from mcpcost.core.status import Status
from mcpcost.errors import InputError
from mcpcost.runtime.output_tree import TreeTransaction, open_tree, read_in_tree
from mcpcost.sweep import pages
from mcpcost.sweep.catalog import Catalog
from mcpcost.sweep.data_json import DATASET_REL, dataset_document
from mcpcost.sweep.divergence_run import stage_calibration
from mcpcost.sweep.estimator import Estimator, fit, samples_from
from mcpcost.sweep.files import BADGES, badge_rel, load_measurements
from mcpcost.sweep.history import fold, parse_history, render_history
from mcpcost.sweep.interim import NOT_YET_RUN_REL
from mcpcost.sweep.views import Board, build_board


@dataclass(frozen=True, slots=True)
class Published:
    """What a publish run wrote (paths relative to the root) and the estimator it fitted."""

    written: tuple[str, ...]
    measured: int
    total: int
    estimator: Estimator | None
    removed: tuple[str, ...] = ()


def _read_json(txn: TreeTransaction, rel: str) -> Any:
    data = txn.read(rel)
    if data is None:
        return None
    try:
        return parse_json(data)
    except InputError:
        return None


def _write_if_changed(txn: TreeTransaction, rel: str, text: str, written: list[str]) -> None:
    if txn.put_if_changed(rel, text):
        written.append(rel)


HISTORY = "results/history.csv"


def fold_history(txn: TreeTransaction) -> list[str]:
    """Fold every measurement into results/history.csv; returns the paths staged."""
    written: list[str] = []
    old = txn.read(HISTORY)
    rows = parse_history(old.decode("utf-8", "replace")) if old is not None else []
    rows = fold(rows, load_measurements(txn.root, txn))
    _write_if_changed(txn, HISTORY, render_history(rows), written)
    return written


SERVER_PAGES = "docs/servers"
PAGE_SUFFIXES = (".md", ".html")


def is_generated_page(root: Path, rel: str) -> bool:
    """True for a regular file (not a link) whose first line is the mark of server pages."""
    data = read_in_tree(root, rel)
    if data is None:
        return False
    mark = pages.GENERATED_MARK.encode("utf-8")
    return data.split(b"\n", 1)[0].rstrip(b"\r") == mark


def _file_names(root: Path, rel: str, suffixes: tuple[str, ...]) -> list[str]:
    """Regular files (not links) directly under ``root/rel`` ending in one of ``suffixes``."""
    folder = root / rel
    try:
        if folder.is_symlink() or not folder.is_dir():
            return []
        return sorted(
            e.name
            for e in os.scandir(folder)
            if e.name.endswith(suffixes) and stat.S_ISREG(e.stat(follow_symlinks=False).st_mode)
        )
    except OSError:
        return []


def remove_stale_pages(txn: TreeTransaction, keep: set[str]) -> list[str]:
    """Stage the removal of generated server pages not in ``keep``, in name order."""
    removed: list[str] = []
    for name in _file_names(txn.root, SERVER_PAGES, PAGE_SUFFIXES):
        rel = f"{SERVER_PAGES}/{name}"
        if rel not in keep and is_generated_page(txn.root, rel):
            txn.remove(rel)
            removed.append(rel)
    return removed


# the rows without a measurement that get a state badge, by their status
STATE_BADGES = {
    Status.NOT_YET_RUN: BadgeState.NOT_YET_RUN,
    Status.REMOTE_AUTH_WALL: BadgeState.OAUTH_GATED,
}


def stage_state_badges(txn: TreeTransaction, board: Board) -> tuple[list[str], list[str]]:
    """Give every not-yet-run or OAuth-gated row without a measurement its state badge, and
    stage the removal of state badges whose entry is neither any longer and has no measurement
    (a measured entry's badge is its measurement writer's and is not touched). Returns the paths
    staged and the paths removed."""
    written: list[str] = []
    pending = {
        r.name: STATE_BADGES[r.status]
        for r in board.all_rows
        if r.status in STATE_BADGES and r.measurement is None
    }
    measured = {r.name for r in board.all_rows if r.measurement is not None}
    for name, state in sorted(pending.items()):
        _write_if_changed(txn, badge_rel(name), state_badge_file_text(state), written)
    removed: list[str] = []
    present = set(_file_names(txn.root, BADGES, (".json",))) | txn.staged_names(BADGES)
    for file_name in sorted(present):
        name = file_name.removesuffix(".json")
        if name in pending or name in measured:
            continue
        rel = badge_rel(name)
        data = txn.read(rel)
        if data is not None and badge_state(data) is not None:
            txn.remove(rel)
            removed.append(rel)
    return written, removed


def publish_into(txn: TreeTransaction, catalog: Catalog | None) -> Published:
    """Stage history, estimator, leaderboard, server pages, index and dashboard in ``txn``."""
    written = fold_history(txn)
    measurements = load_measurements(txn.root, txn)
    history_bytes = txn.read(HISTORY) or b""
    history = parse_history(history_bytes.decode("utf-8", "replace"))
    board = build_board(
        catalog,
        measurements,
        history,
        divergence=_read_json(txn, CLAUDE.rel),
        session_backfill=_read_json(txn, "results/session-start.json"),
        openai=_read_json(txn, OPENAI.rel),
        not_yet_run=_read_json(txn, NOT_YET_RUN_REL),
    )
    fits = stage_calibration(txn, measurements)
    if fits.changed:
        written.append(CALIBRATION_REL)
    est = fit(samples_from(measurements))
    if est is not None:
        _write_if_changed(
            txn, "results/estimator.json", stringify_pretty(est.to_dict()) + "\n", written
        )
    _write_if_changed(
        txn, "results/leaderboard.md", pages.leaderboard_md(board, est, fits.fits), written
    )
    _write_if_changed(txn, "results/leaderboard.csv", pages.leaderboard_csv(board), written)
    dataset_text = stringify_pretty(dataset_document(board, est)) + "\n"
    _write_if_changed(txn, DATASET_REL, dataset_text, written)
    keep = {f"{SERVER_PAGES}/index.md"}
    for row in board.measured:
        for rel, text in (
            (f"{SERVER_PAGES}/{row.name}.md", pages.server_page(row, history)),
            (f"{SERVER_PAGES}/{row.name}.html", pages.server_html(row, history)),
        ):
            keep.add(rel)
            _write_if_changed(txn, rel, text, written)
    removed = remove_stale_pages(txn, keep)
    badges_written, badges_removed = stage_state_badges(txn, board)
    written += badges_written
    removed += badges_removed
    _write_if_changed(txn, f"{SERVER_PAGES}/index.md", pages.index_page(board), written)
    _write_if_changed(txn, "docs/dashboard.html", pages.dashboard(board, est), written)
    return Published(tuple(written), len(board.measured), board.total, est, tuple(removed))


def publish(root: Path, catalog: Catalog | None) -> Published:
    """Regenerate every published file under root, all at once (see ``runtime.output_tree``)."""
    with open_tree(root) as txn:
        result = publish_into(txn, catalog)
        txn.commit()
    return result
