"""Third-party text made inert for Markdown and HTML (pure).

Server names, tool names, failure notes and config paths come from people we do not trust: a PR's
config, a registry entry, a server's own answer. Every renderer of Markdown (the Action's comment
and summary, ``audit --markdown``, the sweep's pages) passes such text through this module.

* ``one_line``: line breaks and runs of white space folded to one space.
* ``truncate``: at most ``limit`` characters, an ellipsis marking a cut, never ending on a lone
  backslash (which would escape the ellipsis or the cell's closing pipe).
* ``escape_html``: ``&``, ``<``, ``>`` and quotes as entities.
* ``neutralize_mentions``: ``@name`` and ``#123`` broken with a zero-width joiner so GitHub links
  and notifies no one.
* ``md_text``: text for a table cell or a line of prose: one line, Markdown's active characters
  backslash-escaped (so no HTML, links, code or cell breaks), mentions optionally neutralised.
* ``code_text`` / ``code_span``: text for inside an inline code span, where backslashes are
  literal: backticks become apostrophes and pipes are escaped for the table parser.
"""

from __future__ import annotations

import re

ELLIPSIS = "…"
ZWJ = "\u200d"
MD_ACTIVE = frozenset("\\`*_{}[]()<>#+!|~")
_SPACE = re.compile(r"\s+")
_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
_ISSUE_REF = re.compile(r"#(?=\d)")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}


def one_line(value: object) -> str:
    """``str(value)`` (None as empty) with every run of white space folded to one space."""
    text = "" if value is None else str(value)
    return _SPACE.sub(" ", text).strip()


def truncate(text: str, limit: int | None) -> str:
    """``text`` cut to at most ``limit`` characters, the cut marked with an ellipsis."""
    if limit is None or len(text) <= limit:
        return text
    if limit <= 1:
        return ELLIPSIS[:limit]
    head = text[: limit - 1]
    stripped = head.rstrip("\\")
    if (len(head) - len(stripped)) % 2:  # an odd run of backslashes escapes what follows
        head = head[:-1]
    return head + ELLIPSIS


def escape_html(text: str) -> str:
    """HTML's five special characters as entities."""
    return "".join(_HTML.get(c, c) for c in text)


def neutralize_mentions(text: str) -> str:
    """``@user``, ``@org/team`` and ``#123`` made inert with a zero-width joiner."""
    return _ISSUE_REF.sub("#" + ZWJ, _MENTION.sub("@" + ZWJ, text))


def md_text(
    value: object,
    limit: int | None = None,
    *,
    mentions: bool = True,
    active: frozenset[str] = MD_ACTIVE,
) -> str:
    """Untrusted text as inert Markdown for a table cell or prose line."""
    text = "".join("\\" + c if c in active else c for c in one_line(value))
    if mentions:
        text = neutralize_mentions(text)
    return truncate(text, limit)


def code_text(value: object, limit: int | None = None, *, mentions: bool = False) -> str:
    """Untrusted text for inside an inline code span in a table (backslashes stay literal)."""
    text = one_line(value).replace("`", "'").replace("|", "\\|")
    if mentions:
        text = neutralize_mentions(text)
    return truncate(text, limit)


def code_span(value: object, limit: int | None = None) -> str:
    """Untrusted text as an inline code span; an empty value still yields a valid span."""
    text = code_text(value, limit)
    return f"`{text}`" if text else "` `"
