"""Fixes with exact savings: each one is a transformed copy of the server's tools capture, and
its saving is the o200k_base count of the capture minus the count of that copy (methodology
section 1), never an estimate. Pure: a capture in, ``Fix`` values out.

- ``shared-defs``: a subschema written twice or more in one tool's input schema moves to the
  schema's ``$defs`` once, each use becoming ``{"$ref": "#/$defs/dN"}``.
- ``large-enum``: an ``enum`` of more than ``ENUM_LIMIT`` values is left out (the server checks
  the value itself and says so in its error).
- ``output-schema``: every ``outputSchema`` left out. The saving is on the wire; per client it is
  what the client lens (``audit.lens``) counts up front with and without it: 0 for a client on
  record projecting definitions onto an API shape that drops it.
- ``client-truncation``: descriptions longer than a client's documented cut, cut there (the
  client's model never sees the rest).
- ``above-p90``: descriptions longer than the published population's 90th percentile
  (``POPULATION_P90``) cut to the longest start that is no longer than it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import partial
from typing import Any

from mcpcost.audit.lens import LensServer
from mcpcost.audit.lens_sessions import server_views
from mcpcost.configs.clients.registry import KNOWN_CLIENTS, presentation_of
from mcpcost.core.jsonvalue import JSONValue, parse_json, stringify
from mcpcost.core.measure import measure_tools
from mcpcost.core.tokenizer import count_tokens

ENUM_LIMIT = 25  # values; past this an enum is offered as a fix
MIN_SHARED_CHARS = 40  # a repeated subschema shorter than this is not worth a $ref


@dataclass(frozen=True, slots=True, kw_only=True)
class PopulationFigure:
    """A figure of the published dataset (``results/``), with what it was computed from."""

    description_tokens_p90: int  # nearest rank over every tool's descriptionTokens
    tools: int
    servers: int
    measured_through: str  # the latest measuredAt among them (YYYY-MM-DD)


# results/*/measurement.json with a number (measured or dynamic); a unit test recomputes it
POPULATION_P90 = PopulationFigure(
    description_tokens_p90=318, tools=387, servers=31, measured_through="2026-12-02"
)


class FixKind(StrEnum):
    SHARED_DEFS = "shared-defs"
    LARGE_ENUM = "large-enum"
    OUTPUT_SCHEMA = "output-schema"
    CLIENT_TRUNCATION = "client-truncation"
    ABOVE_P90 = "above-p90"


@dataclass(frozen=True, slots=True, kw_only=True)
class Fix:
    """One fix: the tools it touches, the capture's tokens before and after, and the copy of the
    capture it was counted on (``capture``). ``per_client``: (client label, tokens saved up
    front) where the saving differs by client."""

    kind: FixKind
    tools: tuple[str, ...]
    before: int
    after: int
    detail: str
    capture: tuple[JSONValue, ...]
    per_client: tuple[tuple[str, int], ...] = ()

    @property
    def saving(self) -> int:
        return self.before - self.after

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "tools": list(self.tools),
            "tokensBefore": self.before,
            "tokensAfter": self.after,
            "saving": self.saving,
            "detail": self.detail,
            "perClient": [{"client": c, "saving": n} for c, n in self.per_client],
        }


def _copy(capture: Sequence[JSONValue]) -> list[Any]:
    copied = parse_json(stringify(list(capture)))
    assert isinstance(copied, list)
    return copied


def _name(tool: Any) -> str:
    name = tool.get("name") if isinstance(tool, dict) else None
    return name if isinstance(name, str) else "(unnamed)"


_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_ONE = (
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
)
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")


def _subschemas(schema: Any, visit: Callable[[dict[str, Any], str, Any], None]) -> None:
    """Call ``visit(parent, key, child)`` for every subschema below ``schema`` (for a list
    member, ``parent`` is the list's owner and ``key`` ``name[i]``), depth first."""
    if not isinstance(schema, dict):
        return
    for key, value in list(schema.items()):
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            for k, child in list(value.items()):
                if isinstance(child, dict):
                    _subschemas(child, visit)
                    visit(value, k, child)
        elif key in _SCHEMA_ONE and isinstance(value, dict):
            _subschemas(value, visit)
            visit(schema, key, value)
        elif key in (*_SCHEMA_LISTS, "items") and isinstance(value, list):
            for i, child in enumerate(value):
                if isinstance(child, dict):
                    _subschemas(child, visit)
                    visit(value, str(i), child)  # type: ignore[arg-type]


def _hoist(schema: dict[str, Any]) -> bool:
    """Move the largest repeated subschema into ``$defs`` once; True when one moved."""
    seen: dict[str, list[tuple[Any, str]]] = {}

    def visit(parent: Any, key: str, child: Any) -> None:
        if parent is schema.get("$defs"):
            return
        seen.setdefault(stringify(child), []).append((parent, key))

    _subschemas(schema, visit)
    repeated = [
        (text, places)
        for text, places in seen.items()
        if len(places) > 1 and len(text) >= MIN_SHARED_CHARS
    ]
    if not repeated:
        return False
    text, places = max(repeated, key=lambda r: (len(r[0]) * len(r[1]), r[0]))
    defs = schema.setdefault("$defs", {})
    if not isinstance(defs, dict):
        return False
    n = 1
    while f"d{n}" in defs:
        n += 1
    defs[f"d{n}"] = parse_json(text)
    for parent, key in places:
        ref = {"$ref": f"#/$defs/d{n}"}
        if isinstance(parent, list):
            parent[int(key)] = ref
        else:
            parent[key] = ref
    return True


def _fix(
    kind: FixKind, capture: Sequence[JSONValue], copy: list[Any], tools: list[str], detail: str
) -> Fix | None:
    if not tools:
        return None
    before = measure_tools(list(capture), field_split=False).total_tokens
    after = measure_tools(copy, field_split=False).total_tokens
    if after >= before:
        return None
    return Fix(
        kind=kind,
        tools=tuple(dict.fromkeys(tools)),
        before=before,
        after=after,
        detail=detail,
        capture=tuple(copy),
    )


def shared_defs(capture: Sequence[JSONValue]) -> Fix | None:
    copy = _copy(capture)
    touched: list[str] = []
    for tool in copy:
        schema = tool.get("inputSchema") if isinstance(tool, dict) else None
        if not isinstance(schema, dict):
            continue
        trial = parse_json(stringify(schema))
        assert isinstance(trial, dict)
        moved = 0
        while moved < 50 and _hoist(trial):
            moved += 1
        if moved and count_tokens(stringify(trial)) < count_tokens(stringify(schema)):
            tool["inputSchema"] = trial
            touched.append(_name(tool))
    return _fix(
        FixKind.SHARED_DEFS,
        capture,
        copy,
        touched,
        "write each repeated subschema once under $defs and point to it with $ref",
    )


def _large(
    _parent: Any, _key: str, child: dict[str, Any], *, limit: int, found: list[dict[str, Any]]
) -> None:
    enum = child.get("enum")
    if isinstance(enum, list) and len(enum) > limit:
        found.append(child)


def large_enums(capture: Sequence[JSONValue], limit: int = ENUM_LIMIT) -> Fix | None:
    copy = _copy(capture)
    touched: list[str] = []
    for tool in copy:
        schema = tool.get("inputSchema") if isinstance(tool, dict) else None
        found: list[dict[str, Any]] = []
        _subschemas(schema, partial(_large, limit=limit, found=found))
        for child in found:
            del child["enum"]
        if found:
            touched.append(_name(tool))
    return _fix(
        FixKind.LARGE_ENUM,
        capture,
        copy,
        touched,
        f"leave out enums of more than {limit} values and check the value in the server",
    )


def without_output_schema(capture: Sequence[JSONValue]) -> Fix | None:
    copy = _copy(capture)
    touched = [
        _name(t) for t in copy if isinstance(t, dict) and t.pop("outputSchema", None) is not None
    ]
    return _fix(
        FixKind.OUTPUT_SCHEMA,
        capture,
        copy,
        touched,
        "leave out outputSchema where the clients you serve forward it to the model",
    )


def _cut_descriptions(
    capture: Sequence[JSONValue], cut: Callable[[str], str | None]
) -> tuple[list[Any], list[str]]:
    copy = _copy(capture)
    touched: list[str] = []
    for tool in copy:
        text = tool.get("description") if isinstance(tool, dict) else None
        if isinstance(text, str):
            shorter = cut(text)
            if shorter is not None:
                tool["description"] = shorter
                touched.append(_name(tool))
    return copy, touched


def client_truncation(capture: Sequence[JSONValue], client: str, max_chars: int) -> Fix | None:
    copy, touched = _cut_descriptions(
        capture, lambda text: text[:max_chars] if len(text) > max_chars else None
    )
    return _fix(
        FixKind.CLIENT_TRUNCATION,
        capture,
        copy,
        touched,
        f"{client} cuts descriptions at {max_chars:,} characters: what follows never reaches "
        "its model; put what matters first and trim the rest",
    )


def _prefix_within(text: str, tokens: int) -> str:
    """The longest start of ``text`` whose JSON string counts at most ``tokens``."""
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count_tokens(stringify(text[:mid])) <= tokens:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo]


def above_p90(
    capture: Sequence[JSONValue], figure: PopulationFigure = POPULATION_P90
) -> Fix | None:
    p90 = figure.description_tokens_p90

    def cut(text: str) -> str | None:
        return _prefix_within(text, p90) if count_tokens(text) > p90 else None

    copy, touched = _cut_descriptions(capture, cut)
    return _fix(
        FixKind.ABOVE_P90,
        capture,
        copy,
        touched,
        f"descriptions above {p90:,} tokens, the 90th percentile of {figure.tools:,} published "
        f"tools ({figure.servers} servers, measured through {figure.measured_through}), cut to it",
    )


def all_fixes(capture: Sequence[JSONValue], server: str) -> tuple[Fix, ...]:
    """Every fix that saves tokens on this capture, the largest saving first. ``server``: the
    server's name as a client's config gives it (the lens builds model names from it)."""

    found = [shared_defs(capture), large_enums(capture), above_p90(capture)]
    output = without_output_schema(capture)
    if output is not None:
        was = server_views(
            LensServer(name=server, tools=tuple(capture)),
            output.before,
            list(KNOWN_CLIENTS),
        )
        now = server_views(
            LensServer(name=server, tools=output.capture), output.after, list(KNOWN_CLIENTS)
        )
        per_client = tuple(
            (a.label, a.model_view.upfront_tokens - b.model_view.upfront_tokens)
            for a, b in zip(was, now, strict=True)
            if a.model_view.rules_on_record
        )
        found.append(
            Fix(
                kind=output.kind,
                tools=output.tools,
                before=output.before,
                after=output.after,
                detail=output.detail,
                capture=output.capture,
                per_client=per_client,
            )
        )
    limits: dict[int, list[str]] = {}
    for client in KNOWN_CLIENTS:
        for limit in presentation_of(client).text_limits:
            if limit.subject == "description":
                limits.setdefault(limit.max_chars, []).append(client)
    for max_chars, clients in sorted(limits.items()):
        found.append(client_truncation(capture, ", ".join(clients), max_chars))
    return tuple(sorted((f for f in found if f is not None), key=lambda f: -f.saving))
