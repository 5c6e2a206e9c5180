"""Node as the reference: its JSON.parse and JSON.stringify agree with our canonical form on
generated, garbled and mutated wire text (and js-tiktoken with our count), and the bundled Unicode
class tables equal the ones Node's regular expressions use."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import subprocess
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings

from mcpcost.core.canonical import canonicalize_text
from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.pretokenize import load_class_tables
from mcpcost.core.tokenizer import count_tokens
from mcpcost.errors import JSONSyntaxError
from tests.helpers.json_strategies import wire_texts
from tests.helpers.node_oracle import NodeOracle
from tests.helpers.paths import ROOT


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


@pytest.mark.node
@pytest.mark.slow
def test_bundled_tables_equal_nodes_regexp() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: no Unicode table cross-check")
    proc = subprocess.run(
        [node, str(ROOT / "tests" / "node" / "unicode-classes.mjs")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    theirs = json.loads(proc.stdout)
    if theirs["unicode"] != "17.0":
        pytest.skip(f"this Node uses Unicode {theirs['unicode']}; the bundled tables are 17.0")
    assert load_class_tables()["classes"] == theirs["classes"]
