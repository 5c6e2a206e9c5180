"""A chars-to-tokens estimator calibrated on the measured set. Always an estimate.

The fit is least squares through the origin, ``tokens ≈ k × canonical UTF-8 bytes``: one
coefficient, no intercept (an intercept makes tiny servers negative). Error statistics are the
estimator's own residuals over the set it was fitted on: mean absolute error (tokens), mean
absolute percentage error, the 90th percentile absolute error (tokens and percent) and n.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from mcpcost.core.canonical import canonicalize
from mcpcost.core.model import Measurement
from mcpcost.core.record import Record

LABEL = "calibrated-estimate"
METHOD = "least squares through the origin on canonical UTF-8 byte length (o200k_base truth)"


class Estimator(Record, frozen=True):
    """``tokens ≈ round(coefficient × bytes)`` with its calibration statistics."""

    coefficient: float
    n: int
    mae: float
    mape: float
    p90_abs_error: float
    p90_abs_pct_error: float

    def estimate(self, byte_length: int) -> int:
        return round(self.coefficient * byte_length)

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": LABEL,
            "method": METHOD,
            "encoding": "o200k_base",
            "formula": f"tokens = round(bytes × {self.coefficient:.5f})",
            "coefficient": round(self.coefficient, 6),
            "n": self.n,
            "maeTokens": round(self.mae, 2),
            "mapePercent": round(self.mape, 2),
            "p90AbsErrorTokens": round(self.p90_abs_error, 2),
            "p90AbsErrorPercent": round(self.p90_abs_pct_error, 2),
        }


def _percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..1)."""
    ordered = sorted(values)
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[rank - 1]


def fit(samples: Sequence[tuple[int, int]]) -> Estimator | None:
    """Fit on (byte length, tokens) pairs; None when there is nothing to fit."""
    usable = [(b, t) for b, t in samples if b > 0 and t > 0]
    if not usable:
        return None
    k = sum(b * t for b, t in usable) / sum(b * b for b, _ in usable)
    abs_err = [abs(round(k * b) - t) for b, t in usable]
    pct_err = [100.0 * e / t for e, (_, t) in zip(abs_err, usable, strict=True)]
    return Estimator(
        coefficient=k,
        n=len(usable),
        mae=sum(abs_err) / len(abs_err),
        mape=sum(pct_err) / len(pct_err),
        p90_abs_error=float(_percentile(abs_err, 0.9)),
        p90_abs_pct_error=_percentile(pct_err, 0.9),
    )


def samples_from(measurements: Mapping[str, Measurement]) -> list[tuple[int, int]]:
    """(canonical byte length, tokens) of every measured server with a capture, in name order."""
    out: list[tuple[int, int]] = []
    for name in sorted(measurements):
        m = measurements[name]
        if m.has_number and isinstance(m.raw_tools_capture, list) and m.total_tokens is not None:
            out.append((len(canonicalize(m.raw_tools_capture).data), m.total_tokens))
    return out
