"""Property tests: the parser/serializer round-trips arbitrary JSON, and agrees with Node."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpcost.core.canonical import canonicalize, canonicalize_text
from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.core.measure import measure_tools, tool_texts
from mcpcost.core.tokenizer import count_tokens
from mcpcost.errors import JSONSyntaxError
from mcpcost.measuring.server import same_canonical_text
from tests.helpers.node_oracle import NodeOracle

keys = st.one_of(
    st.text(max_size=8),
    st.integers(min_value=0, max_value=2**33).map(str),
    st.sampled_from(["0", "01", "-1", "1.5", "4294967294", "4294967295", "__proto__", ""]),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(),
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5), st.dictionaries(keys, children, max_size=5)
    ),
    max_leaves=30,
)


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


@st.composite
def wire_texts(draw: st.DrawFn) -> bytes:
    """JSON text as different writers would put it on the wire (spacing, escapes, duplicates)."""
    value = draw(values)
    ensure_ascii = draw(st.booleans())
    indent = draw(st.sampled_from([None, 0, 2]))
    text = json.dumps(value, ensure_ascii=ensure_ascii, indent=indent)
    if draw(st.booleans()) and text.startswith("{") and len(text) > 2:
        # a duplicate key written before the real ones: last value wins, first position kept
        text = '{"dup": 1, "dup": ' + text + "," + text[1:]
    return text.encode("utf-8", errors="surrogatepass")


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


@pytest.fixture(scope="module")
def node() -> Iterator[NodeOracle]:
    if shutil.which("node") is None:
        pytest.skip("node is not installed: no Node cross-check")
    oracle = NodeOracle()
    yield oracle
    oracle.close()


@pytest.mark.node
@given(wire=wire_texts())
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_agrees_with_node(node: NodeOracle, wire: bytes) -> None:
    answer = node.ask(wire)
    try:
        ours = canonicalize_text(wire)
    except JSONSyntaxError:
        assert not answer["ok"], f"we rejected what Node accepted: {wire!r}"
        return
    assert answer["ok"], f"we accepted what Node rejected: {wire!r}"
    assert ours.text == answer["canonical"]
    assert ours.sha256 == answer["sha256"]
    # Node counts tokens whenever js-tiktoken is installed (CI installs it): no silent skip then.
    assert (answer["tokens"] is not None) is node.has_tokens
    if node.has_tokens:
        assert count_tokens(ours.text) == answer["tokens"]


GARBLED = [b"[1,]", b"[01]", b"{'a':1}", b'["\\x"]', b"[NaN]", b"\xef\xbb\xbf[]", b'["a\x01"]']


@pytest.mark.node
@pytest.mark.parametrize("wire", GARBLED)
def test_rejects_exactly_what_node_rejects(node: NodeOracle, wire: bytes) -> None:
    assert not node.ask(wire)["ok"]
    with pytest.raises(JSONSyntaxError):
        parse_json(wire)


@pytest.mark.node
def test_mutated_texts_accepted_or_rejected_like_node(node: NodeOracle) -> None:
    rng = random.Random(1234)
    base = b'{"a":[1,2.5e-7,"x\\u00e9",{"10":true,"2":null}],"b":-0}'
    alphabet = b' ,:[]{}"\\01eE.-+tfnu'
    for _ in range(400):
        data = bytearray(base)
        for _ in range(rng.randint(1, 3)):
            pos = rng.randrange(len(data))
            op = rng.random()
            if op < 0.4:
                data[pos] = rng.choice(alphabet)
            elif op < 0.7:
                del data[pos]
            else:
                data.insert(pos, rng.choice(alphabet))
        wire = bytes(data)
        answer = node.ask(wire)
        try:
            ours = canonicalize_text(wire)
        except JSONSyntaxError:
            assert not answer["ok"], wire
            continue
        assert answer["ok"], wire
        assert ours.text == answer["canonical"], wire
        assert ours.sha256 == hashlib.sha256(answer["canonical"].encode()).hexdigest()
