"""Prompts, resources and resource templates: listed when declared, counted as the tools are,
recorded beside the number and never in it; a failing list never spoils the tools."""

from __future__ import annotations

import asyncio
import io
import json
import time
from pathlib import Path
from typing import Any

import pytest

from mcpcost.cli import main
from mcpcost.core.canonical import canonicalize
from mcpcost.core.model import Listing, Measurement, render_measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status
from mcpcost.core.tokenizer import get_tokenizer
from mcpcost.core.verify import verify_document
from mcpcost.measuring import MeasureOptions, measure_server
from tests.servers.conftest_plugin import require_real_server
from tests.servers.fixtures.stdio_server import PROMPTS, RESOURCES, TEMPLATES
from tests.servers.registry import fixture_argv

SECRET = "fixture-secret-" + "z9" * 10


def measure(*extra: str, timeout_s: float = 20.0) -> Measurement:
    spec = ServerSpec.stdio("fixture", fixture_argv("good", *extra), env={"FIXTURE_SECRET": SECRET})
    return measure_server(spec, MeasureOptions(timeout_s=timeout_s))


def counted(items: list[Any]) -> Listing:
    c = canonicalize(items)
    return Listing(
        count=len(items), tokens=get_tokenizer().count(c.text), canonical_sha256=c.sha256
    )


def test_declared_lists_are_paged_joined_and_counted_beside_an_unchanged_number() -> None:
    plain = measure()
    m = measure("--lists", "paged")
    assert m.status is Status.MEASURED
    assert (m.total_tokens, m.canonical_sha256, m.tool_count) == (
        plain.total_tokens,
        plain.canonical_sha256,
        plain.tool_count,
    )
    assert m.listings == {
        "prompts": counted(PROMPTS),  # two pages, joined in order
        "resources": counted(RESOURCES),
        "resourceTemplates": counted(TEMPLATES),
    }
    # a server that declares none keeps its file's bytes: no listings key at all
    assert plain.listings is None and "listings" not in plain.to_dict()
    doc = json.loads(render_measurement(m))
    assert list(doc["listings"]) == ["prompts", "resources", "resourceTemplates"]
    assert doc["listings"]["prompts"] == {
        "count": 2,
        "tokens": counted(PROMPTS).tokens,
        "canonicalSha256": counted(PROMPTS).canonical_sha256,
    }
    assert Measurement.from_dict(doc) == m
    assert verify_document(doc).ok


def test_a_failing_list_is_recorded_and_the_tools_stand() -> None:
    m = measure("--lists", "broken")
    assert m.status is Status.MEASURED and m.total_tokens == measure().total_tokens
    assert m.listings is not None
    prompts, resources = m.listings["prompts"], m.listings["resources"]
    assert prompts.error is not None and "prompt store offline" in prompts.error
    assert SECRET not in render_measurement(m)  # the server's error text is masked
    assert resources.error == "resources/list: resources/list result has no resources array"
    assert m.listings["resourceTemplates"] == counted(TEMPLATES)


def test_a_list_that_never_answers_is_bounded_and_the_rest_are_not_asked() -> None:
    started = time.monotonic()
    m = measure("--lists", "hang", timeout_s=2.0)
    assert time.monotonic() - started < 15
    assert m.status is Status.MEASURED and m.total_tokens is not None
    assert m.listings is not None
    assert "prompts/list" in (m.listings["prompts"].error or "")
    assert (m.listings["resources"].error or "").startswith("resources/list: not asked")
    assert (m.listings["resourceTemplates"].error or "").startswith(
        "resources/templates/list: not asked"
    )


def test_measure_shows_them_in_text_and_json_and_publish_on_the_detail_page(
    tmp_path: Path,
) -> None:
    argv = fixture_argv("good", "--lists", "paged")
    out, err = io.StringIO(), io.StringIO()
    assert main(["measure", "--out", str(tmp_path), "--", *argv], out, err) == 0, err.getvalue()
    lines = out.getvalue().splitlines()
    p, r, t = counted(PROMPTS), counted(RESOURCES), counted(TEMPLATES)
    assert lines[1] == (
        f"  also listed, not in the number: 2 prompts ({p.tokens:,} tokens); "
        f"3 resources ({r.tokens:,} tokens); 1 resource template ({t.tokens:,} tokens)"
    )
    out = io.StringIO()
    assert main(["measure", "--json", "--", *argv], out, io.StringIO()) == 0
    assert json.loads(out.getvalue())["listings"]["resources"]["count"] == 3
    name = next((tmp_path / "results").iterdir()).name
    assert main(["publish", "--out", str(tmp_path)], io.StringIO(), io.StringIO()) == 0
    page = (tmp_path / "docs" / "servers" / f"{name}.md").read_text("utf-8")
    assert "## Prompts and resources (not in the number)" in page
    assert f"| prompts | 2 | {p.tokens} |" in page
    assert f"| resource templates | 1 | {t.tokens} |" in page


async def _sdk_lists(argv: list[str]) -> dict[str, list[str]]:
    """What the official MCP Python SDK's client lists from the server, every page."""
    from mcp import ClientSession, StdioServerParameters, types
    from mcp.client.stdio import stdio_client

    async def every(call: Any, field: str) -> list[Any]:
        items: list[Any] = []
        cursor = None
        while True:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await call(params=params)
            items += getattr(page, field)
            cursor = page.next_cursor
            if not cursor:
                return items

    params = StdioServerParameters(command=argv[0], args=argv[1:])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        prompts = await every(session.list_prompts, "prompts")
        resources = await every(session.list_resources, "resources")
        templates = await every(session.list_resource_templates, "resource_templates")
        return {
            "prompts": [x.name for x in prompts],
            "resources": [str(x.uri) for x in resources],
            "resourceTemplates": [x.uri_template for x in templates],
        }


@pytest.mark.slow
def test_the_everything_server_lists_what_the_official_sdk_client_sees() -> None:
    server = require_real_server("everything")
    m = measure_server(
        ServerSpec.stdio("everything", list(server.argv)), MeasureOptions(timeout_s=60)
    )
    assert m.status is Status.MEASURED and m.listings is not None
    try:
        seen = asyncio.run(_sdk_lists(list(server.argv)))
    except ImportError:
        pytest.skip("the mcp SDK is not installed")
    for kind, names in seen.items():
        listing = m.listings[kind]
        assert listing.error is None and listing.count == len(names) > 0
        assert listing.tokens is not None and listing.tokens > listing.count
    assert m.total_tokens not in {lst.tokens for lst in m.listings.values()}
