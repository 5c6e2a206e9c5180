"""A catalog entry's popularity figure, always with its unit.

The reference catalog kept one bare ``metric`` number whose unit depended on the entry (npm
weekly downloads, PyPI weekly downloads, GitHub stars, estimated visitors), so its figures could
not be compared. Here every figure carries one of ``UNITS``; figures in different units are never
ranked against each other (``Metric`` ordering raises ``IncomparableUnits``), and pages publish
the unit next to the number.

Accepted input: ``metric: {value: N, unit: U}``, or the reference's legacy form, a bare number
whose ``metricSource`` text names the unit (a pypistats/PyPI source, an npmjs/npm source, or
one mentioning stars). A bare number whose source names none of them is rejected.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpcost.errors import McpcostError

NPM_WEEKLY = "npm-weekly-downloads"
PYPI_WEEKLY = "pypi-weekly-downloads"
GITHUB_STARS = "github-stars"
UNITS = (NPM_WEEKLY, PYPI_WEEKLY, GITHUB_STARS)
MAPPING_KEYS = ("value", "unit")


class IncomparableUnits(McpcostError, TypeError):
    """Two figures in different units were compared (a ``TypeError``, as ordering errors are)."""


@dataclass(frozen=True, slots=True)
class Metric:
    """A non-negative popularity figure in one of ``UNITS``."""

    value: float
    unit: str

    def __lt__(self, other: Metric) -> bool:
        if self.unit != other.unit:
            raise IncomparableUnits(f"cannot compare {self.unit} with {other.unit}")
        return self.value < other.value

    def value_text(self) -> str:
        """The value as written: integers without a decimal point."""
        v = self.value
        return str(int(v)) if float(v).is_integer() else repr(v)


def unit_from_source(source: str | None) -> str | None:
    """The unit a legacy ``metricSource`` names, or None when it names none we know."""
    if not source:
        return None
    text = source.lower()
    if "pypistats" in text or "pypi" in text:
        return PYPI_WEEKLY
    if "npmjs" in text or "npm" in text:
        return NPM_WEEKLY
    if "star" in text:
        return GITHUB_STARS
    return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return float(value)


def parse_metric(raw: Any, source: str | None) -> Metric | str:
    """A ``Metric`` from catalog input, or the problem (text after the field name) as a string."""
    if isinstance(raw, dict):
        unknown = [k for k in raw if k not in MAPPING_KEYS]
        if unknown:
            return f"has unknown key(s) {', '.join(repr(k) for k in unknown)}; use value and unit"
        value = _number(raw.get("value"))
        if value is None:
            return "value must be a non-negative number"
        unit = raw.get("unit")
        if unit not in UNITS:
            return f"unit must be one of {', '.join(UNITS)}, got {unit!r}"
        return Metric(value, str(unit))
    value = _number(raw)
    if value is None:
        return "must be {value, unit} or a non-negative number"
    unit = unit_from_source(source)
    if unit is None:
        return (
            "is a bare number whose metricSource names no known unit; write "
            f"metric: {{value: N, unit: U}} with U one of {', '.join(UNITS)}"
        )
    return Metric(value, unit)
