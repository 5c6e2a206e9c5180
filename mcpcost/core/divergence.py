"""A published Claude divergence run (``results/divergence.json``, method ``tools-delta/v1``):
the one reader of that file, and the one rule for when a row may be used.

A row is current when the run did not flag it (no ``error`` key), it carries a numeric
``claudeDelta``, and it names the capture it was computed from (``capturedSha256``). It applies
to a measurement only when that hash equals the measurement's ``canonicalSha256``: the join is by
bytes, never by name. Anything else is stale and is never shown or used.
"""

from __future__ import annotations

from typing import Any

from mcpcost.core.model import Measurement
from mcpcost.core.record import Record
from mcpcost.errors import InputError

DIVERGENCE_METHOD = "tools-delta/v1"


class DivergenceRow(Record, frozen=True, kw_only=True):
    name: str
    claude_delta: int | None
    o200k_full: int | None
    o200k_mapped: int | None
    captured_sha256: str | None
    error: str | None  # set when the run flagged the row (an empty string for a bare flag)

    @property
    def current(self) -> bool:
        return self.error is None and self.claude_delta is not None and bool(self.captured_sha256)

    def current_for(self, canonical_sha256: str | None) -> bool:
        """Current, and computed from the capture with this hash."""
        return (
            self.current
            and canonical_sha256 is not None
            and self.captured_sha256 == canonical_sha256
        )


class DivergenceRun(Record, frozen=True, kw_only=True):
    method: str
    model: str
    measured_at: str
    rows: tuple[DivergenceRow, ...]

    def by_hash(self) -> dict[str, DivergenceRow]:
        """Current rows keyed by capture hash."""
        return {r.captured_sha256: r for r in self.rows if r.current and r.captured_sha256}

    def current_ratios(self) -> list[float]:
        """Anthropic request tokens per o200k wire token, one per current row with both counts."""
        return [
            r.claude_delta / r.o200k_full
            for r in self.rows
            if r.current and r.claude_delta is not None and r.o200k_full
        ]


def _num(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


def _row(name: str, row: dict[str, Any]) -> DivergenceRow:
    sha = row.get("capturedSha256")
    err = row.get("error")
    return DivergenceRow(
        name=name,
        claude_delta=_num(row.get("claudeDelta")),
        o200k_full=_num(row.get("o200kFull")),
        o200k_mapped=_num(row.get("o200kMapped")),
        captured_sha256=sha if isinstance(sha, str) else None,
        error=None if "error" not in row else ("" if err is None else str(err)),
    )


def parse_divergence(data: Any) -> DivergenceRun:
    """Shape-check a divergence run; InputError on the wrong shape."""
    if not isinstance(data, dict) or not isinstance(data.get("servers"), dict):
        raise InputError("claude divergence: malformed data (expected an object with 'servers')")
    rows = tuple(
        _row(str(name), row)
        for name, row in sorted(data["servers"].items())
        if isinstance(row, dict)
    )
    method = data.get("method")
    model = data.get("model")
    measured = data.get("measuredAt")
    return DivergenceRun(
        method=method if isinstance(method, str) else DIVERGENCE_METHOD,
        model=model if isinstance(model, str) else "unknown",
        measured_at=measured if isinstance(measured, str) else "unknown",
        rows=rows,
    )


def divergence_is_current(row: Any, m: Measurement | None) -> bool:
    """Whether one raw ``divergence.json`` row applies to measurement ``m`` (the rule above)."""
    if not isinstance(row, dict) or m is None:
        return False
    return _row("", row).current_for(m.canonical_sha256)
