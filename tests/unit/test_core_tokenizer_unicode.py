"""Token counts follow JavaScript's pre-tokenisation (Unicode 17.0 class tables, ECMAScript
``\\s``), which is what js-tiktoken computes in current Node, not tiktoken's Rust tables."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from mcpcost.core.pretokenize import (
    CLASS_NAMES,
    LITERAL_MEMBERS,
    SIGNATURES,
    JsSplitter,
    ascii_split_pattern,
    derive_literal_members,
    derive_signatures,
    js_splitter,
    load_class_tables,
    signature_of_mask,
)
from mcpcost.core.tokenizer import count_tokens, get_tokenizer
from tests.helpers.paths import SPEC_FIXTURES

VECTORS: dict[str, Any] = json.loads((SPEC_FIXTURES / "tokenizer-vectors.json").read_text("utf-8"))


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: repr(v["text"][:24]))
def test_counts_match_js_tiktoken(vector: dict[str, Any]) -> None:
    assert count_tokens(vector["text"]) == vector["tokens"]


def test_rust_split_really_differs_on_new_characters(tiktoken_o200k: Any) -> None:
    # The reason the split is done here: tiktoken's own split gives another count.
    text = '{"\U000323b0\\u001f":null}'
    assert len(tiktoken_o200k.encode_ordinary(text)) != count_tokens(text)


def test_ascii_fast_path_agrees_with_the_javascript_split(tiktoken_o200k: Any) -> None:
    tk = get_tokenizer()
    sample = "".join(chr(c) for c in range(128)) * 3 + " it's   done\n\n\tok  "
    pieces = js_splitter().split(sample)
    assert ascii_split_pattern().findall(sample) == pieces
    by_piece = sum(len(tk.core.encode_ordinary(piece)) for piece in pieces)
    assert len(tiktoken_o200k.encode_ordinary(sample)) == by_piece == tk.count_with_core(sample)


def test_split_pieces_as_nodes_regexp_gives_them() -> None:
    # expected pieces taken from Node 20.20 (Unicode 17.0) running the same pattern with /gu
    pieces = js_splitter().split("x\ufeffy \u0085z it'S \U000323b0\\u")
    assert pieces == ["x", "\ufeffy", " \x85", "z", " it'S", " \U000323b0", "\\u"]


def test_bundled_tables_are_well_formed() -> None:
    tables = load_class_tables()
    assert tables["unicode"] == "17.0"
    for name in CLASS_NAMES:
        ranges = tables["classes"][name]
        assert ranges and all(lo <= hi for lo, hi in ranges)
        assert all(a[1] + 1 < b[0] for a, b in itertools.pairwise(ranges))
        assert not any(lo <= 0xDFFF and hi >= 0xD800 for lo, hi in ranges)


def test_signature_sweep_equals_the_membership_of_each_boundary() -> None:
    # the splitter finds its signatures in one sweep; this is the definition, point by point
    splitter = js_splitter()
    points = {0x80}
    for name in CLASS_NAMES:
        for lo, hi in splitter.classes[name]:
            points.update((lo, hi + 1))
    pointwise: dict[tuple[bool, ...], None] = {}
    for cp in sorted(p for p in points if 0x80 <= p <= 0x10FFFF):
        pointwise.setdefault(splitter.signature(cp), None)
    assert [signature_of_mask(m) for m in derive_signatures(splitter.classes)] == list(pointwise)
    assert len(pointwise) > 1
    # the splitter uses the signatures written out in the module: they are these
    assert derive_signatures(splitter.classes) == SIGNATURES
    # and the literal members its patterns are built from
    assert derive_literal_members(splitter.classes) == LITERAL_MEMBERS


def test_the_tables_are_read_only_for_a_character_outside_ascii() -> None:
    reads: list[int] = []

    def tables() -> dict[str, list[list[int]]]:
        reads.append(1)
        classes: dict[str, list[list[int]]] = load_class_tables()["classes"]
        return classes

    splitter = JsSplitter(tables)
    assert splitter.split("it's 12345 ok\n  done") == [
        "it's",
        " ",
        "123",
        "45",
        " ok",
        "\n",
        " ",
        " done",
    ]
    assert reads == []
    assert splitter.split("caf\u00e9 \u2014 x") == ["caf\u00e9", " \u2014", " x"]
    assert splitter.split("na\u00efve") == ["na\u00efve"]
    assert reads == [1]  # once, then kept


def test_stand_in_split_equals_a_direct_split_with_the_full_classes() -> None:
    # The splitter matches on class representatives; a direct match with every class written
    # out as ranges (slow, but obviously faithful) must give the same pieces.
    import re

    from mcpcost.core.pretokenize import CONTRACTIONS

    classes = load_class_tables()["classes"]

    def ranges(name: str) -> str:
        return "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in classes[name])

    c = {name: ranges(name) for name in CLASS_NAMES}
    up = c["Lu"] + c["Lt"] + c["Lm"] + c["Lo"] + c["M"]
    low = c["Ll"] + c["Lm"] + c["Lo"] + c["M"]
    ln, ws = c["L"] + c["N"], c["s"]
    direct = re.compile(
        "|".join(
            [
                rf"[^\r\n{ln}]?[{up}]*[{low}]+{CONTRACTIONS}",
                rf"[^\r\n{ln}]?[{up}]+[{low}]*{CONTRACTIONS}",
                rf"[{c['N']}]{{1,3}}",
                rf" ?[^{ws}{ln}]+[\r\n/]*",
                rf"[{ws}]*[\r\n]+",
                rf"[{ws}]+(?![^{ws}])",
                rf"[{ws}]+",
            ]
        )
    )
    samples = []
    for cp in range(0x80, 0x40000, 61):
        if not 0xD800 <= cp <= 0xDFFF:
            ch = chr(cp)
            samples.append(f"a{ch}b {ch}'s 1{ch}2\n{ch}'\u017f{ch.upper()} ")
    splitter = js_splitter()
    for text in samples:
        assert splitter.split(text) == direct.findall(text), ascii(text)
