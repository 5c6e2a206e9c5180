"""o200k_base's pre-tokenising split, as a JavaScript RegExp performs it.

The split pattern names Unicode character classes (``\\p{L}``, ``\\p{N}``, ``\\p{Lu}``...,
``\\s``). Which code points fall in them depends on the Unicode version of the regular-expression
engine, and ``\\s`` differs between engines (ECMAScript's includes U+FEFF and excludes U+0085).
The reference counts with js-tiktoken, whose split is Node.js's RegExp, so the class memberships
here come from Node itself (Unicode 17.0, ``data/o200k-js-classes.json``) rather than from the
tables of whatever Python package happens to be installed.

Matching against classes of thousands of ranges is slow in any Python engine, so the split works
on a stand-in text: every non-ASCII character is replaced by a private-use representative of its
*class signature* (which of the pattern's classes it belongs to). Characters with the same
signature are interchangeable for this pattern, the replacement is one code point for one, and
the pattern's classes shrink to ASCII plus a few representatives. Pieces are then cut from the
original text at the positions found in the stand-in.
"""

from __future__ import annotations

import bisect
import json
import re
import threading
from collections.abc import Callable
from functools import cache
from typing import Any

from mcpcost.core.bundled import read_bundled_text

CLASSES_FILE = "o200k-js-classes.json"
CLASS_NAMES = ("L", "N", "Lu", "Lt", "Lm", "Lo", "M", "Ll", "s")
CONTRACTIONS = "(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
# Non-ASCII characters the pattern can match literally: under (?i), U+017F (long s) folds to "s".
LITERAL_NON_ASCII = frozenset({"\u017f"})
_REPRESENTATIVE_BASE = 0xF0000  # Supplementary Private Use Area-A: no case folding, no class
# The distinct class signatures of the non-ASCII code points in the bundled tables, in code-point
# order of first appearance, each as a bit mask over CLASS_NAMES (bit 0 is L). They follow from
# the tables (``derive_signatures``; a test checks they agree) and are written out here because
# the sweep costs more than the rest of building the splitter.
SIGNATURES = (0, 256, 33, 2, 129, 5, 9, 17, 64)
# Each class's members among the characters the pattern matches literally (ASCII and
# LITERAL_NON_ASCII). They too follow from the tables (``derive_literal_members``; a test checks
# they agree) and are written out, so that building either pattern reads no tables: only finding
# a non-ASCII character's signature does, and all-ASCII text never needs one.
LITERAL_MEMBERS: dict[str, str] = {
    "L": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\u017f",
    "N": "0123456789",
    "Lu": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "Lt": "",
    "Lm": "",
    "Lo": "",
    "M": "",
    "Ll": "abcdefghijklmnopqrstuvwxyz\u017f",
    "s": "\t\n\x0b\x0c\r ",
}


def load_class_tables() -> dict[str, Any]:
    """The bundled class tables: ``{"unicode": "17.0", "classes": {name: [[lo, hi], ...]}}``."""
    data: dict[str, Any] = json.loads(read_bundled_text(CLASSES_FILE))
    return data


class JsSplitter:
    """Splits text into the pieces a JavaScript engine's o200k_base pattern finds."""

    def __init__(
        self, load_classes: Callable[[], dict[str, list[list[int]]]] | None = None
    ) -> None:
        self._load_classes = load_classes or (lambda: load_class_tables()["classes"])
        self._classes: dict[str, list[list[int]]] | None = None
        self._starts: dict[str, list[int]] = {}
        self._signature_of: dict[str, int] = {}
        self._lock = threading.Lock()
        # Every possible signature gets a representative up front, so the pattern never changes.
        self._signatures = [signature_of_mask(m) for m in SIGNATURES]
        self._pattern = re.compile(self._build_pattern())

    @property
    def classes(self) -> dict[str, list[list[int]]]:
        """The class tables: ``{name: [[lo, hi], ...]}``, read on first need."""
        if self._classes is None:
            with self._lock:
                if self._classes is None:
                    classes = self._load_classes()
                    self._starts = {name: [lo for lo, _ in classes[name]] for name in CLASS_NAMES}
                    self._classes = classes
        return self._classes

    def read_tables(self) -> None:
        """Read the class tables now rather than at the first non-ASCII character."""
        self.classes  # noqa: B018 - the property reads and keeps them

    def member(self, name: str, cp: int) -> bool:
        ranges = self.classes[name]
        i = bisect.bisect_right(self._starts[name], cp) - 1
        return i >= 0 and cp <= ranges[i][1]

    def signature(self, cp: int) -> tuple[bool, ...]:
        return tuple(self.member(name, cp) for name in CLASS_NAMES)

    def _class(self, name: str) -> str:
        bit = CLASS_NAMES.index(name)
        members = [re.escape(m) for m in LITERAL_MEMBERS[name]]
        members += [
            chr(_REPRESENTATIVE_BASE + i) for i, sig in enumerate(self._signatures) if sig[bit]
        ]
        return "".join(members)

    def _build_pattern(self) -> str:
        return pattern_from_classes({name: self._class(name) for name in CLASS_NAMES})

    def _translation(self, text: str) -> dict[int, int]:
        table: dict[int, int] = {}
        cache_ = self._signature_of
        for ch in set(text):
            if ch.isascii() or ch in LITERAL_NON_ASCII:
                continue
            index = cache_.get(ch)
            if index is None:
                index = self._signatures.index(self.signature(ord(ch)))
                with self._lock:
                    if len(cache_) > 200_000:
                        cache_.clear()
                    cache_[ch] = index
            table[ord(ch)] = _REPRESENTATIVE_BASE + index
        return table

    def split(self, text: str) -> list[str]:
        """The pieces, in order; they concatenate back to ``text``."""
        stand_in = text.translate(self._translation(text)) if not text.isascii() else text
        return [text[m.start() : m.end()] for m in self._pattern.finditer(stand_in)]


def signature_of_mask(mask: int) -> tuple[bool, ...]:
    return tuple(bool(mask >> bit & 1) for bit in range(len(CLASS_NAMES)))


def derive_literal_members(classes: dict[str, list[list[int]]]) -> dict[str, str]:
    """Each class's members among ASCII and LITERAL_NON_ASCII, from the tables."""
    literal = [chr(c) for c in range(0x80)] + sorted(LITERAL_NON_ASCII)

    def member(name: str, ch: str) -> bool:
        return any(lo <= ord(ch) <= hi for lo, hi in classes[name])

    return {name: "".join(ch for ch in literal if member(name, ch)) for name in CLASS_NAMES}


def derive_signatures(classes: dict[str, list[list[int]]]) -> tuple[int, ...]:
    """The distinct signatures of all non-ASCII code points as masks over CLASS_NAMES, in
    code-point order of first appearance: one sweep over the range boundaries, where memberships
    can change. A class's ranges are disjoint, so its membership is one bit of the mask."""
    events: list[tuple[int, int]] = [(0x80, 0)]
    for bit, name in enumerate(CLASS_NAMES):
        for lo, hi in classes[name]:
            events.append((lo, 1 << bit))
            events.append((hi + 1, -(1 << bit)))
    events.sort()
    masks: dict[int, None] = {}
    mask, i, n = 0, 0, len(events)
    while i < n:
        cp = events[i][0]
        while i < n and events[i][0] == cp:
            mask += events[i][1]
            i += 1
        if 0x80 <= cp <= 0x10FFFF:
            masks.setdefault(mask, None)
    return tuple(masks)


def pattern_from_classes(c: dict[str, str]) -> str:
    """o200k_base's split pattern over character-class bodies (escaped members, no brackets)."""
    upper = c["Lu"] + c["Lt"] + c["Lm"] + c["Lo"] + c["M"]
    lower = c["Ll"] + c["Lm"] + c["Lo"] + c["M"]
    letters_digits = c["L"] + c["N"]
    ws = c["s"]

    return "|".join(
        [
            rf"[^\r\n{letters_digits}]?[{upper}]*[{lower}]+{CONTRACTIONS}",
            rf"[^\r\n{letters_digits}]?[{upper}]+[{lower}]*{CONTRACTIONS}",
            rf"[{c['N']}]{{1,3}}",
            rf" ?[^{ws}{letters_digits}]+[\r\n/]*",
            rf"[{ws}]*[\r\n]+",
            rf"[{ws}]+(?![^{ws}])",
            rf"[{ws}]+",
        ]
    )


@cache
def ascii_split_pattern() -> re.Pattern[str]:
    """The split pattern for text that is entirely ASCII: the same classes restricted to ASCII.
    It matches faster than the splitter's pattern, whose classes hold the representatives."""
    bodies = {
        name: "".join(re.escape(ch) for ch in members if ch.isascii())
        for name, members in LITERAL_MEMBERS.items()
    }
    return re.compile(pattern_from_classes(bodies))


@cache
def js_splitter() -> JsSplitter:
    """The process-wide splitter; the bundled tables are read the first time a character
    outside ASCII needs its class signature."""
    return JsSplitter()
