"""ECMAScript-faithful JSON: ``JSON.parse`` and ``JSON.stringify`` semantics in Python.

The published number is defined over ``JSON.stringify(JSON.parse(wire_text))`` as a JavaScript
engine computes it. Python's ``json`` module differs in ways that change bytes (and therefore the
hash and the token count): it keeps ``1.0`` where JavaScript prints ``1``, accepts ``NaN``, keeps
integers exact past 2**53, escapes differently and orders integer-like keys as written. This
module reproduces the JavaScript behaviour:

* parsing: strict JSON (RFC 8259 grammar), duplicate keys keep their first position and take the
  last value, every number is an IEEE-754 double (integral doubles below 2**53 are returned as
  ``int`` for convenience; the value is identical), a leading BOM is an error;
* serialising: keys that are array indices (canonical decimal integers 0 .. 2**32-2) come first in
  ascending numeric order, then the rest in insertion order; numbers print as
  ``Number.prototype.toString`` does; strings escape only ``"``, ``\\``, control characters and
  lone surrogates; non-finite numbers print ``null``.

Values are plain Python objects: ``dict`` (str keys), ``list``, ``str``, ``int``, ``float``,
``bool`` and ``None``.

One depth limit, ``MAX_DEPTH``, applies to everything parsed: a value nested deeper (the outermost
object or array is level 1) is refused with ``JSONTooDeep`` before any parsing, so no later step
(serialising, hashing, rendering) can run out of stack on it, whichever command or thread runs it.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Callable
from typing import Any, NoReturn, TypeAlias

from mcpcost.errors import JSONSyntaxError, JSONTooDeep

JSONValue: TypeAlias = Any
"""A parsed JSON value (dict, list, str, int, float, bool or None)."""

_MAX_SAFE = 2**53
MAX_DEPTH = 512
_ARRAY_INDEX_MAX = 2**32 - 2


def _number_from_float_text(text: str) -> int | float:
    value = float(text)
    if value.is_integer() and abs(value) < _MAX_SAFE:
        # -0 becomes 0 here; JSON.stringify prints both as "0".
        return int(value)
    return value


def _number_from_int_text(text: str) -> int | float:
    if len(text) < 16:  # at most 15 digits (plus sign): always exactly representable
        return int(text)
    return _number_from_float_text(text)


def _reject_constant(name: str) -> NoReturn:
    raise JSONSyntaxError(f"unexpected token {name!r}: not valid JSON")


# Objects are built by the decoder itself, one assignment per member in order: a repeated key
# keeps its first position and takes the last value, exactly what JSON.parse does through
# CreateDataProperty (and at C speed, where a pairs hook cost 40% of parsing a tools list).
_DECODER = json.JSONDecoder(
    parse_float=_number_from_float_text,
    parse_int=_number_from_int_text,
    parse_constant=_reject_constant,
    strict=True,
)


def decode_wire_bytes(data: bytes) -> str:
    """Decode wire bytes as a JavaScript engine reading UTF-8 would (bad bytes become U+FFFD)."""
    return data.decode("utf-8", errors="replace")


_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_DROP_ASCII_NON_BRACKETS = str.maketrans(
    "", "", "".join(chr(i) for i in range(128) if chr(i) not in "[]{}")
)
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def nesting_depth_exceeds(text: str, limit: int = MAX_DEPTH) -> bool:
    """True when ``text`` opens more than ``limit`` arrays/objects inside one another.

    Brackets inside strings do not count. Runs at C speed: escape pairs are dropped, so the text
    splits on quotes into outside/inside runs; the outside runs keep only their brackets, and the
    running depth is accumulated. (For text that is not JSON the answer may be off; parsing then
    fails anyway.)
    """
    if text.count("[") + text.count("{") <= limit:
        return False
    unescaped = text.replace("\\\\", "").replace('\\"', "")
    outside = "".join(unescaped.split('"')[0::2])
    brackets = outside.translate(_DROP_ASCII_NON_BRACKETS)
    if not brackets.isascii():
        brackets = _NOT_BRACKETS.sub("", brackets)
    return max(itertools.accumulate(map(_STEP.__getitem__, brackets)), default=0) > limit


def parse_json(text: str | bytes) -> JSONValue:
    """Parse ``text`` exactly as ECMAScript ``JSON.parse`` would, or raise JSONSyntaxError.

    Valid JSON nested deeper than ``MAX_DEPTH`` raises ``JSONTooDeep``.
    """
    if isinstance(text, bytes | bytearray):
        text = decode_wire_bytes(bytes(text))
    if text.startswith("\ufeff"):
        raise JSONSyntaxError("unexpected byte order mark at position 0: not valid JSON")
    if nesting_depth_exceeds(text):
        raise JSONTooDeep(f"nested deeper than {MAX_DEPTH} levels, the limit mcpcost parses")
    try:
        value, end = _DECODER.raw_decode(text, _skip_ws(text, 0))
    except json.JSONDecodeError as exc:
        raise JSONSyntaxError(f"{exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:  # only when called with nearly the whole stack already in use
        raise JSONTooDeep(f"JSON nested too deep to parse here (limit {MAX_DEPTH})") from None
    end = _skip_ws(text, end)
    if end != len(text):
        line = text.count("\n", 0, end) + 1
        col = end - text.rfind("\n", 0, end)
        raise JSONSyntaxError(f"unexpected data after JSON value at line {line} column {col}")
    return value


_WS = re.compile(r"[ \t\n\r]*")


def _skip_ws(text: str, pos: int) -> int:
    match = _WS.match(text, pos)
    return match.end() if match else pos


# ---------------------------------------------------------------------------------------------
# Serialising


def number_to_string(value: float | int) -> str:
    """ECMAScript ``Number::toString(value)`` for a finite double (``NaN``/``Infinity`` too)."""
    if isinstance(value, int):
        if abs(value) < _MAX_SAFE:
            return str(value)
        value = float(value)  # precision is lost exactly as in JavaScript
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    digits, exponent = _shortest_digits(abs(value))
    k = len(digits)
    n = exponent  # value = 0.digits * 10**n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"


def _shortest_digits(value: float) -> tuple[str, int]:
    """Shortest round-trip decimal digits of a positive double and n with value = 0.d * 10**n."""
    text = repr(value)  # Python's repr is the shortest string that round-trips
    mantissa, _, exp_text = text.partition("e")
    exp = int(exp_text) if exp_text else 0
    int_part, _, frac_part = mantissa.partition(".")
    if frac_part == "0":
        frac_part = ""
    digits = (int_part + frac_part).lstrip("0")
    leading_zeros = len(int_part + frac_part) - len((int_part + frac_part).lstrip("0"))
    n = len(int_part) + exp - leading_zeros
    digits = digits.rstrip("0")
    return digits, n


_ESCAPE_RE = re.compile('[\\x00-\\x1f"\\\\\ud800-\udfff]')
_SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def _escape_char(match: re.Match[str]) -> str:
    ch = match.group()
    short = _SHORT_ESCAPES.get(ch)
    if short is not None:
        return short
    return f"\\u{ord(ch):04x}"


def quote_string(text: str) -> str:
    """``JSON.stringify(text)`` for a string: only ``"``, ``\\``, controls and lone surrogates."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return '"' + text + '"'  # the usual name or sentence: nothing to escape
    return '"' + _ESCAPE_RE.sub(_escape_char, text) + '"'


def _is_array_index(key: str) -> bool:
    if not key or len(key) > 10 or not key.isascii() or not key.isdigit():
        return False
    if key[0] == "0" and len(key) > 1:
        return False
    return int(key) <= _ARRAY_INDEX_MAX


def ordered_items(obj: dict[str, Any]) -> list[tuple[str, Any]]:
    """Own enumerable properties in ECMAScript order: array indices ascending, then the rest."""
    items = list(obj.items())
    if not any(_is_array_index(k) for k, _ in items):
        return items
    indices = sorted(((k, v) for k, v in items if _is_array_index(k)), key=lambda kv: int(kv[0]))
    return indices + [(k, v) for k, v in items if not _is_array_index(k)]


def _scalar(value: Any) -> str | None:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return quote_string(value)
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            return "null"
        return number_to_string(value)
    return None


def stringify(value: JSONValue) -> str:
    """``JSON.stringify(value)`` with no indentation."""
    parts: list[str] = []
    _write_compact(value, parts.append)
    return "".join(parts)


def object_text(members: dict[str, str]) -> str:
    """``JSON.stringify`` of an object from its members' texts (keys in ECMAScript order)."""
    return "{" + ",".join(f"{quote_string(k)}:{v}" for k, v in members.items()) + "}"


def array_text(items: list[str]) -> str:
    """``JSON.stringify`` of an array from its elements' texts."""
    return "[" + ",".join(items) + "]"


def member_texts(obj: dict[str, Any]) -> dict[str, str]:
    """Each member's ``JSON.stringify`` text, keys in ECMAScript order: with ``object_text`` the
    object's text, serialising each member once for callers that need both."""
    return {key: stringify(value) for key, value in ordered_items(obj)}


def _write_compact(value: Any, emit: Callable[[str], Any]) -> None:
    scalar = _scalar(value)
    if scalar is not None:
        emit(scalar)
        return
    if isinstance(value, dict):
        emit("{")
        first = True
        for key, item in ordered_items(value):
            if not isinstance(key, str):
                raise TypeError(f"object keys must be strings, got {type(key).__name__}")
            if not first:
                emit(",")
            first = False
            emit(quote_string(key))
            emit(":")
            _write_compact(item, emit)
        emit("}")
        return
    if isinstance(value, list | tuple):
        emit("[")
        for i, item in enumerate(value):
            if i:
                emit(",")
            _write_compact(item, emit)
        emit("]")
        return
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def stringify_pretty(value: JSONValue, indent: int = 2) -> str:
    """``JSON.stringify(value, null, indent)``: the layout of a published measurement.json."""
    parts: list[str] = []
    _write_pretty(value, parts.append, " " * indent, "")
    return "".join(parts)


def _write_pretty(value: Any, emit: Callable[[str], Any], step: str, current: str) -> None:
    scalar = _scalar(value)
    if scalar is not None:
        emit(scalar)
        return
    inner = current + step
    if isinstance(value, dict):
        items = ordered_items(value)
        if not items:
            emit("{}")
            return
        emit("{\n")
        for i, (key, item) in enumerate(items):
            if i:
                emit(",\n")
            emit(inner + quote_string(key) + ": ")
            _write_pretty(item, emit, step, inner)
        emit("\n" + current + "}")
        return
    if isinstance(value, list | tuple):
        if not value:
            emit("[]")
            return
        emit("[\n")
        for i, item in enumerate(value):
            if i:
                emit(",\n")
            emit(inner)
            _write_pretty(item, emit, step, inner)
        emit("\n" + current + "]")
        return
    raise TypeError(f"not a JSON value: {type(value).__name__}")
