"""Numbers from a tools capture: total, hash, count, per-tool diagnostics, session-start load;
and the same count of a prompts, resources or resource-templates list (``measure_listing``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcpcost.core.canonical import Canonical, canonical_of_text, canonicalize
from mcpcost.core.jsonvalue import (
    JSONValue,
    array_text,
    member_texts,
    object_text,
    parse_json,
    stringify,
)
from mcpcost.core.model import Listing, ToolCost
from mcpcost.core.tokenizer import Tokenizer, get_tokenizer


@dataclass(frozen=True, slots=True)
class ToolsMeasure:
    """What the methodology derives from one tools array."""

    canonical: Canonical
    total_tokens: int
    tool_count: int
    tools: tuple[ToolCost, ...]
    capture: JSONValue  # a fresh parse of the canonical text: a snapshot, never the live value


def _text_tokens(value: Any, tokenizer: Tokenizer) -> int:
    return tokenizer.count(value) if isinstance(value, str) and value else 0


def _json_tokens(value: Any, text: str | None, tokenizer: Tokenizer) -> int:
    """Tokens of a member's JSON text (``text``, or ``value`` stringified when not given)."""
    # JavaScript truthiness: null, false, 0 and "" count as absent.
    if (
        value is None
        or value is False
        or value == ""
        or (isinstance(value, int | float) and not isinstance(value, bool) and value == 0)
    ):
        return 0
    return tokenizer.count(stringify(value) if text is None else text)


def tool_texts(tool: Any) -> tuple[str, dict[str, str]]:
    """``JSON.stringify(tool)`` and, for an object, the text of each top-level member: the
    tool's text is assembled from its members', so each member is serialised once."""
    if not isinstance(tool, dict):
        return stringify(tool), {}
    members = member_texts(tool)
    return object_text(members), members


def tool_cost(
    tool: Any,
    tokenizer: Tokenizer,
    *,
    field_split: bool = True,
    texts: tuple[str, dict[str, str]] | None = None,
) -> ToolCost:
    """Per-tool numbers as the reference computes them, plus our diagnostic field split
    (``texts``: the tool's ``tool_texts``, when the caller has them already)."""
    obj = tool if isinstance(tool, dict) else {}
    text, members = texts or tool_texts(tool)
    name = obj.get("name")

    def json_tokens(key: str) -> int:
        return _json_tokens(obj.get(key), members.get(key), tokenizer)

    description = _text_tokens(obj.get("description"), tokenizer)
    input_schema = json_tokens("inputSchema")
    fields: dict[str, int] | None = None
    if field_split:
        fields = {
            "description": description,
            "inputSchema": input_schema,
            "outputSchema": json_tokens("outputSchema"),
            "annotations": json_tokens("annotations"),
            "title": _text_tokens(obj.get("title"), tokenizer),
        }
    return ToolCost(
        name=name if isinstance(name, str) else "(unnamed)",
        tokens=tokenizer.count(text),
        description_tokens=description,
        input_schema_tokens=input_schema,
        field_tokens=fields,
    )


def measure_tools(
    tools: list[Any], tokenizer: Tokenizer | None = None, *, field_split: bool = True
) -> ToolsMeasure:
    """Measure a page-joined tools array (already parsed)."""
    tk = tokenizer or get_tokenizer()
    texts = [tool_texts(t) for t in tools]
    # JSON.stringify of an array is its elements' texts joined: the canonical text is built from
    # the tools' texts rather than serialised a second time
    canonical = canonical_of_text(array_text([text for text, _ in texts]))
    return ToolsMeasure(
        canonical=canonical,
        total_tokens=tk.count(canonical.text),
        tool_count=len(tools),
        tools=tuple(
            tool_cost(t, tk, field_split=field_split, texts=x)
            for t, x in zip(tools, texts, strict=True)
        ),
        capture=parse_json(canonical.text),
    )


def measure_listing(items: list[Any], tokenizer: Tokenizer | None = None) -> Listing:
    """A page-joined list counted by the tools' rule: ``o200k_base`` tokens and SHA-256 of
    ``JSON.stringify(items)``, and the number of items."""

    canonical = canonicalize(items)
    tk = tokenizer or get_tokenizer()
    return Listing(
        count=len(items), tokens=tk.count(canonical.text), canonical_sha256=canonical.sha256
    )


@dataclass(frozen=True, slots=True)
class SessionStart:
    """deferred-load/v1: what a deferring client loads at session start."""

    tool_name_tokens: int
    instructions_tokens: int | None  # None when instructions were never captured
    total: int
    is_floor: bool

    def to_dict(self) -> dict[str, Any]:
        """The JSON object reports and the API carry (``sessionStart``)."""
        return {
            "toolNameTokens": self.tool_name_tokens,
            "instructionsTokens": self.instructions_tokens,
            "total": self.total,
            "isFloor": self.is_floor,
        }


def session_start(
    capture: list[Any], instructions: Any, *, captured: bool, tokenizer: Tokenizer | None = None
) -> SessionStart:
    """Tool names (as a JSON array) and instructions, counted separately and added."""
    tk = tokenizer or get_tokenizer()
    names = [
        t["name"]
        for t in capture
        if isinstance(t, dict) and isinstance(t.get("name"), str) and t["name"]
    ]
    name_tokens = tk.count(stringify(names))
    if not captured:
        return SessionStart(name_tokens, None, name_tokens, True)
    instr = _text_tokens(instructions, tk)
    return SessionStart(name_tokens, instr, name_tokens + instr, False)
