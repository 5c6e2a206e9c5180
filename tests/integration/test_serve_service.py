"""``mcpcost serve`` as a real process on a loopback port, asked over real HTTP, measuring real
servers on loopback: the reference ``everything`` server over Streamable HTTP, and the HTTP
fixtures (slow, never-ending, recording what reaches them)."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.helpers.paths import ROOT
from tests.helpers.serve_process import Reply, Service, running_service, validate_answer
from tests.servers.http_fixtures import SLOW_TOOLS_S, serve_http
from tests.servers.registry import serve_everything

pytestmark = pytest.mark.slow
LOOPBACK = ("--allow-private-addresses", "--allow-http")


def measure_path(url: str, transport: str | None = None) -> str:
    query = f"url={quote(url, safe='')}"
    if transport is not None:
        query += f"&transport={transport}"
    return f"/api/measure?{query}"


def cli_measure(url: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "mcpcost", "measure", "--url", url, "--json"],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    answer: dict[str, Any] = json.loads(proc.stdout)
    return answer


def openapi(service: Service) -> dict[str, Any]:
    reply = service.get("/openapi.json")
    assert reply.status == 200
    document: dict[str, Any] = reply.json()
    return document


def published_tree(tmp_path: Path) -> Path:
    """A tree ``mcpcost measure --out`` wrote from a loopback fixture."""
    out = tmp_path / "tree"
    with serve_http("streamable-json") as fx:
        argv = ["measure", "--url", fx.url, "--name", "fixture", "--out", str(out)]
        proc = subprocess.run(
            [sys.executable, "-m", "mcpcost", *argv],
            capture_output=True,
            text=True,
            timeout=180,
            cwd=ROOT,
            check=False,
        )
    assert proc.returncode == 0, proc.stderr
    return out


def at_once(calls: list[Any]) -> list[Reply]:
    """Run every call on a thread of its own, released together; replies in call order."""
    replies: list[Reply | None] = [None] * len(calls)
    gate = threading.Barrier(len(calls))

    def run(i: int) -> None:
        gate.wait()
        replies[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert all(r is not None for r in replies)
    return [r for r in replies if r is not None]


def test_everything_over_http_gives_measure_urls_number_and_the_flag_decides_reaching_it() -> None:
    try:
        ctx = serve_everything("streamableHttp")
        url = ctx.__enter__()
    except LookupError as exc:
        pytest.skip(str(exc))
    try:
        expected = cli_measure(url)
        assert expected["status"] == "measured"
        with running_service(*LOOPBACK) as service:
            document = openapi(service)
            get = service.get(measure_path(url, "http"))
            post = service.post_json("/api/measure", {"url": url, "transport": "auto"})
            again = service.get(measure_path(url, "http"))
        for reply in (get, post):
            assert reply.status == 200, reply.body
            answer = reply.json()
            validate_answer(document, "MeasuredServer", answer)
            assert answer["method"] == "exact"
            assert answer["status"] == "measured"
            assert answer["totalTokens"] == expected["totalTokens"]
            assert answer["canonicalSha256"] == expected["canonicalSha256"]
            assert answer["toolCount"] == expected["toolCount"]
            assert [t["tokens"] for t in answer["tools"]] == [
                t["tokens"] for t in expected["tools"]
            ]
            assert answer["sessionStart"]["isFloor"] is False
            assert answer["transport"] == "http"
            assert reply.headers["x-cache"] == "miss"
        assert again.headers["x-cache"] == "hit" and again.body == get.body

        with running_service("--allow-http") as refusing:
            refused = refusing.get(measure_path(url))
            named = refusing.get(measure_path(url.replace("127.0.0.1", "localhost")))
            document = openapi(refusing)
        for reply in (refused, named):
            assert reply.status == 403
            validate_answer(document, "Error", reply.json())
            message = reply.json()["message"]
            assert "\n" not in message and "loopback address" in message, message
        assert refused.json()["message"] == (
            "refused by the address policy: 127.0.0.1 is a loopback address, not a public one"
        )
    finally:
        ctx.__exit__(None, None, None)


def test_https_only_unless_allowed_and_bad_requests_get_one_line() -> None:
    with serve_http("streamable-json") as fx, running_service("--allow-private-addresses") as s:
        document = openapi(s)
        plain = s.get(measure_path(fx.url))
        assert plain.status == 400
        assert plain.json()["message"] == (
            "url must be https: this service measures plain http only when started with "
            "--allow-http"
        )
        cases = {
            "/api/measure": 400,
            measure_path("https://user:pw@example.com/mcp"): 400,
            measure_path("ftp://example.com/"): 400,
            measure_path("https://example.com/", "stdio"): 400,
            measure_path("https://example.com/") + "&extra=1": 400,
        }
        for path, status in cases.items():
            reply = s.get(path)
            assert reply.status == status, (path, reply.body)
            validate_answer(document, "Error", reply.json())
        big = s.request("POST", "/api/measure", b'{"url": "' + b"a" * 20000 + b'"}')
        assert big.status == 413 and big.json()["error"] == "too-large"
        not_json = s.request("POST", "/api/measure", b"{nope")
        assert not_json.status == 400 and not_json.json()["message"] == "the body is not JSON"
        preflight = s.request("OPTIONS", "/api/measure")
        assert preflight.status == 204
        assert preflight.headers["access-control-allow-origin"] == "*"
        assert "POST" in preflight.headers["access-control-allow-methods"]
        assert s.get("/nowhere").json()["error"] == "not-found"
        head = s.request("HEAD", measure_path(fx.url.replace("http://", "https://")))
        assert head.status == 405 and head.headers["allow"] == "GET, POST, OPTIONS"
        assert fx.requests == []  # nothing was sent to the server


def test_two_slots_five_slow_servers_two_measured_three_told_to_retry() -> None:
    with contextlib.ExitStack() as stack:
        fixtures = [stack.enter_context(serve_http("slow-json")) for _ in range(5)]
        with running_service(*LOOPBACK, "--max-concurrent", "2", "--timeout", "20") as service:
            document = openapi(service)
            calls = [lambda u=fx.url: service.get(measure_path(u)) for fx in fixtures]
            replies = at_once(calls)
    measured = [r for r in replies if r.status == 200]
    refused = [r for r in replies if r.status == 429]
    assert len(measured) == 2 and len(refused) == 3, [(r.status, r.body) for r in replies]
    for r in measured:
        assert r.json()["status"] == "measured"
        assert r.seconds >= SLOW_TOOLS_S
        validate_answer(document, "MeasuredServer", r.json())
    for r in refused:
        assert r.json()["error"] == "busy"
        validate_answer(document, "Error", r.json())
        assert int(r.headers["retry-after"]) >= 1
        assert r.seconds < SLOW_TOOLS_S  # answered at once, not queued behind the slots
    # the three refused servers were never asked anything
    assert sorted(len(fx.requests) > 0 for fx in fixtures) == [False] * 3 + [True] * 2


def test_a_never_ending_server_times_out_while_health_and_data_answer_in_100ms(
    tmp_path: Path,
) -> None:
    tree = published_tree(tmp_path)
    with serve_http("hang") as fx:
        flags = (*LOOPBACK, "--timeout", "3", "--out", str(tree))
        with running_service(*flags) as service:
            service.get("/healthz")  # the process has imported what a request needs
            started = time.monotonic()
            result: list[Reply] = []
            worker = threading.Thread(
                target=lambda: result.append(service.get(measure_path(fx.url)))
            )
            worker.start()
            latencies: list[tuple[str, float]] = []
            while worker.is_alive():
                for path in ("/healthz", "/data.json"):
                    reply = service.get(path)
                    assert reply.status == 200
                    latencies.append((path, reply.seconds))
                time.sleep(0.05)
            worker.join()
            busy_seen = max(json.loads(service.get("/healthz").body)["measuring"], 0)
    elapsed = time.monotonic() - started
    answer = result[0].json()
    assert result[0].status == 200 and answer["status"] == "timeout", answer
    assert answer["totalTokens"] is None and answer["notes"]
    assert 3 <= elapsed < 3 + 10
    assert len(latencies) >= 20
    slow = [(p, round(s * 1000, 1)) for p, s in latencies if s >= 0.1]
    assert slow == [], slow
    assert busy_seen == 0


def test_data_json_open_cors_etag_304_and_the_server_records(tmp_path: Path) -> None:
    tree = published_tree(tmp_path)
    with running_service("--out", str(tree), "--refresh-seconds", "0.5") as service:
        document = openapi(service)
        first = service.get("/data.json")
        assert first.status == 200
        assert first.headers["access-control-allow-origin"] == "*"
        assert first.headers["x-mcpcost-dataset"] == "built"
        assert first.headers["cache-control"].startswith("public, max-age=")
        assert first.headers["x-mcpcost-version"]
        etag = first.headers["etag"]
        validate_answer(document, "Dataset", first.json())
        assert [e["name"] for e in first.json()["entries"]] == ["fixture"]
        repeat = service.get("/data.json", headers={"If-None-Match": etag})
        assert repeat.status == 304 and repeat.body == b"" and repeat.headers["etag"] == etag
        assert repeat.headers["access-control-allow-origin"] == "*"
        preflight = service.request("OPTIONS", "/data.json")
        assert preflight.status == 204
        assert "If-None-Match" in preflight.headers["access-control-allow-headers"]
        other = service.get("/data.json", headers={"If-None-Match": '"something-else"'})
        assert other.status == 200 and other.body == first.body

        record = service.get("/api/servers/fixture")
        assert record.status == 200 and record.headers["access-control-allow-origin"] == "*"
        validate_answer(document, "ServerRecord", record.json())
        measured = json.loads((tree / "results/fixture/measurement.json").read_text())
        assert record.json()["totalTokens"] == measured["totalTokens"]
        assert record.json()["canonicalSha256"] == measured["canonicalSha256"]
        again = service.get(
            "/api/servers/fixture", headers={"If-None-Match": record.headers["etag"]}
        )
        assert again.status == 304
        assert service.get("/api/servers/missing").status == 404

        # a tree that gains its own dataset is served byte for byte once it is read again
        published = b'{"dataset": "of the tree itself", "servers": []}\n'
        (tree / "results" / "data.json").write_bytes(published)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            now = service.get("/data.json")
            if now.headers.get("x-mcpcost-dataset") == "published":
                break
            time.sleep(0.2)
        assert now.body == published and now.headers["etag"] != etag
        health = service.get("/healthz")
        validate_answer(document, "Health", health.json())
        assert health.json()["dataset"] == "published"


def test_nothing_the_caller_sent_reaches_the_server_and_logs_have_no_query(tmp_path: Path) -> None:
    with serve_http("streamable-json") as fx, running_service(*LOOPBACK) as service:
        secret_url = fx.url + "?token=query-secret-77"
        reply = service.get(
            measure_path(secret_url),
            headers={
                "Authorization": "Bearer caller-secret-1",
                "Cookie": "session=caller-secret-2",
                "X-Api-Key": "caller-secret-3",
            },
        )
        assert reply.status == 200 and reply.json()["status"] == "measured", reply.body
        assert "query-secret-77" not in reply.json()["url"]
    lines = list(service.log_lines)  # all of them: the process has ended
    assert fx.requests, "the fixture was measured"
    for seen in fx.requests:
        assert not {"authorization", "cookie", "x-api-key"} & set(seen.headers)
        assert "caller-secret" not in json.dumps(seen.headers)
    requests = [json.loads(line) for line in lines if '"event": "request"' in line]
    measure_lines = [r for r in requests if r["path"] == "/api/measure"]
    assert len(measure_lines) == 1 and measure_lines[0]["status"] == 200
    assert all("secret" not in line and "?" not in line for line in lines), lines


def test_cache_coalescing_and_the_per_client_rate_limit() -> None:
    with serve_http("slow-json") as slow, serve_http("streamable-json") as fx:
        flags = (*LOOPBACK, "--rate-limit", "3", "--cache-seconds", "60")
        with running_service(*flags) as service:
            # two callers asking for one slow target at once share one measurement
            replies = at_once([lambda: service.get(measure_path(slow.url))] * 2)
            assert [r.status for r in replies] == [200, 200]
            assert sorted(r.headers["x-cache"] for r in replies) == ["miss", "shared"]
            assert replies[0].body == replies[1].body
            tools_lists = [r for r in slow.requests if b'"tools/list"' in r.body]
            assert len(tools_lists) == 2  # one measurement: its two captures
            # a cached answer is not a new measurement and costs no rate limit
            assert service.get(measure_path(slow.url)).headers["x-cache"] == "hit"
            answers = [service.get(measure_path(f"{fx.url}?n={n}")) for n in range(3)]
            assert [r.status for r in answers] == [200, 200, 429]
            assert answers[2].json()["error"] == "rate-limited"
            assert int(answers[2].headers["retry-after"]) >= 1


def test_the_client_behind_a_named_proxy_is_the_address_the_proxy_added() -> None:
    with serve_http("streamable-json") as fx:
        flags = (*LOOPBACK, "--rate-limit", "1", "--forwarded-allow-ips", "127.0.0.1")
        with running_service(*flags) as service:

            def ask(n: int, chain: str) -> int:
                path = measure_path(f"{fx.url}?n={n}")
                return service.get(path, headers={"X-Forwarded-For": chain}).status

            # the rightmost address the proxy did not add itself is the client
            assert ask(1, "198.51.100.7") == 200
            assert ask(2, "203.0.113.5, 198.51.100.7") == 429  # a chosen prefix changes nothing
            assert ask(3, "198.51.100.8") == 200
        with running_service(*LOOPBACK, "--rate-limit", "1") as direct:
            first = direct.get(
                measure_path(f"{fx.url}?n=4"), headers={"X-Forwarded-For": "1.2.3.4"}
            )
            second = direct.get(
                measure_path(f"{fx.url}?n=5"), headers={"X-Forwarded-For": "5.6.7.8"}
            )
            assert (first.status, second.status) == (200, 429)  # not trusted without the flag
