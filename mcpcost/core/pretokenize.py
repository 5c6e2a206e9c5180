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
from functools import cache
from typing import Any

from mcpcost.core.bundled import bundled_path

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


def load_class_tables() -> dict[str, Any]:
    """The bundled class tables: ``{"unicode": "17.0", "classes": {name: [[lo, hi], ...]}}``."""
    with open(bundled_path(CLASSES_FILE), encoding="utf-8") as handle:
        text = handle.read()
    data: dict[str, Any] = json.loads(text)
    return data


class JsSplitter:
    """Splits text into the pieces a JavaScript engine's o200k_base pattern finds."""

    def __init__(self, classes: dict[str, list[list[int]]]) -> None:
        self.classes = classes
        self._starts = {name: [lo for lo, _ in classes[name]] for name in CLASS_NAMES}
        self._signature_of: dict[str, int] = {}
        self._lock = threading.Lock()
        # Every possible signature gets a representative up front, so the pattern never changes.
        self._signatures = [signature_of_mask(m) for m in SIGNATURES]
        self._pattern = re.compile(self._build_pattern())

    def member(self, name: str, cp: int) -> bool:
        i = bisect.bisect_right(self._starts[name], cp) - 1
        return i >= 0 and cp <= self.classes[name][i][1]

    def signature(self, cp: int) -> tuple[bool, ...]:
        return tuple(self.member(name, cp) for name in CLASS_NAMES)

    def _class(self, name: str) -> str:
        bit = CLASS_NAMES.index(name)
        members = [chr(c) for c in range(0x80) if self.member(name, c)]
        members += [ch for ch in sorted(LITERAL_NON_ASCII) if self.member(name, ord(ch))]
        members += [
            chr(_REPRESENTATIVE_BASE + i) for i, sig in enumerate(self._signatures) if sig[bit]
        ]
        return "".join(re.escape(m) for m in members)

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

    Building it needs only the ASCII members of each class, not the class signatures of the
    whole code space, so it is cheap enough for a process that counts one small document.
    """
    classes = load_class_tables()["classes"]
    bodies: dict[str, str] = {}
    for name in CLASS_NAMES:
        members: list[str] = []
        for lo, hi in classes[name]:
            if lo >= 0x80:
                break  # ranges are sorted
            members += (chr(c) for c in range(lo, min(hi, 0x7F) + 1))
        bodies[name] = "".join(re.escape(m) for m in members)
    return re.compile(pattern_from_classes(bodies))


@cache
def js_splitter() -> JsSplitter:
    """The process-wide splitter, built from the bundled tables on first use."""
    return JsSplitter(load_class_tables()["classes"])
