"""escaping/markdown.py: the one escaping implementation for third-party text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mcpcost.escaping.markdown import (
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


def _escaped(text: str, i: int) -> bool:
    """Whether inline Markdown reads ``text[i]`` as escaped: an odd run of backslashes before it."""
    run = len(text[:i]) - len(text[:i].rstrip("\\"))
    return run % 2 == 1


def _pipe_escaped(text: str, i: int) -> bool:
    """Whether a GFM table row keeps ``text[i]`` (a pipe) inside its cell: any backslash right
    before it does (cmark-gfm's cell scanner takes the longest match, so ``\\\\|`` stays in)."""
    return i > 0 and text[i - 1] == "\\"


def test_escape_helpers_look_at_what_is_before() -> None:
    assert not _pipe_escaped("|a\\", 0)  # a leading pipe has nothing before it
    assert _pipe_escaped("a\\|", 2)
    assert not _escaped("<a\\", 0)
    assert _escaped("\\<", 1)
    assert not _escaped("\\\\<", 2)  # an escaped backslash leaves the bracket live
    assert _escaped("\\\\\\<", 3)


@given(
    st.text(alphabet=st.sampled_from("ab|<\\\n\r`@# "), max_size=60) | st.text(max_size=300),
    st.integers(min_value=2, max_value=200),
)
def test_cells_never_break_a_table_row(text: str, limit: int) -> None:
    # the first alphabet makes pipes, brackets and backslash runs common, at the cut too
    for out in (md_text(text, limit), code_text(text, limit)):
        assert len(out) <= limit
        assert "\n" not in out and "\r" not in out
        assert all(_pipe_escaped(out, i) for i, c in enumerate(out) if c == "|"), out
    # outside code spans, no HTML tag can open
    escaped = md_text(text, limit)
    assert all(_escaped(escaped, i) for i, c in enumerate(escaped) if c == "<"), escaped
