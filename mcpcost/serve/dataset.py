"""The published tree a service serves (``--out DIR``): ``/data.json`` and ``/api/servers/<name>``.

``/data.json`` is the tree's own dataset, ``results/data.json``, byte for byte, when the tree has
one (``origin`` "published"); otherwise it is the document a publish would write
(``sweep.data_json``, spec/DATASET.md) built here from the measurements under ``results/``
(``sweep.views.build_board``: the same session-start cost, backfill included), ``origin``
"built". ``/api/servers/<name>`` is always
built from ``results/<name>/measurement.json``: the public fields ``/api/measure`` answers with.

Reads go through the tree readers (``sweep.files``, ``runtime.output_tree``): bounded, and never
through a link below the root. ``load_dataset`` does the IO and is run off the event loop; what
it returns is a value the app swaps in whole, so a request sees one snapshot or the next.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.model import Measurement
from mcpcost.errors import InputError
from mcpcost.runtime.output_tree import read_in_tree
from mcpcost.serve.api import entity_tag, json_body, measurement_view
from mcpcost.sweep.data_json import dataset_document
from mcpcost.sweep.estimator import fit, samples_from
from mcpcost.sweep.files import load_measurements, measurement_rel
from mcpcost.sweep.history import parse_history
from mcpcost.sweep.views import Board, build_board

DATASET_REL: Final = "results/data.json"
HISTORY_REL: Final = "results/history.csv"
SESSION_BACKFILL_REL: Final = "results/session-start.json"
BUILT_FROM: Final = "results/*/measurement.json"
Origin = Literal["published", "built"]


@dataclass(frozen=True, slots=True)
class Representation:
    """The bytes one URL answers with, and their ETag."""

    body: bytes
    etag: str

    @classmethod
    def of(cls, body: bytes) -> Representation:
        return cls(body, entity_tag(body))


@dataclass(frozen=True, slots=True, kw_only=True)
class Dataset:
    """One snapshot of the tree: the dataset document and each server's public record."""

    origin: Origin
    data: Representation
    servers: Mapping[str, Representation] = field(default_factory=dict)


def built_document(board: Board, measurements: Mapping[str, Measurement]) -> dict[str, Any]:
    """The dataset a publish would write (``sweep.data_json``, spec/DATASET.md), built from the
    tree's measurements, marked ``builtFrom``."""
    doc = dataset_document(board, fit(samples_from(measurements)))
    return {"builtFrom": BUILT_FROM, **doc}


def _json_or_none(root: Path, rel: str) -> Any:
    data = read_in_tree(root, rel)
    if data is None:
        return None
    try:
        return parse_json(data)
    except InputError:
        return None


def load_dataset(root: Path) -> Dataset:
    """Read the tree under ``root`` (IO; run it off the event loop)."""
    measurements = load_measurements(root)
    history_bytes = read_in_tree(root, HISTORY_REL) or b""
    board = build_board(
        None,
        measurements,
        parse_history(history_bytes.decode("utf-8", "replace")),
        session_backfill=_json_or_none(root, SESSION_BACKFILL_REL),
    )
    servers = {
        r.name: Representation.of(
            json_body({"name": r.name, **measurement_view(r.measurement, r.session)})
        )
        for r in board.all_rows
        if r.measurement is not None
    }
    published = read_in_tree(root, DATASET_REL)
    if published is not None and _parses(published):
        return Dataset(origin="published", data=Representation.of(published), servers=servers)
    built = Representation.of(json_body(built_document(board, measurements)))
    return Dataset(origin="built", data=built, servers=servers)


def _parses(data: bytes) -> bool:
    try:
        parse_json(data)
    except InputError:
        return False
    return True


def _stat_line(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns) if stat.S_ISREG(st.st_mode) else None


def tree_signature(root: Path) -> tuple[object, ...]:
    """What changes whenever a file ``load_dataset`` reads changes (inode, size, mtime of
    each), so an unchanged tree is not read again."""
    lines: list[object] = [
        _stat_line(root / rel) for rel in (DATASET_REL, HISTORY_REL, SESSION_BACKFILL_REL)
    ]
    results = root / "results"
    try:
        names = sorted(e.name for e in os.scandir(results) if e.is_dir(follow_symlinks=False))
    except OSError:
        names = []
    lines.extend((name, _stat_line(root / measurement_rel(name))) for name in names)
    return tuple(lines)
