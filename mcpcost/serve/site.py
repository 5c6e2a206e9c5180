"""The service's pages: the measure page at ``/`` and the published tree's files.

``/`` is a form a person fills in (a URL and a transport) that posts, form-encoded, to
``/api/measure``; the API answers such a post with the same page, the answer written into it
(``measure_page``). No script runs on any page: the form is plain HTML, and every HTML or SVG
answer carries ``PAGE_POLICY`` (a Content-Security-Policy that allows no script, no frame and
form posts only to this service). Text a server sent (tool names, notes) goes through the one
HTML boundary, the autoescaping templates (``runtime.templating``), after ``terminal_line`` has
made control and bidi characters visible.

The tree's files (``--out DIR``) are served as published: ``tree_file`` reads a file below one
of ``TREE_DIRS`` whose suffix is in ``TREE_TYPES``, through the tree reader (bounded, never
through a link, never above the root).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any, Final
from urllib.parse import parse_qsl

from mcpcost.core.model import METHODOLOGY_VERSION
from mcpcost.errors import McpcostError
from mcpcost.escaping.terminal import terminal_line
from mcpcost.runtime.output_tree import read_in_tree
from mcpcost.runtime.templating import render
from mcpcost.serve.api import MAX_URL_CHARS, REMOTE_TRANSPORTS, RequestProblem

FORM_TYPE: Final = "application/x-www-form-urlencoded"
HTML_TYPE: Final = "text/html; charset=utf-8"
PAGE_POLICY: Final = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
PAGE_HEADERS: Final = {
    "Content-Security-Policy": PAGE_POLICY,
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
TREE_DIRS: Final = ("results", "badges", "docs")
TREE_TYPES: Final = {
    ".html": HTML_TYPE,
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".md": "text/markdown; charset=utf-8",
    ".csv": "text/csv; charset=utf-8",
}
DASHBOARD_REL: Final = "docs/dashboard.html"
NAME_CHARS: Final = 200  # a tool name shown on the page
NOTE_CHARS: Final = 600


def form_fields(data: bytes) -> dict[str, str]:
    """A form post's fields (UTF-8, each name once), or RequestProblem."""
    try:
        text = data.decode("utf-8")
        items = parse_qsl(text, keep_blank_values=True, strict_parsing=bool(text))
    except (UnicodeDecodeError, ValueError):
        raise RequestProblem("the form is not valid form encoding") from None
    names = [k for k, _ in items]
    if len(names) != len(set(names)):
        raise RequestProblem("a form field is given twice")
    return dict(items)


def tree_file(root: Path, path: str) -> tuple[bytes, str] | None:
    """The bytes and content type of the tree's file at URL ``path``, or None."""
    rel = path.lstrip("/")
    pure = PurePosixPath(rel)
    if not pure.parts or pure.parts[0] not in TREE_DIRS or "\\" in rel:
        return None
    if any(part in ("", ".", "..") or part.startswith(".") for part in rel.split("/")):
        return None  # nothing hidden, nothing above its directory
    content_type = TREE_TYPES.get(pure.suffix.lower())
    if content_type is None:
        return None
    try:
        data = read_in_tree(root, rel)
    except (OSError, ValueError, McpcostError):
        return None
    return None if data is None else (data, content_type)


def _shown(value: Any, limit: int) -> str:
    text = terminal_line(value if isinstance(value, str) else "")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def answer_view(answer: Mapping[str, Any]) -> dict[str, Any]:
    """What the page shows of a measure answer (the API's JSON, ``measurement_view``)."""
    total = answer.get("totalTokens")
    session = answer.get("sessionStart")
    session_total = session.get("total") if isinstance(session, dict) else None
    floor = isinstance(session, dict) and session.get("isFloor") is True
    tools = [t for t in answer.get("tools") or [] if isinstance(t, dict)]
    status = _shown(answer.get("status"), 40)
    return {
        "title": f"{total:,} tokens" if isinstance(total, int) else status,
        "url": _shown(answer.get("url"), MAX_URL_CHARS),
        "status": status,
        "total": total if isinstance(total, int) else None,
        "session": "—"
        if not isinstance(session_total, int)
        else (f"≥{session_total:,}" if floor else f"{session_total:,}"),
        "transport": _shown(answer.get("transport"), 20) or "—",
        "notes": _shown(answer.get("notes"), NOTE_CHARS),
        "tools": [
            {
                "name": _shown(t.get("name"), NAME_CHARS),
                "tokens": _count(t.get("tokens")),
                "description": _count(t.get("descriptionTokens")),
                "schema": _count(t.get("inputSchemaTokens")),
            }
            for t in tools
        ],
    }


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) else None


def measure_page(
    *,
    tree: bool,
    timeout_s: float,
    url: str = "",
    transport: str = "auto",
    answer: Mapping[str, Any] | None = None,
    problem: str | None = None,
) -> bytes:
    """The measure page: the form (filled with what was asked), and the answer or the problem."""
    page = render(
        "measure.html.j2",
        {
            "bands": (),
            "methodology": METHODOLOGY_VERSION,
            "max_url": MAX_URL_CHARS,
            "timeout": f"{timeout_s:g}",
            "transports": [str(t) for t in REMOTE_TRANSPORTS],
            "url": _shown(url, MAX_URL_CHARS),
            "transport": transport if transport in REMOTE_TRANSPORTS else "auto",
            "answer": None if answer is None else answer_view(answer),
            "problem": None if problem is None else _shown(problem, NOTE_CHARS),
            "tree": tree,
        },
    )
    return page.encode("utf-8")
