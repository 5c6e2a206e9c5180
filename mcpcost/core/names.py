"""The rule for a result name: a server's name where it becomes a path.

A name becomes ``results/<name>/measurement.json`` and ``badges/<name>.json``. It may hold letters
of either case, digits, ``.``, ``_`` and ``-`` (the characters the reference accepts), at most
``MAX_NAME_LENGTH`` of them, and may not be ``.`` or ``..`` nor one of ``RESERVED_NAMES``, the
files a published tree keeps beside the results (``results/history.csv``, ``results/data.json``...)
and the index of the server pages (``docs/servers/index.md``), compared case-folded. Names are checked only where they
become a path; as a label (a summary line, ``serverName``) any text is kept as given. Two names
that differ only in case would share a directory on a case-insensitive file system, so
collections of names compare them case-folded (``name_key``).
"""

from __future__ import annotations

import re

MAX_NAME_LENGTH = 100
_NAME = re.compile(r"[A-Za-z0-9._-]+")
NAME_RULE = "letters, digits, '.', '_' and '-', at most 100, not '.' or '..'"
# ``results/<file>`` and ``docs/servers/<name>.md`` a publish writes for the tree as a whole: a
# result of that name would be a directory where the file goes (tests/unit/test_names_reserved.py
# checks this list against a published tree).
RESERVED_NAMES = frozenset(
    {
        *("history.csv", "data.json", "not-yet-run.json", "calibration.json", "estimator.json"),
        *(
            "leaderboard.md",
            "leaderboard.csv",
            "divergence.json",
            "divergence-openai.json",
            "index",
        ),
    }
)


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot become a path, or None when it can."""
    if not name:
        return "is empty"
    if len(name) > MAX_NAME_LENGTH:
        return f"is longer than {MAX_NAME_LENGTH} characters"
    if not _NAME.fullmatch(name):
        bad = sorted({c for c in name if not _NAME.fullmatch(c)})
        return "holds " + ", ".join(repr(c) for c in bad) + f" (use {NAME_RULE})"
    if name in (".", ".."):
        return f"is {name!r}, which names a directory itself"
    if name_key(name) in RESERVED_NAMES:
        return f"is {name!r}, a file the published tree keeps"
    return None


def name_key(name: str) -> str:
    """The form two names are compared in for collisions (case-folded)."""
    return name.casefold()
