"""The boundary modules by example: what each one turns hostile text into."""

from __future__ import annotations

import io
import json

import pytest

from mcpcost.cli.streams import SafeStream
from mcpcost.escaping.cilog import is_workflow_command, neutralize_workflow_commands
from mcpcost.escaping.markdown import ZWJ, code_span, escape_html, md_text
from mcpcost.escaping.terminal import terminal_line, terminal_text


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),
        ("\x1b]8;;https://e\x1b\\x\x1b]8;;\x1b\\", "\\x1b]8;;https://e\\x1b\\x\\x1b]8;;\\x1b\\"),
        ("a\rb", "a\\x0db"),
        ("\x9b2J", "\\u009b2J"),
        ("abc\u202edef", "abc\\u202edef"),
        ("\u2066x\u2069", "\\u2066x\\u2069"),
        ("one\ntwo", "one\\x0atwo"),
        ("café 日本語 🚀 — ≥", "café 日本語 🚀 — ≥"),
    ],
)
def test_terminal_line(raw: str, shown: str) -> None:
    assert terminal_line(raw) == shown


# DerivedCoreProperties.txt's Default_Ignorable_Code_Point lines (Unicode 14.0);
# tests/integration/test_unicode_tables.py checks the boundary's table against Perl's.
IGNORABLE_LINES = """
00AD 034F 061C 115F..1160 17B4..17B5 180B..180D 180E 180F 200B..200F 202A..202E 2060..2064
2065 2066..206F 3164 FE00..FE0F FEFF FFA0 FFF0..FFF8 1BCA0..1BCA3 1D173..1D17A E0000 E0001
E0002..E001F E0020..E007F E0080..E00FF E0100..E01EF E01F0..E0FFF
"""


def default_ignorable() -> set[int]:
    codes: set[int] = set()
    for item in IGNORABLE_LINES.split():
        low, _, high = item.partition("..")
        codes.update(range(int(low, 16), int(high or low, 16) + 1))
    return codes


def escaped(code: int) -> str:
    if code < 0x20:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return json.dumps(chr(code))[1:-1]  # JSON's own UTF-16 pair for the code point


def test_terminal_line_escapes_exactly_the_unsafe_code_points() -> None:
    # the whole Basic Multilingual Plane and slices beyond: what is escaped is exactly the C0
    # and C1 controls, DEL, the bidi controls, the line and paragraph separators and every
    # default-ignorable code point (zero-width characters, tags, variation selectors...)
    bidi = {0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}
    ignorable = default_ignorable()
    assert {0x200B, 0x200D, 0x2060, 0xFEFF, 0xE0041, 0xE007F, 0xFE0F} <= ignorable
    unsafe = {*range(0x20), *range(0x7F, 0xA0), *bidi, 0x2028, 0x2029, *ignorable}
    beyond = [*range(0x1F000, 0x1F100), *range(0x1BC90, 0x1BCB0), *range(0x1D170, 0x1D180)]
    for code in [*range(0xD800), *range(0xE000, 0x10000), *beyond, *range(0xDFF00, 0xE1100)]:
        char = chr(code)
        expected = escaped(code) if code in unsafe else char
        assert terminal_line(char) == expected, hex(code)
        assert terminal_text(char) == ("\n" if code == 0x0A else expected), hex(code)
        if code in unsafe and code >= 0x20:  # the escape is JSON's for the same character
            assert json.loads(f'"{expected}"') == char, hex(code)


def test_a_tool_name_with_hidden_characters_never_reads_as_the_plain_name() -> None:
    tagged = "read_file" + "".join(chr(0xE0000 + ord(c)) for c in "rm -rf")
    for hidden in ("read\u200b_file", "read_file\u2060", "\ufeffread_file", tagged):
        for shown in (terminal_line(hidden), md_text(hidden), code_span(hidden)):
            assert "\\u" in shown, shown  # the hidden character is there for a reader to see
            assert not any(c in shown for c in hidden if not c.isascii()), shown
        assert escape_html(hidden) == terminal_line(hidden)
    tail = "".join(f"\\udb40\\udc{ord(c):02x}" for c in "rm -rf")
    assert terminal_line(tagged) == "read_file" + tail


def test_terminal_text_keeps_line_breaks_and_json_values() -> None:
    assert terminal_text("a\x1b\nb") == "a\\x1b\nb"
    doc = json.dumps({"n": "x\u202e\x85y"}, ensure_ascii=False)
    assert json.loads(terminal_text(doc)) == {"n": "x\u202e\x85y"}


@pytest.mark.parametrize(
    ("line", "safe"),
    [
        ("::error::x", "\\u003a:error::x"),
        ("  \t::add-mask::x", "  \t\\u003a:add-mask::x"),
        ("\u3000::warning::x", "\u3000\\u003a:warning::x"),
        ("text ##[error]x", "text ##\\u005berror]x"),
        ("a :: b", "a :: b"),
    ],
)
def test_workflow_commands_neutralised(line: str, safe: str) -> None:
    assert is_workflow_command(line) == (line != safe)
    assert neutralize_workflow_commands(line) == safe
    assert not is_workflow_command(safe)


def test_cli_stream_neutralises_commands_split_across_writes() -> None:
    raw = io.StringIO()
    stream = SafeStream(raw, ci_log=True)
    for part in (" :", ":error::x\nok #", "#[group]y\n", "::tail"):
        stream.write(part)
    stream.finish()
    assert raw.getvalue() == " \\u003a:error::x\nok ##\\u005bgroup]y\n\\u003a:tail"


def test_cli_stream_keeps_the_markdown_boundarys_joiners_and_escapes_a_values() -> None:
    raw = io.StringIO()
    stream = SafeStream(raw, ci_log=False)
    stream.write(md_text("@octocat read\u200d_file\u200b") + "\n")
    stream.finish()
    # Markdown shows the value's escapes as written (its backslashes escaped in turn)
    assert raw.getvalue() == "@" + ZWJ + "octocat read\\\\u200d\\_file\\\\u200b\n"


def test_cli_stream_outside_ci_only_escapes() -> None:
    raw = io.StringIO()
    stream = SafeStream(raw, ci_log=False)
    stream.write("::error::x \x1b[2J\n")
    stream.write_control("\r\x1b[2K")
    assert raw.getvalue() == "::error::x \\x1b[2J\n\r\x1b[2K"


def test_markdown_as_the_comment_escapes_it() -> None:
    assert md_text("&commat;x &#64;y", mentions=False) == "\\&commat;x \\&\\#64;y"
    assert md_text("see https://e.x and www.e.x") == f"see https{ZWJ}://e.x and www{ZWJ}.e.x"
    assert md_text("<!-- m -->").startswith("\\<" + ZWJ + "\\!--")
    assert code_span("<!-- mcp-context-cost:v1 key=a -->") == (
        f"`<{ZWJ}!-- mcp-context-cost:v1 key=a -->`"
    )
    assert md_text("x\u202ey") == "x\\\\u202ey"


def test_live_progress_keeps_its_own_sequence_and_escapes_names() -> None:
    from mcpcost.audit.progress import LiveProgress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    raw = Tty()
    stream = SafeStream(raw, ci_log=False)
    live = LiveProgress(stream)  # type: ignore[arg-type]
    live.started("evil\x1b]0;title\x07\u202e", 1)
    live.finished("evil\x1b]0;title\x07\u202e", "measured", 1, 1)
    shown = raw.getvalue()
    assert shown.startswith("\r\x1b[2Kmeasuring [0/1] evil\\x1b]0;title\\x07\\u202e")
    assert shown.endswith("\r\x1b[2K") and shown.count("\x1b") == shown.count("\r\x1b[2K")
