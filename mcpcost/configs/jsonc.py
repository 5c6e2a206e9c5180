"""JSON with comments and trailing commas, as VS Code, Zed and hand-edited configs write it.

Comments and trailing commas are blanked out with spaces (newlines kept), so the text handed to
the strict parser has the same length and line layout as the original: every error position is
a line and column of the file the user wrote. ``key_lines`` maps each key path to its line, for
annotations.
"""

from __future__ import annotations

import bisect
import json
import re

from mcpcost.core.jsonvalue import JSONValue, parse_json
from mcpcost.errors import JSONSyntaxError

KeyPath = tuple[str | int, ...]


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


_STRIP_TOKEN = re.compile(
    r'"(?:[^"\\\n]|\\.)*"?'  # a string (an unterminated one stops at the line end)
    r"|//[^\n]*"  # a line comment
    r"|/\*[\s\S]*?\*/"  # a block comment
    r"|(?P<open>/\*)"  # a block comment never closed
    r"|[,}\]]"  # commas and closers
    r'|[^\s"/,}\]]+|/'  # anything else significant
)
_NOT_NEWLINE = re.compile(r"[^\r\n]")


def strip_jsonc(text: str) -> str:
    """``text`` with comments and trailing commas turned into spaces; same length and lines.

    Raises JSONSyntaxError for an unterminated block comment (position of its opening).
    """
    blanks: list[tuple[int, int]] = []  # ranges to turn into spaces (newlines kept)
    start_at = 0
    if text.startswith("\ufeff"):
        blanks.append((0, 1))
        start_at = 1
    last_comma = -1  # index of a comma with only whitespace/comments after it so far
    previous = ""  # the last significant character so far
    for m in _STRIP_TOKEN.finditer(text, start_at):
        tok = m.group(0)
        if m.group("open") is not None:
            line, col = _position(text, m.start())
            raise JSONSyntaxError(f"unterminated comment at line {line} column {col}")
        if tok.startswith(("//", "/*")):
            blanks.append((m.start(), m.end()))
            continue
        if tok == ",":
            # a comma after a value may trail; one after "{", "[", ",", ":" stays an error
            last_comma = m.start() if previous not in ("", "{", "[", ",", ":") else -1
        elif tok in ("}", "]"):
            if last_comma >= 0:
                blanks.append((last_comma, last_comma + 1))
            last_comma = -1
        else:
            last_comma = -1
        previous = tok[-1]
    if not blanks:
        return text
    pieces: list[str] = []
    done = 0
    for start, end in sorted(blanks):
        pieces.append(text[done:start])
        pieces.append(_NOT_NEWLINE.sub(" ", text[start:end]))
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


def parse_jsonc(text: str) -> JSONValue:
    """Parse JSONC with ECMAScript JSON.parse semantics; errors name original line/column."""
    return parse_json(strip_jsonc(text))


class _LineIndex:
    def __init__(self, text: str) -> None:
        self._starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]

    def line(self, index: int) -> int:
        return bisect.bisect_right(self._starts, index)


_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[{}\[\],]')


def key_lines(text: str, *, max_depth: int = 6) -> dict[KeyPath, int]:
    """1-based line of every object key and every container array element, by key path.

    ``text`` must be valid JSONC (parse it first). A duplicate key keeps its last position, as
    JSON.parse keeps the last value. Paths deeper than ``max_depth`` are not recorded (a large
    ``~/.claude.json`` holds whole chat histories nobody needs a line for).
    """
    return key_lines_clean(strip_jsonc(text), max_depth=max_depth)


def key_lines_clean(clean: str, *, max_depth: int = 6) -> dict[KeyPath, int]:
    """``key_lines`` of text already passed through ``strip_jsonc``."""
    lines = _LineIndex(clean)
    out: dict[KeyPath, int] = {}
    # parallel stacks: container kind ("{" or "["), its path, current key/index, expecting a key
    kinds: list[str] = []
    paths: list[KeyPath] = []
    current: list[str | int] = []
    want_key: list[bool] = []
    for m in _TOKEN.finditer(clean):
        tok = m.group(0)
        c = tok[0]
        if c == '"':
            if kinds and want_key[-1]:
                want_key[-1] = False
                if len(kinds) <= max_depth:
                    key = json.loads(tok)
                    current[-1] = key
                    out[(*paths[-1], key)] = lines.line(m.start())
            continue
        if c == "{" or c == "[":
            path: KeyPath = ()
            if kinds:
                path = (*paths[-1], current[-1])
                if kinds[-1] == "[" and len(kinds) <= max_depth:
                    out[path] = lines.line(m.start())
            kinds.append(c)
            paths.append(path)
            current.append(0 if c == "[" else "")
            want_key.append(c == "{")
        elif c == "}" or c == "]":
            if kinds:
                kinds.pop()
                paths.pop()
                current.pop()
                want_key.pop()
        elif kinds:  # ","
            if kinds[-1] == "{":
                want_key[-1] = True
            else:
                index = current[-1]
                assert isinstance(index, int)
                current[-1] = index + 1
    return out
