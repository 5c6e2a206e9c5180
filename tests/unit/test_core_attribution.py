"""Per-tool attribution (``mcpcost.core.attribution``): the field split, pairing, the floor."""

from __future__ import annotations

from typing import Any

import pytest

from mcpcost.core.attribution import (
    Attribution,
    MoveKind,
    ToolField,
    ToolsSide,
    attribute,
    attribution_lines,
    attribution_markdown,
    tool_entry,
)
from mcpcost.core.jsonvalue import stringify
from mcpcost.core.measure import measure_tools
from mcpcost.core.tokenizer import count_tokens


def _tool(name: str, description: str, **more: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "what to look for"}},
            "required": ["query"],
        },
        **more,
    }


def _side(tools: list[Any]) -> ToolsSide:
    m = measure_tools(tools)
    return ToolsSide(total_tokens=m.total_tokens, tools=tuple(tool_entry(t) for t in tools))


def _diff(before: list[Any], after: list[Any], floor: int = 10) -> Attribution:
    return attribute(_side(before), _side(after), floor=floor)


def test_the_split_counts_each_member_and_the_rest_on_its_own_and_framing_closes_the_sum() -> None:
    tool = _tool(
        "search",
        'Find "things" in the index.\nReturns ids.',
        outputSchema={"type": "object", "properties": {"ids": {"type": "array"}}},
        annotations={"readOnlyHint": True},
        title="Search",
        _meta={"x": 1},
    )
    entry = tool_entry(tool)
    assert entry.tokens == count_tokens(stringify(tool))
    assert entry.tokens == measure_tools([tool]).tools[0].tokens  # the published per-tool number
    for member in ("description", "inputSchema", "outputSchema", "annotations"):
        assert entry.split[ToolField(member)] == count_tokens(stringify(tool[member]))
    rest = {"name": "search", "title": "Search", "_meta": {"x": 1}}
    assert entry.split[ToolField.REST] == count_tokens(stringify(rest))
    # the description is counted as JSON: its quotes and escapes are in it
    assert entry.split[ToolField.DESCRIPTION] != count_tokens(tool["description"])
    assert sum(entry.split.values()) + entry.framing == entry.tokens
    assert entry.framing > 0  # the four keys cost tokens of their own


def test_an_absent_member_is_zero_and_a_tool_that_is_not_an_object_is_all_rest() -> None:
    entry = tool_entry({"name": "bare"})
    assert entry.split[ToolField.DESCRIPTION] == 0
    assert entry.split[ToolField.REST] == entry.tokens
    odd = tool_entry(["not", "a", "tool"])
    assert odd.name == "(unnamed)"
    assert odd.split[ToolField.REST] == odd.tokens == count_tokens('["not","a","tool"]')


def test_the_body_hash_ignores_the_name_only() -> None:
    a = tool_entry(_tool("a", "same"))
    b = tool_entry(_tool("b", "same"))
    c = tool_entry(_tool("a", "other"))
    assert a.body_sha256 == b.body_sha256 != c.body_sha256


def test_a_grown_description_and_an_added_tool_are_called_out_with_their_fields() -> None:
    before = [_tool("search", "Search."), _tool("get", "Get one item.")]
    after = [
        _tool("search", "Search. " + "Use it to find any item by any of its words. " * 8),
        _tool("get", "Get one item."),
        _tool("bulk_export", "Export everything at once."),
    ]
    a = _diff(before, after)
    assert [(m.kind, m.name) for m in a.moves] == [
        (MoveKind.ADDED, "bulk_export"),
        (MoveKind.GREW, "search"),
    ]
    grew = a.of_kind(MoveKind.GREW)[0]
    assert [f.field for f in grew.fields] == [ToolField.DESCRIPTION]
    assert grew.fields[0].delta == grew.delta  # the description is all that moved
    assert grew.tokens_before == tool_entry(before[0]).tokens
    assert grew.tokens_after == tool_entry(after[0]).tokens
    added = a.of_kind(MoveKind.ADDED)[0]
    assert added.tokens_before is None and added.tokens_after == tool_entry(after[2]).tokens
    assert a.total_before == measure_tools(before).total_tokens
    assert a.total_after == measure_tools(after).total_tokens
    assert (a.tools_before, a.tools_after) == (2, 3)
    assert not a.below_floor and not a.reordered


def test_removed_renamed_shrank_and_changed() -> None:
    before = [
        _tool("old_name", "Keeps its body."),
        _tool("gone", "Will disappear."),
        _tool("trim", "A long description that the author will shorten a great deal. " * 3),
        _tool("edit", "Alpha beta."),
    ]
    after = [
        _tool("new_name", "Keeps its body."),
        _tool("trim", "Short."),
        _tool("edit", "Gamma delta."),
    ]
    a = _diff(before, after, floor=0)
    kinds = {m.name: m for m in a.moves}
    assert kinds["new_name"].kind is MoveKind.RENAMED
    assert kinds["new_name"].old_name == "old_name"
    assert [f.field for f in kinds["new_name"].fields] in ([], [ToolField.REST])
    assert kinds["gone"].kind is MoveKind.REMOVED and kinds["gone"].tokens_after is None
    assert kinds["trim"].kind is MoveKind.SHRANK and kinds["trim"].delta < 0
    edit = tool_entry(before[3]), tool_entry(after[2])
    assert edit[0].tokens == edit[1].tokens  # the test's premise: same size, other words
    assert kinds["edit"].kind is MoveKind.CHANGED and kinds["edit"].delta == 0


def test_moves_below_the_floor_are_counted_not_called_out() -> None:
    before = [_tool("a", "One two."), _tool("b", "Short.")]
    after = [_tool("a", "One two three."), _tool("b", "Short. " + "Much longer now. " * 10)]
    a = _diff(before, after, floor=10)
    assert [m.name for m in a.moves] == ["b"]
    assert [m.name for m in a.below_floor] == ["a"]
    assert a.to_dict()["belowFloor"] == {
        "tools": 1,
        "delta": a.below_floor[0].delta,
        "names": ["a"],
    }
    assert any("less than 10 tokens" in line for line in attribution_lines(a))
    # the structural kinds are called out whatever the floor
    b = _diff([_tool("a", "x")], [_tool("a", "x"), _tool("tiny", "")], floor=1000)
    assert [m.kind for m in b.moves] == [MoveKind.ADDED]


def test_same_tools_in_another_order_is_a_reorder_and_nothing_else() -> None:
    one, two = _tool("one", "First."), _tool("two", "Second.")
    a = _diff([one, two], [two, one])
    assert a.reordered and not a.moves and not a.below_floor and not a.unchanged
    assert _diff([one, two], [one, two]).unchanged


def test_tools_sharing_a_name_pair_in_order() -> None:
    a = _diff(
        [_tool("dup", "first"), _tool("dup", "second")],
        [_tool("dup", "first"), _tool("dup", "second " + "grown " * 20)],
    )
    assert [(m.kind, m.name) for m in a.moves] == [(MoveKind.GREW, "dup")]


def test_lines_and_markdown_say_the_same_and_markdown_escapes_names() -> None:
    before = [_tool("search", "Search.")]
    after = [_tool("search", "Search. " + "more words " * 30), _tool("x|<b>@team", "New.")]
    a = _diff(before, after)
    lines = attribution_lines(a)
    assert lines[0].startswith(f"{a.total_before:,} -> {a.total_after:,} tokens")
    assert any(line.strip().startswith("grew search") and "description" in line for line in lines)
    md = "\n".join(attribution_markdown(a, title="my-server"))
    assert "| grew | `search` |" in md
    assert "`x\\|<b>@team`" in md  # in a code span, the pipe escaped: it cannot end the cell
    grew = a.of_kind(MoveKind.GREW)[0].fields[0]
    assert f"description {grew.before:,} → {grew.after:,}" in md
    assert md.startswith("**my-server**: ")


def test_a_negative_floor_is_refused() -> None:
    with pytest.raises(ValueError, match="floor"):
        _diff([], [], floor=-1)
