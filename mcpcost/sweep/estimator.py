"""A chars-to-tokens estimator calibrated on the measured set. Always an estimate.

The fit is least squares through the origin, ``tokens ≈ k × canonical UTF-8 bytes``: one
coefficient, no intercept (an intercept makes tiny servers negative). Error statistics are the
estimator's own residuals over the set it was fitted on: mean absolute error (tokens), mean
absolute percentage error, the 90th percentile absolute error (tokens and percent) and n. Those
flatter the fit, so it also publishes the held-out error: each server estimated by the
coefficient fitted on all the others (leave-one-out), the error a server outside the set should
expect. With one server there is nothing to hold out and those figures are None.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcpcost.core.canonical import canonicalize
from mcpcost.core.model import Measurement

LABEL = "calibrated-estimate"
METHOD = "least squares through the origin on canonical UTF-8 byte length (o200k_base truth)"


@dataclass(frozen=True, slots=True)
class Estimator:
    """``tokens ≈ round(coefficient × bytes)`` with its calibration statistics."""

    coefficient: float
    n: int
    mae: float
    mape: float
    p90_abs_error: float
    p90_abs_pct_error: float
    held_out_mae: float | None = None
    held_out_mape: float | None = None
    held_out_p90_abs_pct_error: float | None = None
    held_out_max_abs_pct_error: float | None = None

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
            "heldOut": None
            if self.held_out_mae is None
            else {
                "method": "leave-one-out: each server estimated by the fit on all the others",
                "maeTokens": round(self.held_out_mae, 2),
                "mapePercent": round(self.held_out_mape or 0.0, 2),
                "p90AbsErrorPercent": round(self.held_out_p90_abs_pct_error or 0.0, 2),
                "maxAbsErrorPercent": round(self.held_out_max_abs_pct_error or 0.0, 2),
            },
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
    sbt = sum(b * t for b, t in usable)
    sbb = sum(b * b for b, _ in usable)
    k = sbt / sbb
    abs_err = [abs(round(k * b) - t) for b, t in usable]
    pct_err = [100.0 * e / t for e, (_, t) in zip(abs_err, usable, strict=True)]
    held: dict[str, float | None] = {}
    if len(usable) > 1:
        # the fit without sample i: its sums less that sample's terms
        out_err = [abs(round((sbt - b * t) / (sbb - b * b) * b) - t) for b, t in usable]
        out_pct = [100.0 * e / t for e, (_, t) in zip(out_err, usable, strict=True)]
        held = {
            "held_out_mae": sum(out_err) / len(out_err),
            "held_out_mape": sum(out_pct) / len(out_pct),
            "held_out_p90_abs_pct_error": _percentile(out_pct, 0.9),
            "held_out_max_abs_pct_error": max(out_pct),
        }
    return Estimator(
        coefficient=k,
        n=len(usable),
        mae=sum(abs_err) / len(abs_err),
        mape=sum(pct_err) / len(pct_err),
        p90_abs_error=float(_percentile(abs_err, 0.9)),
        p90_abs_pct_error=_percentile(pct_err, 0.9),
        **held,
    )


def samples_from(measurements: Mapping[str, Measurement]) -> list[tuple[int, int]]:
    """(canonical byte length, tokens) of every measured server with a capture, in name order."""
    out: list[tuple[int, int]] = []
    for name in sorted(measurements):
        m = measurements[name]
        if m.has_number and isinstance(m.raw_tools_capture, list) and m.total_tokens is not None:
            out.append((len(canonicalize(m.raw_tools_capture).data), m.total_tokens))
    return out
