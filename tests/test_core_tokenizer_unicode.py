"""Token counts follow JavaScript's pre-tokenisation (Unicode 17.0 tables, ECMAScript ``\\s``),
which is what js-tiktoken computes in current Node, not tiktoken's Rust tables."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest
import regex

from mcpcost.core.tokenizer import _JS_WS, count_tokens, get_tokenizer
from tests.conftest import FIXTURES, ROOT

VECTORS: dict[str, Any] = json.loads((FIXTURES / "tokenizer-vectors.json").read_text("utf-8"))


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=lambda v: repr(v["text"][:24]))
def test_counts_match_js_tiktoken(vector: dict[str, Any]) -> None:
    assert count_tokens(vector["text"]) == vector["tokens"]


def test_rust_split_really_differs_on_new_characters() -> None:
    # The reason the split is done here: tiktoken's own split gives another count.
    text = '{"\U000323b0\\u001f":null}'
    assert len(get_tokenizer().encoding.encode_ordinary(text)) != count_tokens(text)


def test_ascii_fast_path_agrees_with_the_javascript_split() -> None:
    tk = get_tokenizer()
    sample = "".join(chr(c) for c in range(128)) * 3 + " it's   done\n\n\tok  "
    assert len(tk.encoding.encode_ordinary(sample)) == tk._count_split_here(sample)


def _ranges(pattern: str) -> list[list[int]]:
    compiled = regex.compile(pattern)
    ranges: list[list[int]] = []
    start = -1
    for cp in range(0x110001):
        inside = cp < 0x110000 and not 0xD800 <= cp <= 0xDFFF and bool(compiled.match(chr(cp)))
        if inside and start < 0:
            start = cp
        if not inside and start >= 0:
            ranges.append([start, cp - 1])
            start = -1
    return ranges


@pytest.mark.node
@pytest.mark.slow
def test_character_classes_equal_nodes() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: no Unicode table cross-check")
    proc = subprocess.run(
        [node, str(ROOT / "tests" / "node" / "unicode-classes.mjs")],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    theirs = json.loads(proc.stdout)
    if theirs["unicode"] != "17.0":
        pytest.skip(f"this Node uses Unicode {theirs['unicode']}; the pinned tables are 17.0")
    ours = {
        name: _ranges(rf"\p{{{name}}}") for name in ("L", "N", "Lu", "Lt", "Lm", "Lo", "M", "Ll")
    }
    ours["s"] = _ranges(f"[{_JS_WS}]")
    for name, ranges in ours.items():
        assert ranges == theirs["classes"][name], name
