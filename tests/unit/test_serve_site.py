"""The measure page's rendering of an answer: what a server sent is escaped, bounded and one line."""

from __future__ import annotations

import pytest

from mcpcost.serve.api import RequestProblem
from mcpcost.serve.site import answer_view, form_fields, measure_page


def test_a_hostile_answer_is_escaped_on_the_page() -> None:
    answer = {
        "status": "measured",
        "url": 'https://x.example/mcp?"><script>alert(1)</script>',
        "totalTokens": 1234,
        "toolCount": 1,
        "sessionStart": {"total": 56, "isFloor": True},
        "transport": "http",
        "notes": "note\x1b[31m red\u202e flipped",
        "tools": [
            {
                "name": "<img src=x onerror=alert(1)>\nnext",
                "tokens": 1234,
                "descriptionTokens": 10,
                "inputSchemaTokens": 20,
            }
        ],
    }
    page = measure_page(tree=False, timeout_s=30, url=answer["url"], answer=answer).decode()
    assert "<script>" not in page and "<img" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;\\x0anext" in page
    assert "\x1b" not in page and "\u202e" not in page
    assert "<h2>1,234 tokens</h2>" in page and "≥56" in page
    view = answer_view({"tools": [{"name": "n" * 5000, "tokens": "many"}], "status": "x"})
    assert len(view["tools"][0]["name"]) == 200 and view["tools"][0]["tokens"] is None


def test_a_form_body_is_read_strictly() -> None:
    assert form_fields(b"url=https%3A%2F%2Fa.example%2Fmcp&transport=sse") == {
        "url": "https://a.example/mcp",
        "transport": "sse",
    }
    assert form_fields(b"") == {}
    for bad in (b"url=a&url=b", b"\xff=1", b"novalue"):
        with pytest.raises(RequestProblem):
            form_fields(bad)
