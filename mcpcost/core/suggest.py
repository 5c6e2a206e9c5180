"""Did-you-mean: the known word a mistyped one most likely meant (flags, commands, config keys)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CLOSENESS = 0.75  # difflib's ratio below which two words are taken as unrelated


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """The choice equal to ``word`` but for case, else the closest above ``CLOSENESS``."""
    known = [c for c in dict.fromkeys(choices) if c != word]
    same = [c for c in known if c.casefold() == word.casefold()]
    if same:
        return same[0]

    close = difflib.get_close_matches(word, known, n=1, cutoff=CLOSENESS)
    return close[0] if close else None


def slip_among(expected: Iterable[str], present: Iterable[str]) -> tuple[str, str] | None:
    """(a present word, the expected one it looks like a slip for), the closest pair first."""
    wanted = list(dict.fromkeys(expected))
    best: tuple[float, str, str] | None = None
    for word in present:
        if word in wanted:
            continue
        meant = did_you_mean(word, wanted)
        if meant is None:
            continue

        score = (
            2.0
            if meant.casefold() == word.casefold()
            else difflib.SequenceMatcher(None, word, meant).ratio()
        )
        if best is None or score > best[0]:
            best = (score, word, meant)
    return (best[1], best[2]) if best else None
