"""A count and its noun agree: "1 tool", "0 tools", "2,378 tokens"."""

from __future__ import annotations

from mcpcost.core.plural import counted, plural


def test_one_is_singular_and_every_other_count_plural() -> None:
    assert [counted(n, "tool") for n in (0, 1, 2)] == ["0 tools", "1 tool", "2 tools"]
    assert counted(1, "entry", "entries") == "1 entry"
    assert counted(5, "entry", "entries") == "5 entries"
    assert plural(-1, "token") == "tokens"


def test_counts_are_grouped_unless_asked_not_to() -> None:
    assert counted(2378, "token") == "2,378 tokens"
    assert counted(2378, "token", grouped=False) == "2378 tokens"
