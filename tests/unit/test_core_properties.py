"""Property tests: the parser and serializer round-trip arbitrary JSON, the canonical form is
idempotent, and the measure assembles the canonical text. That Node agrees is checked in
tests/integration/test_node_agreement.py."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpcost.core.canonical import canonicalize, canonicalize_text
from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.core.measure import measure_tools, tool_texts
from mcpcost.measuring.server import same_canonical_text
from tests.helpers.json_strategies import values, wire_texts


@given(st.lists(values, max_size=4))
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_tool_texts_assemble_the_canonical_text(tools: list[Any]) -> None:
    # measure_tools builds the canonical text from each tool's members; it must be the same text
    for tool in tools:
        text, members = tool_texts(tool)
        assert text == stringify(tool)
        assert members == (
            {k: stringify(v) for k, v in tool.items()} if isinstance(tool, dict) else {}
        )
    measured = measure_tools(tools)
    assert measured.canonical == canonicalize(tools)


@given(values, values)
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_same_canonical_text_is_equality_of_canonical_text(a: Any, b: Any) -> None:
    first, second = [a], [b]
    expected = stringify(first) == stringify(second)
    assert same_canonical_text(first, second, stringify(first)) is expected
    assert same_canonical_text(first, [a], stringify(first)) is True


def test_same_canonical_text_cases_the_fast_check_cannot_decide() -> None:
    one = [{"a": 1, "b": "x"}]
    assert same_canonical_text(one, [{"a": 1.0, "b": "x"}], stringify(one))  # 1 and 1.0
    assert not same_canonical_text(one, [{"b": "x", "a": 1}], stringify(one))  # key order
    late = [{"b": 1, "7": 2}]  # an array index key is written first either way
    assert stringify(late) == '[{"7":2,"b":1}]'
    assert same_canonical_text(late, [{"7": 2, "b": 1}], stringify(late))


@given(values)
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_serialised_values_round_trip(value: Any) -> None:
    text = stringify(value)
    assert stringify(parse_json(text)) == text


@given(wire_texts())
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_canonical_form_is_idempotent(wire: bytes) -> None:
    # Every generated text is valid JSON (a raw lone surrogate decodes to U+FFFD, as in Node), so
    # a rejection here is a parser bug, not a case to skip.
    once = canonicalize_text(wire)
    assert canonicalize_text(once.data).data == once.data
