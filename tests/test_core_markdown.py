"""core/markdown.py: the one escaping implementation for third-party text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mcpcost.core.markdown import (
    ELLIPSIS,
    ZWJ,
    code_span,
    code_text,
    escape_html,
    md_text,
    neutralize_mentions,
    one_line,
    truncate,
)


def test_one_line_folds_breaks_and_runs() -> None:
    assert one_line("a\r\nb\n\n c\t d") == "a b c d"
    assert one_line(None) == ""


def test_truncate_marks_the_cut_and_keeps_exact_lengths() -> None:
    assert truncate("abcdef", 6) == "abcdef"
    assert truncate("abcdefg", 6) == "abcde" + ELLIPSIS
    assert truncate("abc", None) == "abc"
    # an odd run of backslashes would escape the ellipsis: the last one goes
    assert truncate("ab\\cdef", 4) == "ab" + ELLIPSIS
    assert truncate("a\\\\cdef", 4) == "a\\\\" + ELLIPSIS


def test_escape_html() -> None:
    assert escape_html("<img src=\"x\" onerror='y'>&") == (
        "&lt;img src=&quot;x&quot; onerror=&#39;y&#39;&gt;&amp;"
    )


def test_mentions_and_issue_refs_are_broken() -> None:
    assert neutralize_mentions("@octocat and @org/team #12 a@b.c #x") == (
        f"@{ZWJ}octocat and @{ZWJ}org/team #{ZWJ}12 a@{ZWJ}b.c #x"
    )


def test_md_text_leaves_no_active_markdown() -> None:
    nasty = "@octocat <img src=x> | `x` [l](http://e) #12\n::error::boom"
    out = md_text(nasty)
    assert "\n" not in out and "@octocat" not in out and "#12" not in out
    assert "\\<img" in out and "\\[l\\]\\(" in out
    assert md_text("a|b", mentions=False) == "a\\|b"
    assert md_text("y" * 500, 160).endswith(ELLIPSIS) and len(md_text("y" * 500, 160)) == 160


def test_code_text_and_span() -> None:
    assert code_span("a|b`c@d") == "`a\\|b'c@d`"
    assert code_span("") == "` `"
    assert code_text("@x", mentions=True) == f"@{ZWJ}x"


@given(st.text(max_size=300), st.integers(min_value=2, max_value=200))
def test_cells_never_break_a_table_row(text: str, limit: int) -> None:
    for out in (md_text(text, limit), code_text(text, limit)):
        assert len(out) <= limit
        assert "\n" not in out and "\r" not in out
        # every pipe is preceded by a backslash, so the table parser never splits on it
        assert all(out[i - 1] == "\\" for i, c in enumerate(out) if c == "|")
    # outside code spans, no HTML tag can open
    escaped = md_text(text, limit)
    assert all(escaped[i - 1] == "\\" for i, c in enumerate(escaped) if c == "<")
