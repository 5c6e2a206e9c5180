"""Where a sweep's files live under an output root, and reading them back.

Writing goes through ``mcpcost.runtime.output_tree`` (atomic, no symbolic links below the root); reads
here never follow a link below the root either, so a planted ``results/<name>`` link cannot feed
another directory's files into the published pages.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.model import Measurement
from mcpcost.errors import InputError
from mcpcost.runtime.output_tree import TreeTransaction, read_in_tree
from mcpcost.runtime.world_files import MAX_TREE_FILE_BYTES, WorldFileRefused, read_world_file


def measurement_rel(name: str) -> str:
    return f"results/{name}/measurement.json"


BADGES = "badges"


def badge_rel(name: str) -> str:
    return f"{BADGES}/{name}.json"


def measurement_path(root: Path, name: str) -> Path:
    return root / measurement_rel(name)


def badge_path(root: Path, name: str) -> Path:
    return root / badge_rel(name)


def read_bytes(path: Path) -> bytes | None:
    """Bytes of a file, or None when it is missing, not a regular file (a FIFO or device is
    refused unread) or larger than a published file may be."""
    try:
        return read_world_file(path, max_bytes=MAX_TREE_FILE_BYTES)
    except (FileNotFoundError, NotADirectoryError, WorldFileRefused):
        return None


def parse_measurement(data: bytes | None) -> Measurement | None:
    if data is None:
        return None
    try:
        return Measurement.from_dict(parse_json(data))
    except InputError:
        return None


def result_names(root: Path) -> set[str]:
    """Names of the real directories (not links) under ``root/results``."""
    results = root / "results"
    try:
        if results.is_symlink() or not results.is_dir():
            return set()
        names = set()
        for entry in os.scandir(results):
            if stat.S_ISDIR(entry.stat(follow_symlinks=False).st_mode):
                names.add(entry.name)
        return names
    except OSError:
        return set()


def load_measurements(root: Path, txn: TreeTransaction | None = None) -> dict[str, Measurement]:
    """Every readable ``results/<name>/measurement.json``, by directory name.

    With a transaction, what it has staged is read over the tree.
    """
    names = result_names(root)
    if txn is not None:
        names |= txn.staged_names("results")
    out: dict[str, Measurement] = {}
    for name in sorted(names):
        rel = measurement_rel(name)
        data = txn.read(rel) if txn is not None else read_in_tree(root, rel)
        m = parse_measurement(data)
        if m is not None:
            out[name] = m
    return out
