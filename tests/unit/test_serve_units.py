"""The parts of ``mcpcost serve`` on values: requests, answers, ETags, the guards on a fake
clock, ``OnDemand``'s order of decisions with a measurement that waits on an event, the dataset
from a tree on disk, and the OpenAPI document against the OpenAPI 3.1 schema."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from mcpcost.core.measure import measure_tools
from mcpcost.core.model import Measurement, render_measurement
from mcpcost.core.spec import TransportName
from mcpcost.core.status import Status
from mcpcost.runtime.output_tree import open_tree
from mcpcost.serve.api import (
    MeasureTarget,
    RequestProblem,
    client_key,
    entity_tag,
    json_body,
    literal_refusal,
    matches_entity_tag,
    measure_target,
    measured_session,
    measurement_view,
    normalise_url,
)
from mcpcost.serve.dataset import BUILT_FROM, load_dataset, tree_signature
from mcpcost.serve.guards import RateLimiter, ResultCache, Slots
from mcpcost.serve.on_demand import OnDemand
from mcpcost.serve.openapi import openapi_document
from mcpcost.serve.options import ServeSettings
from tests.helpers.serve_process import validate_answer

TOOLS = [
    {"name": "search", "description": "Find things", "inputSchema": {"type": "object"}},
    {"name": "fetch", "description": "Get a page \u2014 fast", "inputSchema": {"type": "object"}},
]


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def a_measurement(name: str = "demo", tools: list[Any] | None = None) -> Measurement:
    one = measure_tools(tools or TOOLS)
    return Measurement(
        status=Status.MEASURED,
        server_name=name,
        launch_command=f"https://{name}.example/mcp",
        measured_at="2026-12-01T00:00:00.000Z",
        timeout_ms=30000,
        total_tokens=one.total_tokens,
        tool_count=one.tool_count,
        tools=one.tools,
        canonical_sha256=one.canonical.sha256,
        raw_tools_capture=one.capture,
        server_instructions="Use search first.",
        transport=TransportName.HTTP,
    )


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("https://Example.COM/mcp", "https://example.com/mcp"),
        ("HTTPS://example.com:8443/a/b?x=1#frag", "https://example.com:8443/a/b?x=1"),
        ("https://[::1]:9/mcp", "https://[::1]:9/mcp"),
    ],
)
def test_urls_are_normalised(given: str, expected: str) -> None:
    assert normalise_url(given, allow_http=False) == expected


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        ("http://example.com/", "url must be https"),
        ("ftp://example.com/", "url must be an https URL"),
        ("https:///nohost", "url has no host"),
        ("https://u:p@example.com/", "url must not carry a user name or password"),
        ("https://example.com/a b", "url holds a space or a control character"),
        ("https://example.com:99999/", "url is not a valid URL"),
        ("https://example.com/" + "a" * 2100, "url is longer than 2048 characters"),
    ],
)
def test_bad_urls_are_refused_with_one_line(given: str, reason: str) -> None:
    with pytest.raises(RequestProblem) as caught:
        normalise_url(given, allow_http=False)
    assert str(caught.value).startswith(reason) and "\n" not in str(caught.value)
    assert caught.value.status == 400


def test_plain_http_only_when_allowed_and_request_fields_are_strict() -> None:
    assert normalise_url("http://example.com/", allow_http=True) == "http://example.com/"
    target = measure_target({"url": "https://e.example/mcp"}, allow_http=False)
    assert target.transport is TransportName.AUTO
    assert measure_target({"url": "https://e.example", "transport": "sse"}, allow_http=False).key
    for fields in (
        {},
        {"url": 3},
        {"url": "https://e.example", "transport": "stdio"},
        {"url": "https://e.example", "headers": {}},
    ):
        with pytest.raises(RequestProblem):
            measure_target(fields, allow_http=False)


def test_literal_addresses_are_refused_at_once_names_are_left_to_the_connection() -> None:
    strict = ServeSettings().policy
    assert literal_refusal("https://127.0.0.1/mcp", strict) == (
        "refused by the address policy: 127.0.0.1 is a loopback address, not a public one"
    )
    assert "cloud metadata" in (literal_refusal("https://169.254.169.254/", strict) or "")
    loose = ServeSettings(allow_private_addresses=True).policy
    assert literal_refusal("https://127.0.0.1/mcp", loose) is None
    assert "cloud metadata" in (literal_refusal("https://169.254.169.254/", loose) or "")
    assert literal_refusal("https://localhost/", strict) is None
    assert literal_refusal("https://8.8.8.8/", strict) is None


def test_entity_tags_compare_weakly_and_star_matches() -> None:
    tag = entity_tag(b"body")
    assert tag.startswith('"') and tag == entity_tag(b"body") != entity_tag(b"other")
    assert matches_entity_tag(tag, tag)
    assert matches_entity_tag(f'"x", W/{tag}', tag)
    assert matches_entity_tag("*", tag)
    assert not matches_entity_tag(None, tag) and not matches_entity_tag('"x"', tag)


def test_client_keys_group_an_ipv6_host_by_its_64() -> None:
    assert client_key("203.0.113.9") == "203.0.113.9"
    assert client_key("2001:db8:1:2::5") == client_key("2001:db8:1:2:ffff::1")
    assert client_key("2001:db8:1:2::5") != client_key("2001:db8:1:3::5")
    assert client_key("::ffff:203.0.113.9") == "203.0.113.9"
    assert client_key(None) == "unknown"


def test_the_public_view_is_exact_and_carries_the_session_start_cost() -> None:
    m = a_measurement()
    view = measurement_view(m, measured_session(m))
    assert view["method"] == "exact" and view["status"] == "measured"
    assert view["totalTokens"] == m.total_tokens and view["canonicalSha256"] == m.canonical_sha256
    assert [t["name"] for t in view["tools"]] == ["search", "fetch"]
    assert view["sessionStart"]["isFloor"] is False and view["sessionStart"]["total"] > 0
    assert "rawToolsCapture" not in view and "launchCommand" not in view
    wall = Measurement(
        status=Status.REMOTE_AUTH_WALL,
        server_name="x",
        launch_command="https://x.example",
        measured_at="2026-12-01T00:00:00.000Z",
        timeout_ms=1000,
        notes="401 with OAuth metadata",
    )
    walled = measurement_view(wall, measured_session(wall))
    assert walled["status"] == "remote-auth-wall" and walled["totalTokens"] is None
    assert walled["sessionStart"] is None and walled["notes"]
    document = openapi_document()
    validate_answer(document, "Measurement", json.loads(json_body(view)))
    validate_answer(document, "Measurement", json.loads(json_body(walled)))


def test_a_lone_surrogate_in_a_tool_name_still_makes_a_json_answer() -> None:
    m = a_measurement(tools=[{"name": "odd\ud800", "inputSchema": {}}])
    body = json_body(measurement_view(m, None))
    assert json.loads(body)["tools"][0]["name"] == "odd\ud800"


def test_slots_tell_when_the_soonest_deadline_is() -> None:
    clock = FakeClock()
    slots = Slots(2, clock)
    a, b = slots.take(30), slots.take(10)
    assert a is not None and b is not None and slots.take(5) is None
    clock.now += 4
    assert slots.retry_after() == 6
    slots.release(b)
    assert slots.busy == 1 and slots.take(5) is not None


def test_rate_limit_refills_and_forgets_idle_clients() -> None:
    clock = FakeClock()
    limits = RateLimiter(2, clock, max_clients=3)
    assert limits.take("a") is None and limits.take("a") is None
    assert limits.take("a") == 30  # one token comes back every 30 s
    clock.now += 30
    assert limits.take("a") is None
    for name in ("b", "c", "d", "e"):
        limits.take(name)
    assert limits.clients <= 3
    assert RateLimiter(0, clock).take("anyone") is None


def test_cache_expires_and_stays_bounded() -> None:
    clock = FakeClock()
    cache = ResultCache(60, clock, max_entries=2)
    cache.put("a", 200, b"A")
    clock.now += 59
    found = cache.get("a")
    assert found is not None and found.body == b"A" and cache.remaining(found) == 1
    clock.now += 1
    assert cache.get("a") is None
    for key in "xyz":
        cache.put(key, 200, key.encode())
    assert len(cache) == 2 and cache.get("x") is None
    assert cache.put("k", 500, b"", keep=False) and cache.get("k") is None


class Gate:
    """A measurement that waits until released, counting the calls."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls: list[str] = []

    def __call__(self, target: MeasureTarget) -> Measurement:
        self.calls.append(target.url)
        assert self.release.wait(10)
        return a_measurement(target.url.split("//")[1].split(".")[0])


def target(name: str) -> MeasureTarget:
    return MeasureTarget(url=f"https://{name}.example/mcp", transport=TransportName.AUTO)


def test_on_demand_shares_a_target_in_flight_and_refuses_past_the_slots() -> None:
    gate = Gate()
    settings = ServeSettings(max_concurrent=1, rate_per_minute=0, timeout_s=5)

    async def scenario() -> list[Any]:
        service = OnDemand(settings, measure=gate)
        first = asyncio.create_task(service.answer(target("one"), "c"))
        second = asyncio.create_task(service.answer(target("one"), "c"))
        await asyncio.sleep(0.05)
        busy = await service.answer(target("two"), "c")
        gate.release.set()
        done = await asyncio.gather(first, second)
        cached = await service.answer(target("one"), "c")
        service.close()
        return [busy, *done, cached]

    busy, first, second, cached = asyncio.run(scenario())
    assert busy.status == 429 and busy.headers["Retry-After"].isdigit()
    assert json.loads(busy.body)["error"] == "busy"
    assert first.body == second.body == cached.body and first.status == 200
    assert sorted([first.headers["X-Cache"], second.headers["X-Cache"]]) == ["miss", "shared"]
    assert cached.headers["X-Cache"] == "hit"
    assert gate.calls == ["https://one.example/mcp"]


def test_on_demand_counts_the_rate_limit_only_for_measurements_started() -> None:
    gate = Gate()
    gate.release.set()
    settings = ServeSettings(max_concurrent=2, rate_per_minute=1)

    async def scenario() -> list[Any]:
        service = OnDemand(settings, measure=gate)
        answers = [await service.answer(target(n), "client") for n in ("a", "a", "b")]
        answers.append(await service.answer(target("b"), "someone-else"))
        service.close()
        return answers

    first, repeat, limited, other = asyncio.run(scenario())
    assert first.status == 200 and repeat.headers["X-Cache"] == "hit"
    assert limited.status == 429 and json.loads(limited.body)["error"] == "rate-limited"
    assert limited.headers["Retry-After"] == "60"
    assert other.status == 200


def test_a_worker_past_its_deadline_answers_timeout_and_keeps_its_slot() -> None:
    gate = Gate()
    settings = ServeSettings(max_concurrent=1, rate_per_minute=0, timeout_s=0.05)

    async def scenario() -> list[Any]:
        service = OnDemand(settings, measure=gate, grace_s=0.15)
        late = await service.answer(target("slow"), "c")
        still_busy = await service.answer(target("next"), "c")
        gate.release.set()
        await asyncio.sleep(0.2)
        free_again = service.slots.busy
        service.close()
        return [late, still_busy, free_again]

    late, still_busy, free_again = asyncio.run(scenario())
    answer = json.loads(late.body)
    assert late.status == 200 and answer["status"] == "timeout"
    assert "deadline" in answer["notes"]
    assert still_busy.status == 429
    assert free_again == 0


def write_tree(root: Path, measurements: dict[str, Measurement]) -> None:
    with open_tree(root) as txn:
        for name, m in measurements.items():
            txn.put(f"results/{name}/measurement.json", render_measurement(m))
        txn.commit()


def test_the_dataset_is_built_from_the_measurements_in_leaderboard_order(tmp_path: Path) -> None:
    small = a_measurement("small", TOOLS[:1])
    big = a_measurement("big")
    write_tree(tmp_path, {"small": small, "big": big})
    dataset = load_dataset(tmp_path)
    assert dataset.origin == "built"
    doc = json.loads(dataset.data.body)
    assert doc["builtFrom"] == BUILT_FROM and doc["datasetVersion"] == "1"
    assert [e["name"] for e in doc["entries"]] == ["big", "small"]
    assert doc["entries"][0]["totalTokens"] == big.total_tokens
    assert doc["coverage"]["measured"] == 2
    validate_answer(openapi_document(), "Dataset", doc)
    record = json.loads(dataset.servers["small"].body)
    assert record["name"] == "small" and record["canonicalSha256"] == small.canonical_sha256
    assert dataset.servers["small"].etag == entity_tag(dataset.servers["small"].body)


def test_a_published_dataset_is_served_as_it_is_and_a_change_moves_the_signature(
    tmp_path: Path,
) -> None:
    write_tree(tmp_path, {"one": a_measurement("one")})
    before = tree_signature(tmp_path)
    published = b'{"servers": [], "coverage": {}}\n'
    (tmp_path / "results" / "data.json").write_bytes(published)
    assert tree_signature(tmp_path) != before
    dataset = load_dataset(tmp_path)
    assert dataset.origin == "published" and dataset.data.body == published
    assert set(dataset.servers) == {"one"}
    (tmp_path / "results" / "data.json").write_bytes(b"{not json")
    assert load_dataset(tmp_path).origin == "built"


def test_the_openapi_document_is_valid_openapi_3_1() -> None:
    from openapi_spec_validator import validate
    from openapi_spec_validator.versions import consts, get_spec_version

    document = openapi_document()
    assert get_spec_version(document) == consts.OPENAPIV31
    validate(document)
    assert set(document["paths"]) == {
        "/api/measure",
        "/data.json",
        "/api/servers/{name}",
        "/healthz",
        "/openapi.json",
    }


def test_without_the_serve_extra_the_command_says_so_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib.util
    import io

    from mcpcost.cli import main

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *rest: None if name == "uvicorn" else real(name, *rest),
    )
    out, err = io.StringIO(), io.StringIO()
    assert main(["serve", "--port", "0"], out, err) == 2
    assert err.getvalue() == (
        "mcpcost serve needs uvicorn: pip install 'mcp-context-cost[serve]'\n"
    )


def test_the_service_policy_refuses_cleartext_unless_http_is_allowed() -> None:
    """A redirect from an https target to http is refused by the policy's cleartext rule (see
    tests/integration/test_runtime_addresses.py), so --allow-http decides it as it decides
    the first URL."""
    assert ServeSettings().policy.allow_cleartext is False
    assert ServeSettings(allow_http=True).policy.allow_cleartext is True
    assert ServeSettings(allow_private_addresses=True).policy.allow_private is True
