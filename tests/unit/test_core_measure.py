"""The methodology's numbers for a tools array, the model, bands and badges."""

from __future__ import annotations

import hashlib
import itertools
from typing import Any

import pytest

from mcpcost.core import tokenizer as tokenizer_module
from mcpcost.core.badge import (
    BadgeState,
    badge_file_text,
    badge_state,
    readme_snippet,
    render_badge,
    state_badge_file_text,
)
from mcpcost.core.bands import BANDS, band_for
from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.core.measure import measure_tools, session_start
from mcpcost.core.model import NOT_CAPTURED, Measurement, render_measurement
from mcpcost.core.ranks import read_rank_table
from mcpcost.core.spec import Era, ServerSpec, TransportName
from mcpcost.core.status import Status
from mcpcost.core.tokenizer import count_tokens, get_tokenizer
from mcpcost.core.verify import verify_document
from mcpcost.errors import TokenizerError

TOOLS: list[Any] = parse_json(
    """[
  {"name": "read_file", "title": "Read", "description": "Read a file <|endoftext|>",
   "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
   "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}},
  {"name": "noop", "inputSchema": {"type": "object"}},
  {"description": "nameless"}
]"""
)


def test_special_token_text_is_ordinary_text() -> None:
    assert count_tokens("<|endoftext|>") == 7
    assert count_tokens("") == 0


def test_tokenizer_is_loaded_once() -> None:
    assert get_tokenizer() is get_tokenizer()


def test_corrupt_tokenizer_data_is_refused() -> None:
    with pytest.raises(TokenizerError, match="sha256"):
        tokenizer_module.open_rank_table(expected_sha256="0" * 64)
    with pytest.raises(TokenizerError, match="malformed"):
        read_rank_table(b"MCPRANK1" + bytes(16))


def test_bundled_data_hash_is_pinned() -> None:
    table = tokenizer_module.open_rank_table()
    assert table.size == 199_998


def test_measure_tools_numbers() -> None:
    m = measure_tools(TOOLS)
    assert m.tool_count == 3
    assert m.canonical.text == stringify(TOOLS)
    assert m.total_tokens == count_tokens(stringify(TOOLS))
    assert m.canonical.sha256 == hashlib.sha256(stringify(TOOLS).encode()).hexdigest()
    first, second, third = m.tools
    assert first.name == "read_file"
    assert first.tokens == count_tokens(stringify(TOOLS[0]))
    assert first.description_tokens == count_tokens("Read a file <|endoftext|>")
    assert first.input_schema_tokens == count_tokens(stringify(TOOLS[0]["inputSchema"]))
    assert first.field_tokens is not None
    assert first.field_tokens["outputSchema"] == count_tokens('{"type":"object"}')
    assert first.field_tokens["annotations"] == count_tokens('{"readOnlyHint":true}')
    assert first.field_tokens["title"] == count_tokens("Read")
    assert second.description_tokens == 0
    assert third.name == "(unnamed)"
    assert m.capture == TOOLS and m.capture is not TOOLS


def test_empty_tools_array_is_one_token() -> None:
    m = measure_tools([])
    assert (m.canonical.text, m.total_tokens, m.tool_count) == ("[]", 1, 0)


def test_session_start_adds_halves_counted_apart() -> None:
    names = stringify(["read_file", "noop"])
    s = session_start(TOOLS, "Use read_file.", captured=True)
    assert s.tool_name_tokens == count_tokens(names)
    assert s.instructions_tokens == count_tokens("Use read_file.")
    assert s.total == s.tool_name_tokens + s.instructions_tokens
    assert not s.is_floor
    floor = session_start(TOOLS, None, captured=False)
    assert floor.is_floor and floor.instructions_tokens is None
    assert session_start(TOOLS, None, captured=True).instructions_tokens == 0


def _measurement(**overrides: Any) -> Measurement:
    m = measure_tools(TOOLS)
    base: dict[str, Any] = {
        "status": Status.MEASURED,
        "server_name": "fixture",
        "launch_command": "npx -y fixture",
        "measured_at": "2026-08-16T00:00:00.000Z",
        "timeout_ms": 60000,
        "total_tokens": m.total_tokens,
        "tool_count": m.tool_count,
        "tools": m.tools,
        "canonical_sha256": m.canonical.sha256,
        "raw_tools_capture": m.capture,
    }
    base.update(overrides)
    return Measurement(**base)


@pytest.mark.parametrize("instructions", ["Be brief.", None, NOT_CAPTURED])
def test_server_instructions_three_states_survive_a_round_trip(instructions: Any) -> None:
    m = _measurement(server_instructions=instructions)
    doc = parse_json(render_measurement(m))
    assert ("serverInstructions" in doc) is (instructions is not NOT_CAPTURED)
    assert Measurement.from_dict(doc).server_instructions == instructions


def test_unknown_fields_are_kept() -> None:
    doc = _measurement().to_dict()
    doc["futureField"] = {"x": 1}
    again = Measurement.from_dict(doc).to_dict()
    assert again["futureField"] == {"x": 1}


def test_transport_and_era_are_read_as_words_and_other_text_is_kept() -> None:
    m = _measurement(transport=TransportName.DOCKER, protocol_era=Era.MODERN)
    again = Measurement.from_dict(parse_json(render_measurement(m)))
    assert (again.transport, again.protocol_era) == (TransportName.DOCKER, Era.MODERN)
    assert again == m
    doc = m.to_dict()
    doc.update(transport="carrier-pigeon", protocolEra="2031")  # a file from a future version
    odd = Measurement.from_dict(doc)
    assert (odd.transport, odd.protocol_era) == (None, None)
    assert odd.to_dict()["transport"] == "carrier-pigeon"
    assert odd.to_dict()["protocolEra"] == "2031"


def test_a_spec_asks_for_a_transport_a_spec_can_name() -> None:
    with pytest.raises(ValueError, match="unknown transport 'docker'"):
        ServerSpec.remote("r", "https://example.com/mcp", transport=TransportName.DOCKER)
    remote = ServerSpec.remote("r", "https://example.com/mcp", transport=TransportName.SSE)
    assert remote.transport is TransportName.SSE and "transport='sse'" in repr(remote)


def test_our_additional_fields_are_typed_and_another_shape_is_kept_as_read() -> None:
    doc = _measurement().to_dict()
    doc.update(
        headerNames=["X-Key"],
        protocolErasTried=["legacy", "modern"],
        protocolRequested="legacy",
        authorization="oauth",
    )
    m = Measurement.from_dict(doc)
    assert (m.header_names, m.protocol_eras_tried, m.protocol_requested, m.authorization) == (
        ("X-Key",),
        ("legacy", "modern"),
        "legacy",
        "oauth",
    )
    assert m.extras == {}
    assert list(m.to_dict().items()) == list(doc.items())  # the same keys in the same order
    odd = {**doc, "headerNames": "X-Key", "authorization": "bearer", "protocolErasTried": None}
    m = Measurement.from_dict(odd)
    assert (m.header_names, m.protocol_eras_tried, m.authorization) == (None, None, None)
    assert m.to_dict() == odd


def test_our_own_measurement_verifies() -> None:
    doc = parse_json(render_measurement(_measurement()))
    result = verify_document(doc)
    assert result.ok, result.problems
    doc["tools"][0]["fieldTokens"]["title"] += 1
    assert any("fieldTokens.title" in p for p in verify_document(doc).problems)


@pytest.mark.parametrize(
    ("tokens", "color"),
    [
        (0, "brightgreen"),
        (999, "brightgreen"),
        (1000, "green"),
        (4999, "green"),
        (5000, "yellow"),
        (14999, "yellow"),
        (15000, "orange"),
        (29999, "orange"),
        (30000, "red"),
        (42000, "red"),
    ],
)
def test_band_edges(tokens: int, color: str) -> None:
    assert band_for(tokens).color == color


def test_bands_are_contiguous() -> None:
    for lower, upper in itertools.pairwise(BANDS):
        assert lower.upper == upper.lower


def test_badge_bytes() -> None:
    assert render_badge(12430) == (
        '{"schemaVersion":1,"label":"context cost","message":"12,430 tokens",'
        '"color":"yellow","cacheSeconds":3600}'
    )
    assert render_badge(1234567).count(",") == 6
    assert render_badge(None) == (
        '{"schemaVersion":1,"label":"context cost","message":"unknown",'
        '"color":"lightgrey","cacheSeconds":3600}'
    )
    failed = _measurement(status=Status.TIMEOUT, total_tokens=None)
    assert badge_file_text(failed).endswith('"lightgrey","cacheSeconds":3600}\n')


def test_state_badges_are_grey_carry_no_number_and_keep_the_label() -> None:
    assert state_badge_file_text(BadgeState.NOT_YET_RUN) == (
        '{"schemaVersion":1,"label":"context cost","message":"not yet run",'
        '"color":"lightgrey","cacheSeconds":3600}\n'
    )
    assert state_badge_file_text(BadgeState.OAUTH_GATED) == (
        '{"schemaVersion":1,"label":"context cost","message":"OAuth-gated",'
        '"color":"lightgrey","cacheSeconds":3600}\n'
    )
    other = state_badge_file_text(BadgeState.NOT_YET_RUN, 'my "cost"')
    assert parse_json(other) == {
        "schemaVersion": 1,
        "label": 'my "cost"',
        "message": "not yet run",
        "color": "lightgrey",
        "cacheSeconds": 3600,
    }
    for state in BadgeState:
        assert badge_state(state_badge_file_text(state).encode()) is state
    assert badge_state(other.encode()) is BadgeState.NOT_YET_RUN  # whatever the label
    # a measurement's badge, number or unknown, is never taken for a state
    assert badge_state(badge_file_text(_measurement()).encode()) is None
    timed_out = _measurement(status=Status.TIMEOUT, total_tokens=None)
    assert badge_state(badge_file_text(timed_out).encode()) is None
    for junk in (b"", b"not json", b'["not yet run"]', b'{"message":1}', b"\xff\xfe"):
        assert badge_state(junk) is None


def test_readme_snippet_encodes_like_encode_uri_component() -> None:
    snippet = readme_snippet("https://raw.example/o/r/main/badges/x.json", "https://o.example/m")
    assert snippet == (
        "[![context cost](https://img.shields.io/endpoint?url=https%3A%2F%2Fraw.example%2Fo%2Fr"
        "%2Fmain%2Fbadges%2Fx.json)](https://o.example/m)"
    )
