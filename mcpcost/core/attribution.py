"""Per-tool attribution: which tools moved between two captures of one server, by how much, and in
which field. Pure: values in, values out. docs/AUTHORS.md describes it for readers.

A tool enters as a ``ToolEntry`` (``tool_entry`` makes one from a captured tool; a snapshot file
stores the same numbers): its name, its tokens, its field split and its body hash.

- **tokens**: the o200k_base count of ``JSON.stringify(tool)``, as ``measurement.json``'s
  per-tool ``tokens`` (methodology section 4).
- **field split** (``ToolField``): the o200k_base count of ``JSON.stringify`` of each of the
  members ``description``, ``inputSchema``, ``outputSchema`` and ``annotations`` on its own (0
  when the member is absent), and ``rest``: the count of ``JSON.stringify`` of the tool object
  with those four members taken out (its name, title, icons, ``_meta`` and braces). A tool that
  is not an object is all ``rest``. The description is counted as JSON (quotes and escapes
  included), unlike ``descriptionTokens``, so the five parts are five texts of one kind.
- **framing** = ``tokens`` minus the five parts: the four members' keys, colons and commas and
  the merges at their seams. It is derived, never counted on its own, so for every tool
  ``description + inputSchema + outputSchema + annotations + rest + framing == tokens`` exactly.
  A server's total is not the sum of its tools' tokens either: the array's brackets and commas
  and the merges between tools make the difference (``ToolsSide.seams``).
- **body hash**: the SHA-256 of ``JSON.stringify`` of the tool with its ``name`` member taken
  out. Two tools with the same body hash differ at most in their names: a tool that disappears
  under one name while a tool with its body hash appears under another was **renamed**.

``attribute(before, after, floor=...)`` pairs tools by name (the n-th tool of a name with the
n-th of the same name on the other side), then pairs the rest by body hash (renames), and calls
the others added and removed. A tool on both sides whose body hash differs grew, shrank or (same
tokens) changed. Added, removed and renamed tools are always called out; a tool that grew, shrank
or changed is called out only when its tokens moved by at least ``floor``; the others are counted
in ``Attribution.below_floor`` so nothing is left unsaid.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from mcpcost.core.digest import sha256_hex
from mcpcost.core.jsonvalue import JSONValue, stringify
from mcpcost.core.plural import counted
from mcpcost.core.tokenizer import Tokenizer, get_tokenizer
from mcpcost.escaping.markdown import code_span, md_text

DEFAULT_FLOOR = 10  # tokens: a tool that moved by less is counted, not called out


class ToolField(StrEnum):
    """The parts a tool's tokens are split into (see the module's docstring)."""

    DESCRIPTION = "description"
    INPUT_SCHEMA = "inputSchema"
    OUTPUT_SCHEMA = "outputSchema"
    ANNOTATIONS = "annotations"
    REST = "rest"


# the members counted on their own; ``rest`` is the tool without them
SPLIT_MEMBERS = (
    ToolField.DESCRIPTION,
    ToolField.INPUT_SCHEMA,
    ToolField.OUTPUT_SCHEMA,
    ToolField.ANNOTATIONS,
)


class MoveKind(StrEnum):
    """What happened to one tool between two captures."""

    ADDED = "added"
    REMOVED = "removed"
    GREW = "grew"
    SHRANK = "shrank"
    CHANGED = "changed"  # edited, same number of tokens
    RENAMED = "renamed"  # same body hash, another name


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolEntry:
    """One tool's numbers: its tokens, their split by field, and its body hash."""

    name: str
    tokens: int
    split: Mapping[ToolField, int]
    body_sha256: str

    @property
    def framing(self) -> int:
        """``tokens`` minus the five parts: keys, punctuation and seams between them."""
        return self.tokens - sum(self.split.get(f, 0) for f in ToolField)


def tool_entry(tool: JSONValue, tokenizer: Tokenizer | None = None) -> ToolEntry:
    """A captured tool's ``ToolEntry`` (its name ``(unnamed)`` when it has none)."""
    tk = tokenizer or get_tokenizer()
    if not isinstance(tool, dict):
        text = stringify(tool)
        count = tk.count(text)
        return ToolEntry(
            name="(unnamed)",
            tokens=count,
            split=dict.fromkeys(ToolField, 0) | {ToolField.REST: count},
            body_sha256=_sha(text.encode()),
        )
    name = tool.get("name")
    split: dict[ToolField, int] = {}
    for member in SPLIT_MEMBERS:
        split[member] = tk.count(stringify(tool[member])) if member in tool else 0
    rest = {k: v for k, v in tool.items() if k not in SPLIT_MEMBERS}
    split[ToolField.REST] = tk.count(stringify(rest))
    body = {k: v for k, v in tool.items() if k != "name"}
    return ToolEntry(
        name=name if isinstance(name, str) else "(unnamed)",
        tokens=tk.count(stringify(tool)),
        split=split,
        body_sha256=_sha(stringify(body).encode()),
    )


def _sha(data: bytes) -> str:
    return sha256_hex(data)


@dataclass(frozen=True, slots=True, kw_only=True)
class FieldMove:
    """One part of a tool whose tokens differ between the two sides."""

    field: ToolField
    before: int
    after: int

    @property
    def delta(self) -> int:
        return self.after - self.before

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "before": self.before, "after": self.after}


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolMove:
    """One tool that moved. ``tokens_before`` is None for an added tool, ``tokens_after`` for a
    removed one; ``old_name`` is the name before a rename. ``fields``: the parts that moved,
    largest change first."""

    kind: MoveKind
    name: str
    tokens_before: int | None
    tokens_after: int | None
    fields: tuple[FieldMove, ...] = ()
    old_name: str | None = None

    @property
    def delta(self) -> int:
        return (self.tokens_after or 0) - (self.tokens_before or 0)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "name": self.name}
        if self.old_name is not None:
            out["oldName"] = self.old_name
        out["tokensBefore"] = self.tokens_before
        out["tokensAfter"] = self.tokens_after
        out["delta"] = self.delta
        out["fields"] = [f.to_dict() for f in self.fields]
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolsSide:
    """One side of a comparison: a server's total and its tools in capture order."""

    total_tokens: int
    tools: tuple[ToolEntry, ...]

    @property
    def seams(self) -> int:
        """The total minus the tools' tokens: the array's punctuation and the merges between
        tools (the total is not the sum of the tools)."""
        return self.total_tokens - sum(t.tokens for t in self.tools)


@dataclass(frozen=True, slots=True, kw_only=True)
class Attribution:
    """What moved between two sides of one server. ``moves``: the tools called out (added,
    removed, renamed, and those that moved by at least ``floor`` tokens), in the order the
    kinds are listed in ``MoveKind``, then by the size of the change; ``below_floor``: the tools
    that changed by less than ``floor``. ``reordered``: the same tools in another order (the
    total can move by a few tokens with no tool changed)."""

    floor: int
    total_before: int
    total_after: int
    tools_before: int
    tools_after: int
    moves: tuple[ToolMove, ...]
    below_floor: tuple[ToolMove, ...]
    reordered: bool

    @property
    def delta(self) -> int:
        return self.total_after - self.total_before

    @property
    def unchanged(self) -> bool:
        """True when no tool moved, none was renamed and the order is the same."""
        return not self.moves and not self.below_floor and not self.reordered

    def of_kind(self, kind: MoveKind) -> tuple[ToolMove, ...]:
        return tuple(m for m in self.moves if m.kind is kind)

    def to_dict(self) -> dict[str, Any]:
        return {
            "floor": self.floor,
            "totalBefore": self.total_before,
            "totalAfter": self.total_after,
            "delta": self.delta,
            "toolsBefore": self.tools_before,
            "toolsAfter": self.tools_after,
            "reordered": self.reordered,
            "moves": [m.to_dict() for m in self.moves],
            "belowFloor": {
                "tools": len(self.below_floor),
                "delta": sum(m.delta for m in self.below_floor),
                "names": [m.name for m in self.below_floor],
            },
        }


def _field_moves(before: ToolEntry, after: ToolEntry) -> tuple[FieldMove, ...]:
    moves = [
        FieldMove(field=f, before=before.split.get(f, 0), after=after.split.get(f, 0))
        for f in ToolField
    ]
    moved = [m for m in moves if m.delta]
    order = list(ToolField)
    return tuple(sorted(moved, key=lambda m: (-abs(m.delta), order.index(m.field))))


def _keyed(tools: Iterable[ToolEntry]) -> dict[tuple[str, int], ToolEntry]:
    """Each tool under (name, how many tools of that name came before it)."""
    seen: dict[str, int] = {}
    out: dict[tuple[str, int], ToolEntry] = {}
    for t in tools:
        n = seen.get(t.name, 0)
        seen[t.name] = n + 1
        out[(t.name, n)] = t
    return out


def _paired_move(before: ToolEntry, after: ToolEntry) -> ToolMove | None:
    if before.body_sha256 == after.body_sha256 and before.tokens == after.tokens:
        return None
    if after.tokens > before.tokens:
        kind = MoveKind.GREW
    elif after.tokens < before.tokens:
        kind = MoveKind.SHRANK
    else:
        kind = MoveKind.CHANGED
    return ToolMove(
        kind=kind,
        name=after.name,
        tokens_before=before.tokens,
        tokens_after=after.tokens,
        fields=_field_moves(before, after),
    )


def attribute(before: ToolsSide, after: ToolsSide, *, floor: int = DEFAULT_FLOOR) -> Attribution:
    """The per-tool attribution of ``after`` against ``before`` (see the module's docstring)."""
    if floor < 0:
        raise ValueError("the floor is a number of tokens, 0 or more")
    old = _keyed(before.tools)
    new = _keyed(after.tools)
    moves: list[ToolMove] = []
    for key, now in new.items():
        was = old.get(key)
        if was is not None:
            move = _paired_move(was, now)
            if move is not None:
                moves.append(move)
    gone = [t for k, t in old.items() if k not in new]
    came = [t for k, t in new.items() if k not in old]
    by_body: dict[str, list[ToolEntry]] = {}
    for t in gone:
        by_body.setdefault(t.body_sha256, []).append(t)
    added: list[ToolEntry] = []
    for t in came:
        twins = by_body.get(t.body_sha256)
        if twins:
            was = twins.pop(0)
            moves.append(
                ToolMove(
                    kind=MoveKind.RENAMED,
                    name=t.name,
                    old_name=was.name,
                    tokens_before=was.tokens,
                    tokens_after=t.tokens,
                    fields=_field_moves(was, t),
                )
            )
        else:
            added.append(t)
    removed = [t for twins in by_body.values() for t in twins]
    moves += [
        ToolMove(
            kind=MoveKind.ADDED,
            name=t.name,
            tokens_before=None,
            tokens_after=t.tokens,
            fields=tuple(
                FieldMove(field=f, before=0, after=t.split.get(f, 0))
                for f in ToolField
                if t.split.get(f, 0)
            ),
        )
        for t in added
    ]
    moves += [
        ToolMove(
            kind=MoveKind.REMOVED,
            name=t.name,
            tokens_before=t.tokens,
            tokens_after=None,
            fields=tuple(
                FieldMove(field=f, before=t.split.get(f, 0), after=0)
                for f in ToolField
                if t.split.get(f, 0)
            ),
        )
        for t in removed
    ]
    structural = (MoveKind.ADDED, MoveKind.REMOVED, MoveKind.RENAMED)
    called = [m for m in moves if m.kind in structural or abs(m.delta) >= floor]
    quiet = [m for m in moves if m not in called]
    order = list(MoveKind)

    def rank(m: ToolMove) -> tuple[int, int, str]:
        return (order.index(m.kind), -abs(m.delta), m.name)

    paired_before = [k for k in old if k in new]
    paired_after = [k for k in new if k in old]
    return Attribution(
        floor=floor,
        total_before=before.total_tokens,
        total_after=after.total_tokens,
        tools_before=len(before.tools),
        tools_after=len(after.tools),
        moves=tuple(sorted(called, key=rank)),
        below_floor=tuple(sorted(quiet, key=rank)),
        reordered=paired_before != paired_after,
    )


# ---------------------------------------------------------------- words (plain, unescaped)


def signed(n: int) -> str:
    """``+1,200``, ``-30``, ``0``."""
    return f"{n:+,}" if n else "0"


def field_words(fields: Sequence[FieldMove], arrow: str = "->") -> str:
    """``description 20 -> 98, inputSchema 40 -> 44`` (empty when no part moved)."""
    return ", ".join(f"{f.field} {f.before:,} {arrow} {f.after:,}" for f in fields)


def move_words(m: ToolMove) -> str:
    """One move in words, as a line says it (names as given: the caller escapes the line)."""
    where = field_words(m.fields)
    tail = f" ({where})" if where and m.kind not in (MoveKind.ADDED, MoveKind.REMOVED) else ""
    if m.kind is MoveKind.ADDED:
        return f"added {m.name} ({counted(m.tokens_after or 0, 'token')})"
    if m.kind is MoveKind.REMOVED:
        return f"removed {m.name} ({counted(m.tokens_before or 0, 'token')})"
    if m.kind is MoveKind.RENAMED:
        return f"renamed {m.old_name} -> {m.name} ({m.tokens_before:,} -> {m.tokens_after:,}){tail}"
    return f"{m.kind} {m.name} {m.tokens_before:,} -> {m.tokens_after:,} ({signed(m.delta)}){tail}"


def summary_words(a: Attribution, arrow: str = "->") -> str:
    """The whole server in one phrase: ``1,234 -> 2,434 tokens (+1,200), 3 -> 4 tools``."""
    tools = (
        f"{a.tools_before} {arrow} {a.tools_after} tools"
        if a.tools_before != a.tools_after
        else counted(a.tools_after, "tool")
    )
    return (
        f"{a.total_before:,} {arrow} {counted(a.total_after, 'token')} ({signed(a.delta)}), {tools}"
    )


def below_floor_words(a: Attribution) -> str | None:
    """The tools that moved by less than the floor, in one phrase (None: there are none)."""
    if not a.below_floor:
        return None
    total = sum(m.delta for m in a.below_floor)
    return (
        f"{counted(len(a.below_floor), 'more tool')} changed by less than "
        f"{counted(a.floor, 'token')} each ({signed(total)} in all)"
    )


def attribution_lines(a: Attribution) -> list[str]:
    """The attribution as plain lines (a summary, one line per move, what is below the floor,
    a reorder). Names are the server's: escape each line at the output's boundary."""
    lines = [summary_words(a)]
    lines += [f"  {move_words(m)}" for m in a.moves]
    quiet = below_floor_words(a)
    if quiet is not None:
        lines.append(f"  {quiet}")
    if a.reordered:
        lines.append("  the tools are listed in another order")
    return lines


def attribution_markdown(a: Attribution, *, title: str | None = None) -> list[str]:
    """The attribution as Markdown lines: a summary line, then a table of the moves (kind, tool,
    before, after, change, fields moved), then what is below the floor. Every name passes the
    Markdown boundary (``escaping.markdown``); ``title`` is the caller's own (trusted) text."""

    head = f"**{title}**: " if title else ""
    lines = [f"{head}{md_text(summary_words(a, '→'))}"]
    if a.moves:
        lines += [
            "",
            "| change | tool | before | after | delta | fields moved |",
            "|---|---|---:|---:|---:|---|",
        ]
        for m in a.moves:
            tool = code_span(m.name)
            if m.old_name is not None:
                tool = f"{code_span(m.old_name)} → {tool}"
            before = "" if m.tokens_before is None else f"{m.tokens_before:,}"
            after = "" if m.tokens_after is None else f"{m.tokens_after:,}"
            lines.append(
                f"| {m.kind} | {tool} | {before} | {after} | {signed(m.delta)} | "
                f"{md_text(field_words(m.fields, '→')) or '—'} |"
            )
    quiet = below_floor_words(a)
    extra = [quiet] if quiet else []
    if a.reordered:
        extra.append("the tools are listed in another order")
    if extra:
        lines += ["", md_text("; ".join(extra))]
    return lines
