r"""The bundled ``o200k_base`` tokenizer: offline, hash-checked, cheap to start.

Counting splits text into pieces with o200k_base's pattern and byte-pair encodes each piece. Two
encoders give the same count, and the tokenizer picks one per call:

* the compact encoder looks ranks up in a memory-mapped table (``core.ranks``) and merges in
  Python. It starts in milliseconds and holds only the pages it touches, so a process that counts
  a few small documents (``mcpcost count``, one audit) never pays for the full tokenizer;
* tiktoken's Rust core (its public ``Encoding``), built from the same table on first need, is
  faster per byte: it takes over for long pieces and once a process has counted more than
  ``COMPACT_BUDGET`` characters. Either way the split into pieces is ours; the core only
  byte-pair encodes the pieces.

The split follows JavaScript, not Rust: the reference counts with js-tiktoken, whose split is the
JavaScript engine's RegExp (Unicode 17.0 classes, ECMAScript's ``\s``), so text is split by
``core.pretokenize`` with class tables shipped with us (for ASCII text every split agrees, and the
pattern restricted to ASCII serves).
Text that looks like a special token (``<|endoftext|>``) is counted as the ordinary text it is.
Why the two encoders agree, and how that is tested, is in ``spec/METHODOLOGY.md``.
"""

from __future__ import annotations

import re
import threading
from typing import Any, Protocol

from mcpcost.core.pretokenize import ascii_split_pattern, js_splitter
from mcpcost.core.ranks import RankTable, open_rank_table

ENCODING_NAME = "o200k_base"
# SHA-256 of the published o200k_base.tiktoken file the bundled rank table is derived from.
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"

# The split pattern of o200k_base, as published with tiktoken (tiktoken_ext.openai_public).
O200K_PAT_STR = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
O200K_SPECIAL_TOKENS = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
# The split pattern of the core's encoding: the whole text is one piece, since the text it is
# given is always one piece of our split.
WHOLE_PIECE_PATTERN = r"(?s:.+)"

# Characters a process may count with the compact encoder before the Rust core is built: enough
# for an audit of ordinary servers, little enough that a bulk run soon switches to the core.
COMPACT_BUDGET = 300_000
# Merging in Python is quadratic in the piece; longer pieces go to the Rust core.
COMPACT_PIECE_LIMIT = 256

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_PIECE_CACHE_LIMIT = 500_000
_NO_RANK = 1 << 32


class Tokenizer(Protocol):
    """Counts tokens in text. The only thing the measurement needs from a tokenizer."""

    @property
    def name(self) -> str: ...

    def count(self, text: str) -> int: ...


def merge_count(piece: bytes, table: RankTable) -> int:
    """Tokens byte-pair encoding gives ``piece``: merge the leftmost lowest-ranked pair until no
    adjacent pair is a token (the order tiktoken's core merges in, hence the same result)."""
    rank = table.rank
    whole = rank(piece)
    if whole >= 0:
        return 1

    def pair_rank(a: int, b: int) -> int:
        r = rank(piece[a:b])
        return r if r >= 0 else _NO_RANK

    bounds = list(range(len(piece) + 1))
    pairs = [pair_rank(i, i + 2) for i in range(len(piece) - 1)]
    while pairs:
        best = min(pairs)
        if best == _NO_RANK:
            break
        i = pairs.index(best)
        del bounds[i + 1]
        del pairs[i]
        if i < len(pairs):
            pairs[i] = pair_rank(bounds[i], bounds[i + 2])
        if i > 0:
            pairs[i - 1] = pair_rank(bounds[i - 1], bounds[i + 1])
    return len(bounds) - 1


class O200kTokenizer:
    """o200k_base counts from the compact encoder or tiktoken's core, whichever suits the call."""

    name = ENCODING_NAME

    def __init__(self, table: RankTable, compact_budget: int = COMPACT_BUDGET) -> None:
        self.table = table
        self.compact_budget = compact_budget
        self.piece_cache: dict[str, int] = {}
        self._compact_chars = 0
        self._core: Any = None
        self._core_lock = threading.Lock()

    def count(self, text: str) -> int:
        if self._core is None and self._compact_chars + len(text) <= self.compact_budget:
            self._compact_chars += len(text)
            n = self._count_compact(text)
            if n is not None:
                return n
        return self.count_with_core(text)

    @property
    def core(self) -> Any:
        """tiktoken's ``Encoding`` over the same ranks, one piece per call (``build_core``),
        built on first use (about 0.3 s, 60 MB)."""
        if self._core is None:
            with self._core_lock:
                if self._core is None:
                    self._core = build_core(self.table)
        return self._core

    def _pieces(self, text: str) -> list[str]:
        if text.isascii():
            return ascii_split_pattern().findall(text)
        return js_splitter().split(_without_lone_surrogates(text))

    def _count_compact(self, text: str) -> int | None:
        """The count from the compact encoder, or None when a piece is too long for it."""
        cache = self._cache()
        pieces = self._pieces(text)
        try:  # every piece seen before: the sum runs at C speed
            return sum(map(cache.__getitem__, pieces))
        except KeyError:
            pass
        table = self.table
        total = 0
        for piece in pieces:
            n = cache.get(piece)
            if n is None:
                data = piece.encode("utf-8")
                if len(data) > COMPACT_PIECE_LIMIT:
                    return None
                n = merge_count(data, table)
                cache[piece] = n
            total += n
        return total

    def count_with_core(self, text: str) -> int:
        """Split here (the JavaScript pattern); byte-pair encode each new piece with the core."""
        encode_piece = self.core.encode_ordinary
        cache = self._cache()
        total = 0
        for piece in self._pieces(text):
            n = cache.get(piece)
            if n is None:
                n = len(encode_piece(piece))
                cache[piece] = n
            total += n
        return total

    def _cache(self) -> dict[str, int]:
        if len(self.piece_cache) > _PIECE_CACHE_LIMIT:
            self.piece_cache.clear()
        return self.piece_cache


def _without_lone_surrogates(text: str) -> str:
    # A JavaScript engine encodes a lone surrogate as U+FFFD, and U+FFFD falls in the same
    # character class as a surrogate, so replacing first changes no piece boundary.
    if _LONE_SURROGATE.search(text):
        return _LONE_SURROGATE.sub("\ufffd", text)
    return text


def build_core(table: RankTable) -> Any:
    """A tiktoken ``Encoding`` of o200k_base's ranks that byte-pair encodes a text as one piece
    (``WHOLE_PIECE_PATTERN``): given one piece of our split, its ``encode_ordinary`` is that
    piece's tokens. No special tokens: only ordinary text is ever encoded with it."""
    import tiktoken  # only when first needed: it loads the Rust extension, regex and more

    ranks = dict(zip(table.tokens(), range(table.size), strict=True))
    return tiktoken.Encoding(
        f"{ENCODING_NAME}-pieces",
        pat_str=WHOLE_PIECE_PATTERN,
        mergeable_ranks=ranks,
        special_tokens={},
    )


_lock = threading.Lock()
_cached: O200kTokenizer | None = None


def get_tokenizer() -> O200kTokenizer:
    """The process-wide o200k_base tokenizer, opened on first use and then reused."""
    global _cached
    if _cached is None:
        with _lock:
            if _cached is None:
                _cached = O200kTokenizer(open_rank_table())
    return _cached


def count_tokens(text: str) -> int:
    """o200k_base token count of ``text`` (special-token text counts as ordinary text)."""
    return get_tokenizer().count(text)
