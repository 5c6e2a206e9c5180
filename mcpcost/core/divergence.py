"""Divergence runs: what a server's tools add to a vendor's request, counted by the vendor.

Two columns, each its own versioned method and file (spec/METHODOLOGY.md section 13):

- Claude, ``tools-delta/v1``, ``results/divergence.json``: the capture projected onto Anthropic
  tool definitions (``name``, ``description``, ``input_schema``), counted by
  ``POST /v1/messages/count_tokens`` minus the same request without tools (``claudeDelta``). The
  file has the reference project's shape field for field, so each project reads the other's.
- OpenAI, ``responses-tools-delta/v1``, ``results/divergence-openai.json``: the capture projected
  onto Responses function tools, counted by ``POST /v1/responses/input_tokens`` minus the request
  without tools (``openaiDelta``). Same shape, its own delta key.

This module is the one reader and writer of those files and the one rule for when a row may be
used. A row is current when the run did not flag it (no ``error`` key), it carries a numeric delta,
and it names the capture it was computed from (``capturedSha256``). It applies to a measurement
only when that hash equals the measurement's ``canonicalSha256``: the join is by bytes, never by
name. Anything else is stale (or errored) and is never shown or used as current.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from mcpcost.core.jsonvalue import JSONValue, stringify, stringify_pretty
from mcpcost.core.model import Measurement
from mcpcost.errors import InputError

DIVERGENCE_METHOD = "tools-delta/v1"
OPENAI_METHOD = "responses-tools-delta/v1"
# the smallest legal request: one user message of one character, so the baseline is framing
PROBE_TEXT = "."
EMPTY_SCHEMA: dict[str, JSONValue] = {"type": "object", "properties": {}}
ROW_ERROR_LIMIT = 200


class CountApi(StrEnum):
    """A vendor's token-counting endpoint a divergence column is measured against."""

    ANTHROPIC = "anthropic"
    OPENAI = "openai"


@dataclass(frozen=True, slots=True, kw_only=True)
class Column:
    """One divergence column: its method, file, delta key and pinned default model."""

    api: CountApi
    method: str
    rel: str  # the file, relative to the output root
    delta_key: str
    vendor: str  # "Claude" / "OpenAI", as pages and reports name the tokens
    default_model: str


CLAUDE = Column(
    api=CountApi.ANTHROPIC,
    method=DIVERGENCE_METHOD,
    rel="results/divergence.json",
    delta_key="claudeDelta",
    vendor="Claude",
    default_model="claude-opus-5",  # the model of the reference's published run
)
OPENAI = Column(
    api=CountApi.OPENAI,
    method=OPENAI_METHOD,
    rel="results/divergence-openai.json",
    delta_key="openaiDelta",
    vendor="OpenAI",
    default_model="gpt-5.5",
)
COLUMNS = {CountApi.ANTHROPIC: CLAUDE, CountApi.OPENAI: OPENAI}


def column_for_method(method: str) -> Column:
    """The column a run's ``method`` names (the Claude column for an unknown one, as the
    reference reads a file without a method)."""
    return OPENAI if method == OPENAI_METHOD else CLAUDE


# -- projections ------------------------------------------------------------------------------
def _named(capture: Any) -> Iterable[dict[str, Any]]:
    """Tools with a non-empty string name, in capture order. A nameless tool is dropped, never
    renamed: a made-up name would change the count being compared."""
    for tool in capture if isinstance(capture, list) else ():
        if isinstance(tool, dict) and isinstance(tool.get("name"), str) and tool["name"]:
            yield tool


def _schema(tool: dict[str, Any]) -> JSONValue:
    schema = tool.get("inputSchema")
    return EMPTY_SCHEMA if schema is None else schema


def anthropic_tools(capture: Any) -> list[JSONValue]:
    """The capture as Anthropic tool definitions: ``name``, ``description`` (a string, else
    ``""``) and ``input_schema`` (``inputSchema``, else the empty object schema). Nothing else
    of a tool (title, annotations, outputSchema, icons, _meta) has a place in that request."""
    return [
        {
            "name": t["name"],
            "description": d if isinstance(d := t.get("description"), str) else "",
            "input_schema": _schema(t),
        }
        for t in _named(capture)
    ]


def openai_tools(capture: Any) -> list[JSONValue]:
    """The capture as Responses function tools: ``type``, ``name``, ``description`` (only when
    the tool has a string one), ``parameters`` (``inputSchema``, else the empty object schema)
    and ``strict: false``, so the schema is sent as served rather than held to strict mode."""
    out: list[JSONValue] = []
    for t in _named(capture):
        tool: dict[str, JSONValue] = {"type": "function", "name": t["name"]}
        if isinstance(t.get("description"), str):
            tool["description"] = t["description"]
        tool["parameters"] = _schema(t)
        tool["strict"] = False
        out.append(tool)
    return out


def project(api: CountApi, capture: Any) -> list[JSONValue]:
    """The capture as the tools array of ``api``'s request."""
    return anthropic_tools(capture) if api is CountApi.ANTHROPIC else openai_tools(capture)


def probe_tool(api: CountApi) -> JSONValue:
    """One minimal tool; its delta bounds the fixed overhead every tools request pays once."""
    capture = [{"name": "probe", "description": "x", "inputSchema": EMPTY_SCHEMA}]
    return project(api, capture)[0]


def projection_text(api: CountApi, capture: Any) -> str:
    """``JSON.stringify`` of the projection: what ``o200kMapped`` counts."""
    return stringify(project(api, capture))


# -- rows and runs -----------------------------------------------------------------------------
class RowState(StrEnum):
    CURRENT = "current"  # computed from the capture on disk
    STALE = "stale"  # computed from another capture (or the server has no number now)
    ERROR = "error"  # the count endpoint rejected the projection


@dataclass(frozen=True, slots=True, kw_only=True)
class DivergenceRow:
    name: str
    delta: int | None  # vendor tokens the tools add to a request (claudeDelta / openaiDelta)
    o200k_full: int | None
    o200k_mapped: int | None
    captured_sha256: str | None
    error: str | None  # set when the run flagged the row (an empty string for a bare flag)
    tool_count: int | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)  # fields we do not know, kept

    @property
    def claude_delta(self) -> int | None:
        """The delta under the name the Claude column's file gives it."""
        return self.delta

    @property
    def current(self) -> bool:
        return self.error is None and self.delta is not None and bool(self.captured_sha256)

    def current_for(self, canonical_sha256: str | None) -> bool:
        """Current, and computed from the capture with this hash."""
        return (
            self.current
            and canonical_sha256 is not None
            and self.captured_sha256 == canonical_sha256
        )

    def state_for(self, measurement: Measurement | None) -> RowState:
        """The row against what is on disk now (``measurement``: None when there is none)."""
        if self.error is not None or self.delta is None:
            return RowState.ERROR
        ok = measurement is not None and measurement.has_number
        sha = measurement.canonical_sha256 if ok and measurement else None
        return RowState.CURRENT if self.current_for(sha) else RowState.STALE

    def to_dict(self, delta_key: str) -> dict[str, Any]:
        """The row object in the reference's key order, then any fields it was read with."""
        out: dict[str, Any] = {
            "o200kFull": self.o200k_full,
            "o200kMapped": self.o200k_mapped,
            delta_key: self.delta,
            "toolCount": self.tool_count,
            "capturedSha256": self.captured_sha256,
        }
        for key in ("o200kFull", "o200kMapped", "toolCount", "capturedSha256"):
            if out[key] is None:
                del out[key]
        if out[delta_key] is None:
            del out[delta_key]
        if self.error is not None:
            out["error"] = self.error
        for key, value in self.extras.items():
            out.setdefault(key, value)
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class DivergenceRun:
    method: str
    model: str
    measured_at: str
    rows: tuple[DivergenceRow, ...]
    baseline_tokens: int | None = None
    probe_delta: int | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)

    @property
    def column(self) -> Column:
        return column_for_method(self.method)

    def by_hash(self) -> dict[str, DivergenceRow]:
        """Current rows keyed by capture hash."""
        return {r.captured_sha256: r for r in self.rows if r.current and r.captured_sha256}

    def by_name(self) -> dict[str, DivergenceRow]:
        return {r.name: r for r in self.rows}

    def current_ratios(self) -> list[float]:
        """Vendor request tokens per o200k wire token, one per current row with both counts."""
        return [
            r.delta / r.o200k_full
            for r in self.rows
            if r.current and r.delta is not None and r.o200k_full
        ]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "method": self.method,
            "model": self.model,
            "measuredAt": self.measured_at,
        }
        if self.baseline_tokens is not None:
            out["baselineTokens"] = self.baseline_tokens
        if self.probe_delta is not None:
            out["probeDelta"] = self.probe_delta
        key = self.column.delta_key
        out["servers"] = {r.name: r.to_dict(key) for r in sorted(self.rows, key=_name_order)}
        for k, value in self.extras.items():
            out.setdefault(k, value)
        return out


def render_divergence(run: DivergenceRun) -> str:
    """The file's text as the reference writes it: two-space JSON and a trailing newline."""
    return stringify_pretty(run.to_dict()) + "\n"


# ICU's root collation (what the reference's ``localeCompare`` sorts names with) puts ASCII
# punctuation and symbols before digits and digits before letters, compares letters without case
# first and puts lower case first on a tie. This key reproduces that order for ASCII names.
_ICU_PUNCTUATION = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"


def _name_order(row: DivergenceRow) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...], str]:
    primary: list[tuple[int, int]] = []
    tertiary: list[int] = []
    for ch in row.name:
        if ch.isascii() and ch.isalpha():
            primary.append((3, ord(ch.lower())))
            tertiary.append(0 if ch.islower() else 1)
        elif ch.isascii() and ch.isdigit():
            primary.append((2, ord(ch)))
        elif ch in _ICU_PUNCTUATION:
            primary.append((1, _ICU_PUNCTUATION.index(ch)))
        else:
            primary.append((4, ord(ch)))
    return tuple(primary), tuple(tertiary), row.name


def _num(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value)


_ROW_KEYS = {"o200kFull", "o200kMapped", "toolCount", "capturedSha256", "error"}
_RUN_KEYS = {"method", "model", "measuredAt", "baselineTokens", "probeDelta", "servers"}


def _row(name: str, row: dict[str, Any], delta_key: str) -> DivergenceRow:
    sha = row.get("capturedSha256")
    err = row.get("error")
    return DivergenceRow(
        name=name,
        delta=_num(row.get(delta_key)),
        o200k_full=_num(row.get("o200kFull")),
        o200k_mapped=_num(row.get("o200kMapped")),
        captured_sha256=sha if isinstance(sha, str) else None,
        error=None if "error" not in row else ("" if err is None else str(err)),
        tool_count=_num(row.get("toolCount")),
        extras={k: v for k, v in row.items() if k not in _ROW_KEYS and k != delta_key},
    )


def parse_divergence(data: Any) -> DivergenceRun:
    """Shape-check a divergence run; InputError on the wrong shape. Rows keep the file's order
    (the writer sorts); fields this reader does not know are kept and written back."""
    if not isinstance(data, dict) or not isinstance(data.get("servers"), dict):
        raise InputError("divergence run: malformed data (expected an object with 'servers')")
    method = data.get("method")
    method = method if isinstance(method, str) else DIVERGENCE_METHOD
    key = column_for_method(method).delta_key
    rows = tuple(
        _row(str(name), row, key) for name, row in data["servers"].items() if isinstance(row, dict)
    )
    model = data.get("model")
    measured = data.get("measuredAt")
    return DivergenceRun(
        method=method,
        model=model if isinstance(model, str) else "unknown",
        measured_at=measured if isinstance(measured, str) else "unknown",
        rows=rows,
        baseline_tokens=_num(data.get("baselineTokens")),
        probe_delta=_num(data.get("probeDelta")),
        extras={k: v for k, v in data.items() if k not in _RUN_KEYS},
    )


def divergence_is_current(row: Any, m: Measurement | None) -> bool:
    """Whether one raw ``divergence.json`` row applies to measurement ``m`` (the rule above)."""
    if not isinstance(row, dict) or m is None:
        return False
    return _row("", row, CLAUDE.delta_key).current_for(m.canonical_sha256)
