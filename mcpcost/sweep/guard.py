"""The harness guard: refuse to publish a sweep in which the measuring machine broke.

Before measuring, the prior status of every selected server is read from the published tree.
The sweep stages its results apart from that tree (``mcpcost.runtime.output_tree``), so refusing
means dropping the staged files: the published ones were never touched.

A server is *comparable* when its prior status was good (measured or dynamic) and it was swept
again; it *regressed* when its new status is not good. The sweep is a harness
fault when at least ``MIN_REGRESSIONS`` comparable servers regressed and they are at least
``FAULT_RATIO`` of the comparable ones. With nothing comparable the check is not performed, and
that is said rather than reported as a pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from mcpcost.core.status import GOOD_STATUSES, Status
from mcpcost.runtime.output_tree import read_in_tree
from mcpcost.sweep.files import measurement_rel, parse_measurement

MIN_REGRESSIONS = 5
FAULT_RATIO = 0.5


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The published status of every server the sweep selected (None: no readable measurement)."""

    prior: Mapping[str, Status | None]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The guard's decision over one sweep."""

    fault: bool
    performed: bool
    comparable: int
    regressed: tuple[str, ...]
    reason: str


def take_snapshot(root: Path, names: Iterable[str]) -> Snapshot:
    """Record the published status of ``names`` under ``root``."""
    prior: dict[str, Status | None] = {}
    for name in names:
        m = parse_measurement(read_in_tree(root, measurement_rel(name)))
        prior[name] = m.status if m is not None else None
    return Snapshot(prior)


def judge(snapshot: Snapshot, new_status: Mapping[str, Status]) -> Verdict:
    """The verdict for the servers swept this run (``new_status``)."""
    comparable = [n for n, p in snapshot.prior.items() if p in GOOD_STATUSES and n in new_status]
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
