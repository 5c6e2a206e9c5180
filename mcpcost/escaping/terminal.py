"""Third-party text made inert for a terminal or a log (pure).

Server names, tool names, instructions, error messages and config paths come from people we do not
trust. Printed raw, a control character can recolour or clear the screen, set the window title,
plant an OSC 8 hyperlink, or (with a carriage return) overwrite what came before; a bidi override
or isolate can make a line read differently from what it says. Every text sink (the CLI's
stdout and stderr, the Action's log) passes such text through this module, which shows each of
those characters visibly escaped instead:

* C0 controls (U+0000-U+001F) as ``\\xNN`` (``\\x1b`` for ESC, so no ANSI, CSI or OSC sequence can
  start); DEL, C1 controls (U+0080-U+009F), the bidi marks, embeddings, overrides and isolates
  (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) and the line and paragraph separators
  (U+2028, U+2029) as ``\\uNNNN``.
* Every Default_Ignorable_Code_Point of Unicode (``DEFAULT_IGNORABLE``: zero-width spaces and
  joiners, the soft hyphen, variation selectors, fillers, the tag characters U+E0000-E007F...),
  which display as nothing, so a name cannot carry text a reader does not see (``read_file``
  followed by tag characters would look like ``read_file``): as ``\\uNNNN``, and above U+FFFF
  as its UTF-16 pair (``\\udb40\\udc41``).
* ``terminal_line`` escapes line breaks too (one untrusted value cannot forge a second line);
  ``terminal_text`` keeps ``\\n`` (for whole documents written by a trusted renderer).

Both forms are also valid JSON string escapes for the same character, so a JSON document passed
through ``terminal_text`` still parses to the same value.

``without_terminal_codes`` is for text a program wrote to a terminal (a server's stderr, kept in
a measurement's notes): its colour, cursor and title sequences are removed rather than shown
escaped, so what is kept is the words it meant; the result still goes through the sinks above.
"""

from __future__ import annotations

import re

BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
LINE_SEPARATORS = frozenset("\u2028\u2029")
# Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt, Unicode 14.0, the
# version of this interpreter's tables): characters a renderer shows as nothing.
DEFAULT_IGNORABLE_RANGES = (
    *((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160)),
    *((0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E)),
    *((0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF)),
    *((0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A)),
    (0xE0000, 0xE0FFF),
)
DEFAULT_IGNORABLE = frozenset(
    chr(code) for low, high in DEFAULT_IGNORABLE_RANGES for code in range(low, high + 1)
)
UNSAFE = frozenset(
    [
        *map(chr, range(0x20)),
        *map(chr, range(0x7F, 0xA0)),
        *BIDI_CONTROLS,
        *LINE_SEPARATORS,
        *DEFAULT_IGNORABLE,
    ]
)


def visible_escape(char: str) -> str:
    """One character as its visible escape: ``\\x1b`` below U+0020, ``\\u202e`` up to U+FFFF,
    and its UTF-16 pair above (``\\udb40\\udc41``, which JSON reads back as the same one)."""
    code = ord(char)
    if code < 0x20:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"


def has_invisible(text: str) -> bool:
    """Whether ``text`` holds a character that displays as nothing (``DEFAULT_IGNORABLE``) or
    reorders what is shown (``BIDI_CONTROLS``)."""
    return any(c in DEFAULT_IGNORABLE or c in BIDI_CONTROLS for c in text)


# str.translate tables (code point -> its escape): one pass at C speed, and no regular expression
# to compile when the module loads, which it does before an audit's first launch
_ESCAPES = {ord(c): visible_escape(c) for c in UNSAFE}
_ESCAPES_KEEP_NEWLINE = {code: text for code, text in _ESCAPES.items() if code != ord("\n")}
ZERO_WIDTH_JOINER = "\u200d"  # the mark the Markdown boundary itself puts in (escaping.markdown)
_ESCAPES_DOCUMENT = {
    code: text for code, text in _ESCAPES_KEEP_NEWLINE.items() if code != ord(ZERO_WIDTH_JOINER)
}


def is_unsafe(char: str) -> bool:
    """Whether a terminal or log must never receive ``char`` raw from untrusted text."""
    return char in UNSAFE


def terminal_line(value: object) -> str:
    """``str(value)`` (None as empty) for one line of a terminal or log: every control character,
    line break and bidi control escaped visibly."""
    text = "" if value is None else str(value)
    return text.translate(_ESCAPES)


def terminal_text(text: str) -> str:
    """Text of several lines for a terminal or log: as ``terminal_line`` but ``\\n`` kept."""
    return text.translate(_ESCAPES_KEEP_NEWLINE)


# ESC [ ... final byte (CSI: colours, cursor moves), ESC ] ... BEL or ESC \ (OSC: titles, links),
# ESC and one more character (other two-byte sequences), and the 8-bit CSI
_TERMINAL_CODES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?"
)


def without_terminal_codes(text: str) -> str:
    """``text`` without the escape sequences a program writes for a terminal (colours, cursor
    moves, titles, hyperlinks): the words are kept, the codes dropped."""
    return _TERMINAL_CODES.sub("", text) if "\x1b" in text or "\x9b" in text else text


def document_text(text: str) -> str:
    """A whole document a renderer wrote, for a terminal (the CLI's streams): as
    ``terminal_text`` but the zero-width joiner kept, which the Markdown boundary puts after
    ``@``, ``#`` and ``https`` so nothing links; every untrusted value in it was escaped where
    it was formatted (``terminal_line``, ``escaping.markdown.one_line``), its own joiners too."""
    return text.translate(_ESCAPES_DOCUMENT)
