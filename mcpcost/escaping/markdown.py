"""Third-party text made inert for Markdown and HTML (pure).

Server names, tool names, failure notes and config paths come from people we do not trust: a PR's
config, a registry entry, a server's own answer. Every renderer of Markdown (the Action's comment
and summary, ``audit --markdown``, the sweep's pages) passes such text through this module, and
the first two escape the same way: a name is a ``code_span``, any other text is ``md_text``.
Whatever the input, the output has no raw HTML (tags, comments, so no spoofed comment marker), no
link, image or autolink (``<...>``, ``https://``, ``www.``), no character entity (``&commat;``,
``&#64;``), no @mention or issue reference, and cannot break a table row or start a new line.

* ``one_line``: line breaks and runs of white space folded to one space; control, bidi and
  invisible characters (zero-width, tag characters, every Default_Ignorable_Code_Point) shown
  escaped (``\\x1b``, ``\\u202e``, ``\\u200b``) as on a terminal, so a name with hidden characters
  never reads as the name without them.
* ``truncate``: at most ``limit`` characters, an ellipsis marking a cut, never ending on a lone
  backslash (which would escape the ellipsis or the cell's closing pipe).
* ``escape_html``: ``&``, ``<``, ``>`` and quotes as entities, and the control, bidi and
  invisible characters shown escaped (``\\u200b``) as on a terminal.
* ``neutralize_mentions``: ``@name`` and ``#123`` broken with a zero-width joiner so GitHub links
  and notifies no one.
* ``neutralize_urls``: a zero-width joiner after the scheme of ``http://``, ``https://`` and
  ``ftp://``, inside ``www.`` and after the ``@`` of an address, so GitHub's bare-URL and e-mail
  autolinking finds nothing.
* ``md_text``: text for a table cell or a line of prose: one line, Markdown's active characters
  and ``&`` backslash-escaped (so no HTML, links, entities, code or cell breaks), bare URLs and
  mentions neutralised (mentions optionally).
* ``code_text`` / ``code_span``: text for inside an inline code span, where backslashes are
  literal and nothing is parsed: backticks become apostrophes, pipes are escaped for the table
  parser and ``<!--`` is broken with a zero-width joiner (so the text cannot carry the comment
  marker).
"""

from __future__ import annotations

import re

from mcpcost.escaping.terminal import terminal_line, terminal_text

ELLIPSIS = "…"
ZWJ = "\u200d"
MD_ACTIVE = frozenset("\\`*_{}[]()<>#+!|~&")
HTML_COMMENT_OPEN = "<!--"
_SPACE = re.compile(r"\s+")
_URL_SCHEME = re.compile(r"(?i)(https?|ftp)(?=:)")
_WWW = re.compile(r"(?i)(www)(?=\.)")
_EMAIL_AT = re.compile(r"(?<=[A-Za-z0-9._+-])@(?=[A-Za-z0-9])")
_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
_ISSUE_REF = re.compile(r"#(?=\d)")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}


def one_line(value: object) -> str:
    """``str(value)`` (None as empty) with every run of white space folded to one space, and the
    control and bidi characters left escaped visibly (``mcpcost.escaping.terminal``): an override
    would reorder what a reader sees on GitHub as it would on a terminal."""
    text = "" if value is None else str(value)
    return terminal_line(_SPACE.sub(" ", text).strip())


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
    """HTML's five special characters as entities; control, bidi and invisible characters
    shown escaped (``mcpcost.escaping.terminal``), line breaks kept."""
    return "".join(_HTML.get(c, c) for c in terminal_text(text))


def neutralize_urls(text: str) -> str:
    """Bare URLs (``https://...``, ``www....``, ``a@b.c``) made inert with a zero-width joiner."""
    text = _WWW.sub("\\1" + ZWJ, _URL_SCHEME.sub("\\1" + ZWJ, text))
    return _EMAIL_AT.sub("@" + ZWJ, text)


def _break_comment_open(text: str) -> str:
    return text.replace(HTML_COMMENT_OPEN, "<" + ZWJ + "!--")


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
    """Untrusted text as inert Markdown for a table cell or prose line (``&`` always escaped)."""
    text = _break_comment_open(neutralize_urls(one_line(value)))
    text = "".join("\\" + c if c in active or c == "&" else c for c in text)
    if mentions:
        text = neutralize_mentions(text)
    return truncate(text, limit)


def code_text(value: object, limit: int | None = None, *, mentions: bool = False) -> str:
    """Untrusted text for inside an inline code span in a table (backslashes stay literal)."""
    text = _break_comment_open(one_line(value)).replace("`", "'").replace("|", "\\|")
    if mentions:
        text = neutralize_mentions(text)
    return truncate(text, limit)


def code_span(value: object, limit: int | None = None) -> str:
    """Untrusted text as an inline code span; an empty value still yields a valid span."""
    text = code_text(value, limit)
    return f"`{text}`" if text else "` `"
