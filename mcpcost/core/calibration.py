"""A vendor's request tokens estimated from o200k tokens, calibrated on a divergence run.

The model (spec/METHODOLOGY.md section 14): a tools request pays a fixed overhead once (bounded
by the run's ``probeDelta``) plus tokens proportional to the projected tools. On a run's usable
rows the factor is fitted by least squares through the origin,

    delta - probeDelta  ~  factor x o200kMapped,

and each row's error is that of the proportional part, ``|factor x o200kMapped - (delta -
probeDelta)| / (delta - probeDelta)``: a bound on it bounds the error of any sum of such parts, and
of a single server's estimate (overhead included) a fortiori. The fit publishes the factor, the mean and maximum relative error and the rows
it came from (``results/calibration.json``).

``estimate_request`` is the one estimate for a set of measurements (one client session): the
fixed overhead once, each server's measured part where a row was computed from its exact
capture (join by ``canonicalSha256``), ``factor x o200k(projection)`` for the rest, and a band of
the fit's maximum relative error over the estimated part. Pure: values in, values out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcpcost.core.divergence import (
    COLUMNS,
    Column,
    CountApi,
    DivergenceRun,
    column_for_method,
    projection_text,
)
from mcpcost.core.model import Measurement
from mcpcost.core.tokenizer import Tokenizer, get_tokenizer
from mcpcost.errors import InputError

CALIBRATION_REL = "results/calibration.json"
FIT = "least squares through the origin: delta - probeDelta ~ factor x o200kMapped"


@dataclass(frozen=True, slots=True, kw_only=True)
class FitRow:
    """One row a fit came from, with the fit's estimate of it."""

    name: str
    captured_sha256: str
    o200k_mapped: int
    delta: int
    estimate: int
    relative_error: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "capturedSha256": self.captured_sha256,
            "o200kMapped": self.o200k_mapped,
            "delta": self.delta,
            "estimate": self.estimate,
            "relativeError": round(self.relative_error, 4),
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Calibration:
    """A fitted factor for one column and model, with its error statistics and rows."""

    api: CountApi
    method: str
    model: str
    measured_at: str  # the divergence run's date
    fixed_tokens: int  # the run's probeDelta: the overhead paid once per request
    factor: float
    mean_relative_error: float
    max_relative_error: float
    rows: tuple[FitRow, ...]

    @property
    def column(self) -> Column:
        return COLUMNS[self.api]

    @property
    def n(self) -> int:
        return len(self.rows)

    @property
    def band_pct(self) -> int:
        """The band an estimate carries: the maximum relative error, whole percent, rounded up."""
        return math.ceil(round(self.max_relative_error * 100, 6))

    def to_dict(self) -> dict[str, Any]:
        return {
            "api": str(self.api),
            "method": self.method,
            "model": self.model,
            "measuredAt": self.measured_at,
            "fit": FIT,
            "encoding": "o200k_base",
            "fixedTokens": self.fixed_tokens,
            "factor": round(self.factor, 4),
            "n": self.n,
            "meanRelativeError": round(self.mean_relative_error, 4),
            "maxRelativeError": round(self.max_relative_error, 4),
            "bandPct": self.band_pct,
            "rows": [r.to_dict() for r in self.rows],
        }


def fit_calibration(
    run: DivergenceRun, current: Mapping[str, str | None] | None = None
) -> Calibration | None:
    """Fit ``run``'s usable rows: no error, a delta above the fixed overhead, a positive
    ``o200kMapped`` and a hash. With ``current`` (server name -> the canonicalSha256 on disk)
    only rows computed from those captures count. None when no row is usable or the run has no
    ``probeDelta``."""
    fixed = run.probe_delta
    if fixed is None:
        return None
    usable = [
        r
        for r in run.rows
        if r.current
        and r.delta is not None
        and r.delta > fixed
        and r.o200k_mapped
        and r.o200k_mapped > 0
        and (current is None or r.current_for(current.get(r.name)))
    ]
    if not usable:
        return None
    xs = [float(r.o200k_mapped or 0) for r in usable]
    ys = [float((r.delta or 0) - fixed) for r in usable]
    factor = sum(x * y for x, y in zip(xs, ys, strict=True)) / sum(x * x for x in xs)
    rows: list[FitRow] = []
    for r in sorted(usable, key=lambda r: r.name):
        delta = r.delta or 0
        mapped = r.o200k_mapped or 0
        share = factor * mapped
        rows.append(
            FitRow(
                name=r.name,
                captured_sha256=r.captured_sha256 or "",
                o200k_mapped=mapped,
                delta=delta,
                estimate=round(fixed + share),
                relative_error=abs(share - (delta - fixed)) / (delta - fixed),
            )
        )
    errors = [r.relative_error for r in rows]
    column = column_for_method(run.method)
    return Calibration(
        api=column.api,
        method=run.method,
        model=run.model,
        measured_at=run.measured_at,
        fixed_tokens=fixed,
        factor=factor,
        mean_relative_error=sum(errors) / len(errors),
        max_relative_error=max(errors),
        rows=tuple(rows),
    )


def calibration_document(fits: Sequence[Calibration]) -> dict[str, Any]:
    """``results/calibration.json``: one entry per column that has a fit."""
    return {"calibrations": [c.to_dict() for c in fits]}


def _float(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def parse_calibrations(data: Any) -> list[Calibration]:
    """Read ``results/calibration.json``; InputError on the wrong shape, entries of an unknown
    column or with missing numbers are skipped."""
    if not isinstance(data, dict) or not isinstance(data.get("calibrations"), list):
        raise InputError("calibration: malformed data (expected an object with 'calibrations')")
    out: list[Calibration] = []
    for entry in data["calibrations"]:
        if not isinstance(entry, dict):
            continue
        try:
            api = CountApi(str(entry.get("api")))
        except ValueError:
            continue
        factor, fixed = _float(entry.get("factor")), _float(entry.get("fixedTokens"))
        mean, worst = _float(entry.get("meanRelativeError")), _float(entry.get("maxRelativeError"))
        if factor is None or fixed is None or mean is None or worst is None:
            continue
        rows = tuple(
            FitRow(
                name=str(r.get("name", "")),
                captured_sha256=str(r.get("capturedSha256", "")),
                o200k_mapped=int(_float(r.get("o200kMapped")) or 0),
                delta=int(_float(r.get("delta")) or 0),
                estimate=int(_float(r.get("estimate")) or 0),
                relative_error=_float(r.get("relativeError")) or 0.0,
            )
            for r in entry.get("rows") or []
            if isinstance(r, dict)
        )
        out.append(
            Calibration(
                api=api,
                method=str(entry.get("method", COLUMNS[api].method)),
                model=str(entry.get("model", "unknown")),
                measured_at=str(entry.get("measuredAt", "unknown")),
                fixed_tokens=int(fixed),
                factor=factor,
                mean_relative_error=mean,
                max_relative_error=worst,
                rows=rows,
            )
        )
    return out


# -- the estimate for a session ----------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class ServerPart:
    """One server's share of a request: measured (``exact``) or estimated from o200k."""

    server: str
    tokens: int  # the server's tools without the fixed overhead
    exact: bool
    o200k_mapped: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestEstimate:
    """What a session's tools add to one request of a vendor, exact or estimated."""

    api: CountApi
    model: str
    measured_at: str
    tokens: int
    exact: bool  # every server's part was measured from its exact capture
    band_tokens: int  # +- around ``tokens``; 0 when exact
    band_pct: int  # +- percent of ``tokens``, rounded up; 0 when exact
    fixed_tokens: int
    parts: tuple[ServerPart, ...]

    @property
    def vendor(self) -> str:
        return COLUMNS[self.api].vendor

    def describe(self) -> str:
        """One line, always labelled: exact (model, date) or an estimate with its band."""
        if self.exact:
            return (
                f"{self.tokens:,} {self.vendor} tokens (counted by {self.model} on "
                f"{self.measured_at}, this exact capture)"
            )
        return (
            f"about {self.tokens:,} {self.vendor} tokens (estimate, ±{self.band_pct}%; "
            f"{self.model} calibration of {self.measured_at})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "api": str(self.api),
            "model": self.model,
            "measuredAt": self.measured_at,
            "tokens": self.tokens,
            "exact": self.exact,
            "bandTokens": self.band_tokens,
            "bandPct": self.band_pct,
            "fixedTokens": self.fixed_tokens,
            "servers": [
                {
                    "server": p.server,
                    "tokens": p.tokens,
                    "exact": p.exact,
                    "o200kMapped": p.o200k_mapped,
                }
                for p in self.parts
            ],
        }


def estimate_request(
    measurements: Sequence[Measurement],
    calibration: Calibration | None,
    run: DivergenceRun | None = None,
    *,
    tokenizer: Tokenizer | None = None,
) -> RequestEstimate | None:
    """The tokens ``measurements``' tools add to one request (see the module docstring).

    Exact parts come from the rows of ``run`` (when it is of the calibration's method and model)
    and from the calibration's own rows, joined by capture hash. Measurements without a number
    are left out (the caller says the figure is a floor). None when nothing has a number, or a
    part needs an estimate and there is no calibration.
    """
    numbered = [m for m in measurements if m.has_number and isinstance(m.raw_tools_capture, list)]
    if not numbered:
        return None
    if calibration is None and run is None:
        return None
    api = calibration.api if calibration is not None else run.column.api if run else None
    assert api is not None
    fixed = calibration.fixed_tokens if calibration is not None else (run.probe_delta if run else 0)
    exact: dict[str, int] = {}
    if calibration is not None:
        exact.update({r.captured_sha256: r.delta for r in calibration.rows})
    if (
        run is not None
        and run.probe_delta is not None
        and (
            calibration is None
            or (run.method == calibration.method and run.model == calibration.model)
        )
    ):
        fixed = run.probe_delta if calibration is None else fixed
        exact.update({sha: r.delta for sha, r in run.by_hash().items() if r.delta is not None})
    tk = tokenizer or get_tokenizer()
    parts: list[ServerPart] = []
    estimated = 0.0
    for m in numbered:
        mapped = tk.count(projection_text(api, m.raw_tools_capture))
        sha = m.canonical_sha256
        if sha is not None and sha in exact:
            parts.append(
                ServerPart(
                    server=m.server_name,
                    tokens=exact[sha] - (fixed or 0),
                    exact=True,
                    o200k_mapped=mapped,
                )
            )
            continue
        if calibration is None:
            return None
        share = calibration.factor * mapped
        estimated += share
        parts.append(
            ServerPart(server=m.server_name, tokens=round(share), exact=False, o200k_mapped=mapped)
        )
    total = (fixed or 0) + sum(p.tokens for p in parts)
    band = math.ceil(estimated * calibration.max_relative_error) if calibration else 0
    all_exact = all(p.exact for p in parts)
    source = calibration if calibration is not None else run
    assert source is not None
    return RequestEstimate(
        api=api,
        model=source.model,
        measured_at=source.measured_at,
        tokens=total,
        exact=all_exact,
        band_tokens=0 if all_exact else band,
        band_pct=0 if all_exact or total <= 0 else math.ceil(100 * band / total),
        fixed_tokens=fixed or 0,
        parts=tuple(parts),
    )
