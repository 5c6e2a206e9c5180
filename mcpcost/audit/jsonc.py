"""JSON with comments and trailing commas, as VS Code, Zed and hand-edited configs write it.

Comments and trailing commas are blanked out with spaces (newlines kept), so the text handed to
the strict parser has the same length and line layout as the original: every error position is
a line and column of the file the user wrote. ``key_lines`` maps each key path to its line, for
annotations.
"""

from __future__ import annotations

import bisect
import json

from mcpcost.core.jsonvalue import JSONValue, parse_json
from mcpcost.errors import JSONSyntaxError

KeyPath = tuple[str | int, ...]


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _string_end(text: str, start: int) -> int:
    """Index just past the string literal opening at ``start`` (or len(text) if unterminated)."""
    i = start + 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == '"' or c == "\n":
            return i + 1
        i += 1
    return n


def _blank(chars: list[str], start: int, end: int) -> None:
    for k in range(start, end):
        if chars[k] not in "\r\n":
            chars[k] = " "


def strip_jsonc(text: str) -> str:
    """``text`` with comments and trailing commas turned into spaces; same length and lines.

    Raises JSONSyntaxError for an unterminated block comment (position of its opening).
    """
    chars = list(text)
    if chars and chars[0] == "\ufeff":
        chars[0] = " "
    n = len(text)
    i = 0
    last_comma = -1  # index of a comma with only whitespace/comments after it so far
    previous = ""  # the last significant character before the current one
    while i < n:
        c = text[i]
        if c == '"':
            i = _string_end(text, i)
            last_comma = -1
            previous = '"'
            continue
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            end = text.find("\n", i)
            end = n if end < 0 else end
            _blank(chars, i, end)
            i = end
            continue
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            end = text.find("*/", i + 2)
            if end < 0:
                line, col = _position(text, i)
                raise JSONSyntaxError(f"unterminated comment at line {line} column {col}")
            _blank(chars, i, end + 2)
            i = end + 2
            continue
        if c == ",":
            # a comma after a value may trail; one after "{", "[", ",", ":" stays an error
            last_comma = i if previous not in ("", "{", "[", ",", ":") else -1
        elif c in "}]":
            if last_comma >= 0:
                chars[last_comma] = " "
            last_comma = -1
        elif c not in " \t\r\n\ufeff":
            last_comma = -1
        if c not in " \t\r\n\ufeff":
            previous = c
        i += 1
    return "".join(chars)


def parse_jsonc(text: str) -> JSONValue:
    """Parse JSONC with ECMAScript JSON.parse semantics; errors name original line/column."""
    return parse_json(strip_jsonc(text))


class _LineIndex:
    def __init__(self, text: str) -> None:
        self._starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]

    def line(self, index: int) -> int:
        return bisect.bisect_right(self._starts, index)


def key_lines(text: str) -> dict[KeyPath, int]:
    """1-based line of every object key and every container array element, by key path.

    ``text`` must be valid JSONC (parse it first). A duplicate key keeps its last position, as
    JSON.parse keeps the last value.
    """
    clean = strip_jsonc(text)
    lines = _LineIndex(clean)
    out: dict[KeyPath, int] = {}
    # each frame: [is_object, path, current key or index, expecting_key]
    stack: list[list[object]] = []
    n = len(clean)
    i = 0

    def child_path() -> KeyPath:
        frame = stack[-1]
        path = frame[1]
        assert isinstance(path, tuple)
        key = frame[2]
        assert isinstance(key, str | int)
        return (*path, key)

    while i < n:
        c = clean[i]
        if c == '"':
            end = _string_end(clean, i)
            if stack and stack[-1][0] and stack[-1][3]:
                key = json.loads(clean[i:end])
                stack[-1][2] = key
                stack[-1][3] = False
                out[child_path()] = lines.line(i)
            i = end
            continue
        if c in "{[":
            path: KeyPath = ()
            if stack:
                path = child_path()
                if not stack[-1][0]:
                    out[path] = lines.line(i)
            stack.append([c == "{", path, 0 if c == "[" else "", c == "{"])
        elif c in "}]":
            if stack:
                stack.pop()
        elif c == "," and stack:
            frame = stack[-1]
            if frame[0]:
                frame[3] = True
            else:
                index = frame[2]
                assert isinstance(index, int)
                frame[2] = index + 1
        i += 1
    return out
