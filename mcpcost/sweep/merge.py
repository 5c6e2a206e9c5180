"""Fold the outputs of sweep shards (matrix jobs) into one tree, under the harness guard.

Each shard directory holds ``results/<name>/measurement.json`` and ``badges/<name>.json`` for its
slice. The union is checked by the same guard a single-machine sweep applies, against what the
target tree had published before; then history is folded and pages regenerated. Merging the
shards of a catalog gives the same tree as sweeping that catalog on one machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from mcpcost.core.badge import badge_file_text
from mcpcost.core.names import name_problem
from mcpcost.core.plural import counted
from mcpcost.core.status import Status
from mcpcost.errors import InputError
from mcpcost.runtime.output_tree import open_tree, read_in_tree
from mcpcost.runtime.workers import Background
from mcpcost.sweep.catalog import Catalog
from mcpcost.sweep.files import badge_rel, measurement_rel, parse_measurement, result_names
from mcpcost.sweep.guard import take_snapshot
from mcpcost.sweep.runner import Progress, SweepOutcome, conclude

COPY_THREADS = 8


@dataclass(frozen=True, slots=True)
class Found:
    """Where a name's newest measurement is, and what the guard needs of it (the measurement
    itself is read again when copied: a merge of a registry holds no list of measurements)."""

    shard: Path
    measured_at: str
    status: Status


def collect(shard_dirs: Sequence[Path]) -> dict[str, Found]:
    """Every measurement in the shards, by name; a name in two shards keeps the newer one."""
    found: dict[str, Found] = {}
    for shard in shard_dirs:
        if not shard.is_dir():
            raise InputError(f"{shard}: not a directory")
        for name in sorted(result_names(shard)):
            if name_problem(name) is not None:
                continue
            m = parse_measurement(read_in_tree(shard, measurement_rel(name)))
            if m is None:
                continue
            prior = found.get(name)
            if prior is None or m.measured_at > prior.measured_at:
                found[name] = Found(shard, m.measured_at, m.status)
    return found


def merge(
    shard_dirs: Sequence[Path],
    root: Path,
    catalog: Catalog | None,
    *,
    progress: Progress,
    publish_pages: bool = True,
) -> SweepOutcome:
    """Copy every shard's files into ``root`` byte for byte, then guard and publish.

    Like a sweep, the copies are staged and reach ``root`` in one commit, or not at all.
    """
    found = collect(shard_dirs)
    with open_tree(root) as txn:
        snapshot = take_snapshot(root, sorted(found))
        statuses = {name: f.status for name, f in found.items()}

        def copy(name: str, shard: Path) -> None:
            data = read_in_tree(shard, measurement_rel(name))
            m = parse_measurement(data)
            if data is None or m is None:
                raise InputError(f"{shard / measurement_rel(name)}: vanished while merging")
            txn.put(measurement_rel(name), data)
            badge = read_in_tree(shard, badge_rel(name))
            txn.put(badge_rel(name), badge if badge is not None else badge_file_text(m))

        # the copies are written on threads of their own: each waits for its fsync
        with Background(threads=COPY_THREADS, queued=4 * COPY_THREADS, name="mcpcost-merge") as bg:
            for name in sorted(found):
                bg.submit(partial(copy, name, found[name].shard))
        progress(
            f"merged {counted(len(found), 'measurement')} from {counted(len(shard_dirs), 'shard')}"
        )
        return conclude(
            txn, catalog, snapshot, statuses, progress=progress, publish_pages=publish_pages
        )
