"""The registry source against a loopback server replaying pages in the registry's schema."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from mcpcost.cli.sweep_cmd import run
from mcpcost.core.jsonvalue import parse_json
from mcpcost.sweep.registry_source import listing_from, slugify
from tests.servers.http_fixtures import HTML_404
from tests.servers.registry import serve_http, serve_http_fixture, serve_loopback_registry

OFFICIAL = "io.modelcontextprotocol.registry/official"
SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"


def entry(
    name: str,
    remotes: list[dict[str, object]],
    status: str = "active",
    packages: list[dict[str, object]] | None = None,
) -> dict[str, object]:
    return {
        "server": {
            "$schema": SCHEMA,
            "name": name,
            "description": f"{name} test entry",
            "version": "1.2.0",
            "repository": {
                "url": f"https://github.com/example/{name.split('/')[-1]}",
                "source": "github",
            },
            "remotes": remotes,
            "packages": packages or [],
        },
        "_meta": {
            OFFICIAL: {
                "status": status,
                "publishedAt": "2026-09-01T10:00:00Z",
                "updatedAt": "2026-09-01T10:00:00Z",
                "isLatest": True,
            }
        },
    }


@contextmanager
def registry(pages: list[dict[str, object]]) -> Iterator[tuple[str, list[str]]]:
    """Serve ``pages``: the first without a cursor, page i for cursor ``c<i>``."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            url = urlsplit(self.path)
            seen.append(self.path)
            q = parse_qs(url.query)
            if (
                url.path != "/v0.1/servers"
                or q.get("limit") != ["100"]
                or q.get("version") != ["latest"]
            ):
                self.send_error(404)
                return
            cursor = q.get("cursor", [""])[0]
            index = int(cursor[1:]) if cursor else 0
            body = json.dumps(pages[index]).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def test_listing_keeps_active_remotes_and_flags_templates() -> None:
    items = [
        entry(
            "io.github.a/one",
            [
                {"type": "streamable-http", "url": "https://a.example/mcp"},
                {"type": "sse", "url": "https://a.example/sse"},
            ],
        ),
        entry(
            "io.github.b/two",
            [{"type": "streamable-http", "url": "https://{tenant}.b.example/mcp"}],
        ),
        entry(
            "io.github.c/old",
            [{"type": "sse", "url": "https://c.example/sse"}],
            status="deprecated",
        ),
        entry("io.github.d/dup", [{"type": "streamable-http", "url": "https://a.example/mcp"}]),
        entry(
            "io.github.e/key",
            [
                {
                    "type": "streamable-http",
                    "url": "https://e.example/mcp",
                    "headers": [{"name": "X-API-Key", "isRequired": True, "isSecret": True}],
                }
            ],
        ),
        entry("io.github.f/local", []),
    ]
    listing = listing_from(items, 1)
    assert [(r.slug, r.transport) for r in listing.remotes] == [
        ("io.github.a-one", "http"),
        ("io.github.a-one-sse", "sse"),
        ("io.github.d-dup", "http"),  # the same endpoint as io.github.a/one: its own row
        ("io.github.e-key", "http"),
    ]
    assert listing.inactive == 1 and listing.needs_config == 1
    assert [r.slug for r in listing.recorded] == [
        "io.github.b-two",
        "io.github.c-old",
        "io.github.f-local",
    ]
    assert listing.remotes[3].required_headers == ("X-API-Key",)
    assert slugify("IO.Example/Weird Name!") == "io.example-weird-name"


@pytest.mark.slow
def test_registry_sweep_measures_remotes_and_classifies_auth_walls(tmp_path: Path) -> None:
    with ExitStack() as stack:
        ok_url = stack.enter_context(serve_http_fixture("streamable-json"))
        sse_url = stack.enter_context(serve_http_fixture("legacy-sse"))
        oauth_url = stack.enter_context(serve_http_fixture("auth-401-metadata"))
        page_url = stack.enter_context(serve_http_fixture("html-404"))
        pages = [
            {
                "servers": [
                    entry("io.github.example/works", [{"type": "streamable-http", "url": ok_url}]),
                    entry(
                        "io.github.example/gone",
                        [{"type": "streamable-http", "url": ok_url + "x"}],
                        status="deleted",
                    ),
                ],
                "metadata": {"nextCursor": "c1", "count": 2},
            },
            {
                "servers": [
                    entry("io.github.example/legacy", [{"type": "sse", "url": sse_url}]),
                    entry(
                        "io.github.example/oauth", [{"type": "streamable-http", "url": oauth_url}]
                    ),
                    entry("io.github.example/page", [{"type": "streamable-http", "url": page_url}]),
                ],
                "metadata": {"nextCursor": "c2", "count": 3},
            },
            {
                "servers": [
                    entry(
                        "io.github.example/keyed",
                        [
                            {
                                "type": "streamable-http",
                                "url": ok_url + "?k=1",
                                "headers": [
                                    {"name": "Authorization", "isRequired": True, "isSecret": True}
                                ],
                            }
                        ],
                    ),
                ],
                "metadata": {"count": 1},
            },
        ]
        base, seen = stack.enter_context(registry(pages))
        out, err = io.StringIO(), io.StringIO()
        args = ["--registry", base, "--allow-private-addresses", "--out", str(tmp_path)]
        code = run([*args, "--timeout", "15"], out, err)
    assert code == 0, err.getvalue()
    assert len(seen) == 3 and "cursor=c2" in seen[-1]
    statuses = {}
    for d in sorted((tmp_path / "results").iterdir()):
        if d.is_dir():
            m = parse_json((d / "measurement.json").read_bytes())
            assert isinstance(m, dict)
            statuses[d.name] = m["status"]
    assert statuses == {
        "io.github.example-works": "measured",
        "io.github.example-legacy": "measured",
        "io.github.example-oauth": "remote-auth-wall",
        "io.github.example-keyed": "remote-auth-wall",
        "io.github.example-page": "gone",
    }  # io.github.example/gone is deleted in the registry: not swept
    keyed = parse_json(
        (tmp_path / "results" / "io.github.example-keyed" / "measurement.json").read_bytes()
    )
    assert isinstance(keyed, dict) and "Authorization" in keyed["notes"]
    board = (tmp_path / "results" / "leaderboard.md").read_text()
    assert (
        "Measured 2/5 candidates" in board
        and "| io.github.example-oauth | remote-auth-wall |" in board
    )
    summary = "registry: 6 entries on 3 pages; 5 remote endpoints and 0 packages to measure; "
    assert summary in err.getvalue()
    assert "; 1 deleted in the registry, not swept" in err.getvalue()
    # what a registry-sourced server answers with an error status is not published anywhere
    page = parse_json(
        (tmp_path / "results" / "io.github.example-page" / "measurement.json").read_bytes()
    )
    assert isinstance(page, dict) and page["notes"].startswith("HTTP 404 from ")
    published = [p for p in tmp_path.rglob("*") if p.is_file() and ".mcpcost" not in str(p)]
    assert {"leaderboard.md", "dashboard.html", "measurement.json"} <= {p.name for p in published}
    leaked = [p for p in published if b"404 Not Found" in p.read_bytes()]
    assert leaked == []
    assert b"404 Not Found" in HTML_404


@pytest.mark.slow
def test_registry_urls_on_internal_addresses_are_refused(tmp_path: Path) -> None:
    """Without --allow-private-addresses no request reaches a loopback server an entry names
    (127.0.0.1 or 127.0.0.2); each gets one line saying why, and nothing it would have answered
    is published."""
    with ExitStack() as stack:
        fixture = stack.enter_context(serve_http("streamable-json"))
        other = fixture.url.replace("127.0.0.1", "127.0.0.2")
        pages = [
            {
                "servers": [
                    entry(
                        "io.github.example/inside",
                        [{"type": "streamable-http", "url": fixture.url}],
                    ),
                    entry("io.github.example/other", [{"type": "sse", "url": other}]),
                    entry(
                        "io.github.example/meta",
                        [{"type": "streamable-http", "url": "http://169.254.169.254/mcp"}],
                    ),
                ],
                "metadata": {},
            }
        ]
        base, _ = stack.enter_context(registry(pages))
        out, err = io.StringIO(), io.StringIO()
        code = run(["--registry", base, "--out", str(tmp_path), "--timeout", "5"], out, err)
    assert code == 0, err.getvalue()
    assert fixture.requests == []
    notes = {}
    for d in sorted((tmp_path / "results").iterdir()):
        if d.is_dir():
            m = parse_json((d / "measurement.json").read_bytes())
            assert isinstance(m, dict) and m["status"] == "startup-failure"
            notes[d.name] = m["notes"]
    assert notes == {
        "io.github.example-inside": "refused by the address policy: 127.0.0.1 is a loopback "
        "address, not a public one",
        "io.github.example-other": "refused by the address policy: 127.0.0.2 is a loopback "
        "address, not a public one",
        "io.github.example-meta": "refused by the address policy: 169.254.169.254 is a cloud "
        "metadata address, not a public one",
    }


def test_registry_errors_are_one_line(tmp_path: Path) -> None:
    with registry([{"servers": [], "metadata": {"nextCursor": "c0"}}]) as (base, _):
        out, err = io.StringIO(), io.StringIO()
        from mcpcost.cli import main

        code = main(["sweep", "--registry", base, "--out", str(tmp_path)], out, err)
    assert code == 2 and "repeated" in err.getvalue() and err.getvalue().count("\n") == 1


@pytest.mark.slow
def test_data_json_keeps_a_row_per_entry_and_what_the_registry_says(tmp_path: Path) -> None:
    """Against the loopback registry: a second entry behind a measured entry's endpoint (with a
    required header) keeps its row in data.json; a templated URL is needs-config; a deleted
    entry has no row; the registry's status text and post-install steps are in ``source``."""
    keyed = entry(
        "io.github.example/keyed-twin",
        [
            {
                "type": "streamable-http",
                "url": "@BASE@/mcp/0",
                "headers": [{"name": "X-Api-Key", "isRequired": True, "isSecret": True}],
            }
        ],
    )
    twin = entry(
        "io.github.example/open-twin", [{"type": "streamable-http", "url": "@BASE@/mcp/0"}]
    )
    tenant = entry(
        "io.github.example/tenant",
        [
            {
                "type": "streamable-http",
                "url": "https://{tenant}.example/mcp",
                "variables": {"tenant": {"default": "demo"}},
            }
        ],
    )
    deleted = entry(
        "io.github.example/removed", [{"type": "sse", "url": "@BASE@/mcp/0"}], "deleted"
    )
    old = entry("io.github.example/old", [{"type": "sse", "url": "@BASE@/mcp/0"}], "deprecated")
    official = old["_meta"][OFFICIAL]  # type: ignore[index]
    official.update(
        statusMessage="Use io.github.example/new", statusChangedAt="2026-11-02T09:00:00Z"
    )
    steps = [{"description": "Run `setup` once", "command": "npx tool setup"}]
    with_steps = entry(
        "io.github.example/steps",
        [],
        packages=[
            {
                "registryType": "npm",
                "identifier": "@example/needs-dir",
                "version": "1.0.0",
                "transport": {"type": "stdio"},
                "packageArguments": [
                    {"type": "positional", "valueHint": "dir", "isRequired": True}
                ],
                "postInstallInstructions": steps,
            }
        ],
    )
    listed = [keyed, twin, tenant, deleted, old, with_steps]
    with serve_loopback_registry(1, packages=listed) as base:
        out, err = io.StringIO(), io.StringIO()
        args = ["--registry", base, "--allow-private-addresses", "--out", str(tmp_path)]
        code = run([*args, "--timeout", "15"], out, err)
    assert code == 0, err.getvalue()
    doc = parse_json((tmp_path / "results" / "data.json").read_bytes())
    assert isinstance(doc, dict)
    rows = {e["name"]: e for e in doc["entries"]}
    assert {name: row["status"] for name, row in rows.items()} == {
        "io.github.loopback-remote-00000": "measured",
        "io.github.example-open-twin": "measured",
        "io.github.example-keyed-twin": "remote-auth-wall",
        "io.github.example-tenant": "needs-config",
        "io.github.example-old": "inactive",
        "io.github.example-steps": "needs-config",
    }
    assert rows["io.github.example-keyed-twin"]["source"] == {
        "kind": "registry",
        "name": "io.github.example/keyed-twin",
        "version": "1.2.0",
    }
    assert "{tenant}" in rows["io.github.example-tenant"]["notes"]
    assert rows["io.github.example-old"]["source"] == {
        "kind": "registry",
        "name": "io.github.example/old",
        "version": "1.2.0",
        "status": "deprecated",
        "statusMessage": "Use io.github.example/new",
        "statusChangedAt": "2026-11-02T09:00:00Z",
    }
    assert rows["io.github.example-steps"]["source"]["postInstallInstructions"] == steps
    assert "1 deleted in the registry, not swept" in err.getvalue()
