"""Fold the outputs of sweep shards (matrix jobs) into one tree, under the harness guard.

Each shard directory holds ``results/<name>/measurement.json`` and ``badges/<name>.json`` for its
slice. The union is checked by the same guard a single-machine sweep applies, against what the
target tree had published before; then history is folded and pages regenerated. Merging the
shards of a catalog gives the same tree as sweeping that catalog on one machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mcpcost.core.badge import badge_file_text
from mcpcost.core.model import Measurement
from mcpcost.core.names import name_problem
from mcpcost.core.status import Status
from mcpcost.errors import InputError
from mcpcost.sweep.catalog import Catalog
from mcpcost.sweep.files import (
    atomic_write,
    badge_path,
    load_measurement,
    measurement_path,
    read_bytes,
)
from mcpcost.sweep.guard import take_snapshot
from mcpcost.sweep.runner import Progress, SweepOutcome, conclude


def collect(shard_dirs: Sequence[Path]) -> dict[str, tuple[Path, Measurement]]:
    """Every measurement in the shards, by name; a name in two shards keeps the newer one."""
    found: dict[str, tuple[Path, Measurement]] = {}
    for shard in shard_dirs:
        if not shard.is_dir():
            raise InputError(f"{shard}: not a directory")
        results = shard / "results"
        if not results.is_dir():
            continue
        for sub in sorted(results.iterdir()):
            if not sub.is_dir() or name_problem(sub.name) is not None:
                continue
            m = load_measurement(sub / "measurement.json")
            if m is None:
                continue
            prior = found.get(sub.name)
            if prior is None or m.measured_at > prior[1].measured_at:
                found[sub.name] = (shard, m)
    return found


def merge(
    shard_dirs: Sequence[Path],
    root: Path,
    catalog: Catalog | None,
    *,
    progress: Progress,
    publish_pages: bool = True,
) -> SweepOutcome:
    """Copy every shard's files into ``root`` byte for byte, then guard and publish."""
    found = collect(shard_dirs)
    snapshot = take_snapshot(root, sorted(found))
    statuses: dict[str, Status] = {}
    for name in sorted(found):
        shard, m = found[name]
        data = read_bytes(measurement_path(shard, name))
        assert data is not None
        atomic_write(measurement_path(root, name), data)
        badge = read_bytes(badge_path(shard, name))
        atomic_write(badge_path(root, name), badge if badge is not None else badge_file_text(m))
        statuses[name] = m.status
    progress(f"merged {len(found)} measurements from {len(shard_dirs)} shard(s)")
    return conclude(
        root, catalog, snapshot, statuses, progress=progress, publish_pages=publish_pages
    )
