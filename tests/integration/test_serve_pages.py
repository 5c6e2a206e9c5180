"""``mcpcost serve``'s pages as a real process: ``/`` is the measure page, its form posts to
``/api/measure`` and gets the page back with the answer, and the published tree's pages,
badges and dashboard are served with a policy that runs no script; nothing outside the tree's
directories, above the root or through a link is read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.helpers.paths import ROOT
from tests.helpers.serve_process import running_service
from tests.servers.http_fixtures import serve_http

pytestmark = pytest.mark.slow
LOOPBACK = ("--allow-private-addresses", "--allow-http")
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def mcpcost(*argv: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mcpcost", *argv],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr


def published(tmp_path: Path) -> Path:
    """A tree measured from a loopback fixture, then published (pages, badge, dashboard)."""
    out = tmp_path / "tree"
    with serve_http("streamable-json") as fx:
        mcpcost("measure", "--url", fx.url, "--name", "fixture", "--out", str(out))
    mcpcost("publish", "--out", str(out))
    return out


def test_the_root_and_the_published_tree_are_pages_with_a_no_script_policy(
    tmp_path: Path,
) -> None:
    out = published(tmp_path)
    (tmp_path / "secret.html").write_text("outside the tree")
    os.symlink(tmp_path / "secret.html", out / "docs" / "linked.html")
    with running_service("--out", str(out)) as service:
        root = service.get("/")
        assert root.status == 200
        assert root.headers["content-type"].startswith("text/html")
        policy = root.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src" not in policy
        assert "form-action 'self'" in policy and "frame-ancestors 'none'" in policy
        page = root.body.decode()
        assert '<form class="measure" method="post" action="/api/measure">' in page
        assert '<a href="/docs/dashboard.html">Dashboard</a>' in page and "<script" not in page
        dashboard = service.get("/docs/dashboard.html")
        assert dashboard.status == 200 and dashboard.headers["content-type"].startswith("text/html")
        assert dashboard.body == (out / "docs" / "dashboard.html").read_bytes()
        assert "content-security-policy" in dashboard.headers
        server_page = service.get("/docs/servers/fixture.html")
        assert server_page.status == 200 and b"fixture" in server_page.body
        badge = service.get("/badges/fixture.json")
        assert badge.status == 200 and badge.body == (out / "badges" / "fixture.json").read_bytes()
        record = service.get("/results/fixture/measurement.json")
        assert record.status == 200 and record.headers["content-type"] == "application/json"
        for path in (
            "/docs/linked.html",  # a link out of the tree
            "/docs/../../secret.html",
            "/docs/%2e%2e/%2e%2e/secret.html",
            "/results/fixture/",
            "/.mcpcost/anything.json",
            "/servers.yaml",
            "/docs/nothing-here.html",
        ):
            reply = service.get(path)
            assert reply.status == 404, path
            assert reply.json()["error"] == "not-found", path
            assert b"outside the tree" not in reply.body


def test_the_form_posts_to_the_measure_api_and_reads_the_same_number() -> None:
    with serve_http("streamable-json") as fx, running_service(*LOOPBACK) as service:
        api = service.post_json("/api/measure", {"url": fx.url}).json()
        assert api["status"] == "measured"
        body = urlencode({"url": fx.url, "transport": "auto"}).encode()
        reply = service.request("POST", "/api/measure", body, headers=FORM)
        assert reply.status == 200 and reply.headers["content-type"].startswith("text/html")
        assert "content-security-policy" in reply.headers
        page = reply.body.decode()
        assert f"<h2>{api['totalTokens']:,} tokens</h2>" in page
        for tool in api["tools"]:
            assert f'<td class="tool">{tool["name"]}</td>' in page
        assert f'value="{fx.url}"' in page  # the form keeps what was asked
        # a bad request is the page with the reason, and the API's status
        bad = urlencode({"url": "ftp://example.com/x"}).encode()
        refused = service.request("POST", "/api/measure", bad, headers=FORM)
        assert refused.status == 400 and "url must be an https URL" in refused.body.decode()
        twice = service.request("POST", "/api/measure", b"url=a&url=b", headers=FORM)
        assert twice.status == 400 and "given twice" in twice.body.decode()
        # without --out the root still answers, and the tree's paths are a JSON 404
        assert service.get("/").status == 200
        assert "Dashboard" not in service.get("/").body.decode()
        assert service.get("/docs/dashboard.html").status == 404
