"""The compact engine (memory-mapped ranks, merging in Python) counts exactly as tiktoken's core:
tiktoken's own o200k_base encoding for ASCII text (where every split agrees), and our JavaScript
split with tiktoken's byte-pair encoding of each piece for the rest."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpcost.core.ranks import TABLE_FILE, build_rank_table, open_rank_table, parse_tiktoken_file
from mcpcost.core.tokenizer import (
    COMPACT_PIECE_LIMIT,
    O200K_SHA256,
    O200kTokenizer,
    get_tokenizer,
    merge_count,
)
from mcpcost.errors import TokenizerError
from tests.helpers.paths import ROOT

PUBLISHED_RANKS = ROOT / "spec" / "data" / "o200k_base.tiktoken.gz"
SHIPPED_TABLE = ROOT / "mcpcost" / "core" / "data" / TABLE_FILE

# Characters that exercise the split's classes and many merges: ASCII words and punctuation,
# JSON syntax, digits, whitespace of every kind the pattern treats apart, accented and CJK
# letters, marks, an emoji, U+0085 and U+FEFF (where JavaScript's \s differs from Unicode's).
ALPHABET = "abcdeXYZ io'stre0123456789 \t\n\r\"{}[]:,./\\-_éüñçà中文字😀\u0301\u0085\ufeff\u00a0"


def core_count(tiktoken_o200k: Any, tk: O200kTokenizer, text: str) -> int:
    if text.isascii():
        return len(tiktoken_o200k.encode_ordinary(text))
    return tk.count_with_core(text)


def compact_count(tk: O200kTokenizer, text: str) -> int | None:
    tk.piece_cache.clear()
    return tk._count_compact(text)


def test_shipped_table_is_derived_from_the_published_ranks() -> None:
    raw = gzip.decompress(PUBLISHED_RANKS.read_bytes())
    assert hashlib.sha256(raw).hexdigest() == O200K_SHA256
    assert build_rank_table(parse_tiktoken_file(raw)) == SHIPPED_TABLE.read_bytes()


def test_table_lookups_find_every_token_and_nothing_else() -> None:
    table = open_rank_table()
    tokens = table.tokens()
    assert len(tokens) == table.size == 199_998
    assert all(table.rank(tokens[rank]) == rank for rank in range(0, table.size, 97))
    assert table.rank(b"") == -1
    assert table.rank(b"\x00\xff not a token at all \xfe") == -1


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=80))
def test_compact_equals_core_on_arbitrary_text(tiktoken_o200k: Any, text: str) -> None:
    tk = get_tokenizer()
    assert compact_count(tk, text) == core_count(tiktoken_o200k, tk, text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=COMPACT_PIECE_LIMIT))
def test_merges_equal_core_on_long_single_pieces(tiktoken_o200k: Any, word: str) -> None:
    # One long lowercase run is one piece: the merge order decides the count.
    tk = get_tokenizer()
    assert merge_count(word.encode(), tk.table) == len(tiktoken_o200k.encode_ordinary(word))
    assert len(tk.core.encode_ordinary(word)) == len(tiktoken_o200k.encode_ordinary(word))


def test_compact_equals_core_on_published_captures(
    tiktoken_o200k: Any, reference_captures: list[Path]
) -> None:
    tk = get_tokenizer()
    for path in reference_captures:
        text = path.read_text("utf-8")
        assert compact_count(tk, text) == core_count(tiktoken_o200k, tk, text), path.name


def test_compact_equals_core_on_the_tokenizer_vectors() -> None:
    vectors = json.loads((ROOT / "spec" / "fixtures" / "tokenizer-vectors.json").read_text())
    tk = get_tokenizer()
    for vector in vectors["vectors"]:
        assert compact_count(tk, vector["text"]) == vector["tokens"]


def test_long_pieces_and_bulk_counting_move_to_the_core(tiktoken_o200k: Any) -> None:
    tk = O200kTokenizer(open_rank_table())
    long_piece = "x" * (COMPACT_PIECE_LIMIT + 1)
    assert tk._count_compact(long_piece) is None
    assert tk.count(long_piece) == len(tiktoken_o200k.encode_ordinary(long_piece))

    bulk = O200kTokenizer(open_rank_table(), compact_budget=1_000)
    text = '{"name": "read_file", "description": "Read a file"} '
    expected = core_count(tiktoken_o200k, get_tokenizer(), text)
    counts = [bulk.count(text) for _ in range(1_000 // len(text) + 2)]
    assert set(counts) == {expected}
    assert bulk._core is not None  # past the budget the core was built and used


def test_corrupt_table_bytes_are_refused() -> None:
    with pytest.raises(TokenizerError, match="sha256"):
        open_rank_table(expected_sha256="1" * 64)
