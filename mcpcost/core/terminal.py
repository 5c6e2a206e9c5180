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
* ``terminal_line`` escapes line breaks too (one untrusted value cannot forge a second line);
  ``terminal_text`` keeps ``\\n`` (for whole documents written by a trusted renderer).

Both forms are also valid JSON string escapes for the same character, so a JSON document passed
through ``terminal_text`` still parses to the same value.
"""

from __future__ import annotations

import re

BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
LINE_SEPARATORS = frozenset("\u2028\u2029")
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
_UNSAFE_KEEP_NEWLINE = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]"
)


def visible_escape(char: str) -> str:
    """One character as its visible escape: ``\\x1b`` below U+0020, ``\\u202e`` otherwise."""
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x20 else f"\\u{code:04x}"


def is_unsafe(char: str) -> bool:
    """Whether a terminal or log must never receive ``char`` raw from untrusted text."""
    return _UNSAFE.match(char) is not None


def terminal_line(value: object) -> str:
    """``str(value)`` (None as empty) for one line of a terminal or log: every control character,
    line break and bidi control escaped visibly."""
    text = "" if value is None else str(value)
    return _UNSAFE.sub(lambda m: visible_escape(m.group()), text)


def terminal_text(text: str) -> str:
    """Text of several lines for a terminal or log: as ``terminal_line`` but ``\\n`` kept."""
    return _UNSAFE_KEEP_NEWLINE.sub(lambda m: visible_escape(m.group()), text)
