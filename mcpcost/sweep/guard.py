"""The harness guard: refuse to publish a sweep in which the measuring machine broke.

Before measuring, the bytes of every selected server's measurement and badge are recorded with
the prior status. A server is *comparable* when its prior status was good (measured or dynamic)
and it was swept again; it *regressed* when its new status is not good. The sweep is a harness
fault when at least ``MIN_REGRESSIONS`` comparable servers regressed and they are at least
``FAULT_RATIO`` of the comparable ones. With nothing comparable the check is not performed, and
that is said rather than reported as a pass.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from mcpcost.core.status import GOOD_STATUSES, Status
from mcpcost.sweep.files import (
    atomic_write,
    badge_path,
    load_measurement,
    measurement_path,
    read_bytes,
)

MIN_REGRESSIONS = 5
FAULT_RATIO = 0.5


@dataclass(frozen=True)
class PriorFiles:
    """What one server had published before the sweep (None = no such file)."""

    measurement: bytes | None
    badge: bytes | None
    status: Status | None  # None when there was no readable prior measurement


@dataclass(frozen=True)
class Snapshot:
    """Prior files of every server the sweep selected."""

    prior: Mapping[str, PriorFiles]


@dataclass(frozen=True)
class Verdict:
    """The guard's decision over one sweep."""

    fault: bool
    performed: bool
    comparable: int
    regressed: tuple[str, ...]
    reason: str


def take_snapshot(root: Path, names: Iterable[str]) -> Snapshot:
    """Record the published files of ``names`` under ``root`` before anything is written."""
    prior: dict[str, PriorFiles] = {}
    for name in names:
        m = load_measurement(measurement_path(root, name))
        prior[name] = PriorFiles(
            measurement=read_bytes(measurement_path(root, name)),
            badge=read_bytes(badge_path(root, name)),
            status=m.status if m is not None else None,
        )
    return Snapshot(prior)


def judge(snapshot: Snapshot, new_status: Mapping[str, Status]) -> Verdict:
    """The verdict for the servers swept this run (``new_status``)."""
    comparable = [
        n for n, p in snapshot.prior.items() if p.status in GOOD_STATUSES and n in new_status
    ]
    regressed = tuple(n for n in comparable if new_status[n] not in GOOD_STATUSES)
    if not comparable:
        return Verdict(
            False,
            False,
            0,
            (),
            "harness check not performed: no server swept "
            "this run had a prior measurement to compare against",
        )
    share = len(regressed) / len(comparable)
    fault = len(regressed) >= MIN_REGRESSIONS and share >= FAULT_RATIO
    reason = (
        f"{len(regressed)} of {len(comparable)} previously-measured servers ({share:.0%}) failed "
        f"this run; fault threshold is >= {MIN_REGRESSIONS} and >= {FAULT_RATIO:.0%}"
    )
    return Verdict(fault, True, len(comparable), regressed, reason)


def restore(root: Path, snapshot: Snapshot) -> int:
    """Put every snapshotted file back byte for byte; files that did not exist are removed.

    Returns the number of servers whose files changed back.
    """
    changed = 0
    for name, prior in snapshot.prior.items():
        touched = False
        for path, old in (
            (measurement_path(root, name), prior.measurement),
            (badge_path(root, name), prior.badge),
        ):
            current = read_bytes(path)
            if current == old:
                continue
            touched = True
            if old is None:
                os.unlink(path)
                try:
                    path.parent.rmdir() if path.name == "measurement.json" else None
                except OSError:
                    pass
            else:
                atomic_write(path, old)
        changed += touched
    return changed
