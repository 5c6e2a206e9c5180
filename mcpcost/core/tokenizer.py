r"""The bundled ``o200k_base`` tokenizer, loaded offline and hash-checked.

tiktoken would download the BPE ranks on first use; we never do. The ranks ship gzipped inside
the package (``data/o200k_base.tiktoken.gz``), are checked against the SHA-256 OpenAI publishes
for the uncompressed file, and feed tiktoken's Rust core directly. Text that looks like a special
token (``<|endoftext|>``) is counted as the ordinary text it is.

Pre-tokenisation follows JavaScript, not Rust. o200k_base first splits text with a regular
expression built on Unicode character classes (``\p{L}``, ``\p{N}``, ``\s``...), then byte-pair
encodes each piece. The reference counts with js-tiktoken, whose split runs on the JavaScript
engine's RegExp: Unicode 17.0 tables in current Node.js, and ECMAScript's own definition of
``\s`` (which includes U+FEFF and excludes U+0085). tiktoken's Rust core splits with older
Unicode tables and Unicode's White_Space property, so for recently assigned characters (CJK
Extension J, for one) and for U+0085/U+FEFF the two disagree on the pieces and so on the count.
For ASCII text the two splits are identical and tiktoken's fast path is used; any other text is
split here with the JavaScript-equivalent pattern of ``core.pretokenize`` (Unicode 17.0 class
tables shipped with us, ECMAScript whitespace), and each piece is byte-pair encoded by tiktoken's
core.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import re
import threading
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol

from mcpcost.core.pretokenize import js_splitter
from mcpcost.errors import TokenizerError

ENCODING_NAME = "o200k_base"
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
_DATA_FILE = "o200k_base.tiktoken.gz"

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

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_PIECE_CACHE_LIMIT = 500_000


class Tokenizer(Protocol):
    """Counts tokens in text. The only thing the measurement needs from a tokenizer."""

    @property
    def name(self) -> str: ...

    def count(self, text: str) -> int: ...

    def count_many(self, texts: list[str]) -> list[int]: ...


@dataclass(frozen=True)
class TiktokenTokenizer:
    """A tiktoken ``Encoding`` that counts ordinary text with JavaScript's pre-tokenisation."""

    name: str
    encoding: Any
    piece_cache: dict[str, int]

    def count(self, text: str) -> int:
        if text.isascii():
            return len(self.encoding.encode_ordinary(text))
        return self._count_split_here(text)

    def count_many(self, texts: list[str]) -> list[int]:
        return [self.count(t) for t in texts]

    def _count_split_here(self, text: str) -> int:
        # A JavaScript engine encodes a lone surrogate as U+FFFD, and U+FFFD falls in the same
        # character class as a surrogate, so replacing first changes no piece boundary.
        if _LONE_SURROGATE.search(text):
            text = _LONE_SURROGATE.sub("\ufffd", text)
        cache = self.piece_cache
        if len(cache) > _PIECE_CACHE_LIMIT:
            cache.clear()
        encode_piece = self.encoding._core_bpe.encode_single_piece
        total = 0
        for piece in js_splitter().split(text):
            n = cache.get(piece)
            if n is None:
                n = len(encode_piece(piece.encode("utf-8")))
                cache[piece] = n
            total += n
        return total


def load_bpe_ranks(data: bytes, expected_sha256: str = O200K_SHA256) -> dict[bytes, int]:
    """Parse a ``.tiktoken`` file (base64 token, space, rank per line) after checking its hash."""
    digest = hashlib.sha256(data).hexdigest()
    if digest != expected_sha256:
        raise TokenizerError(
            f"bundled {ENCODING_NAME} data has sha256 {digest}, expected {expected_sha256}; "
            "the installation is corrupt, reinstall mcp-context-cost"
        )
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if not line:
            continue
        token, rank = line.split()
        ranks[base64.b64decode(token)] = int(rank)
    return ranks


def read_bundled_data() -> bytes:
    """The uncompressed bytes of the bundled o200k_base ranks."""
    try:
        packed = resources.files("mcpcost.core").joinpath("data", _DATA_FILE).read_bytes()
    except (FileNotFoundError, OSError) as exc:
        raise TokenizerError(f"bundled tokenizer data is missing ({exc})") from None
    try:
        return gzip.decompress(packed)
    except (OSError, EOFError) as exc:
        raise TokenizerError(f"bundled tokenizer data is unreadable ({exc})") from None


def build_o200k(data: bytes) -> TiktokenTokenizer:
    """Build the o200k_base tokenizer from the uncompressed ranks file."""
    import tiktoken

    encoding = tiktoken.Encoding(
        name=ENCODING_NAME,
        pat_str=O200K_PAT_STR,
        mergeable_ranks=load_bpe_ranks(data),
        special_tokens=O200K_SPECIAL_TOKENS,
    )
    return TiktokenTokenizer(name=ENCODING_NAME, encoding=encoding, piece_cache={})


_lock = threading.Lock()
_cached: TiktokenTokenizer | None = None


def get_tokenizer() -> TiktokenTokenizer:
    """The process-wide o200k_base tokenizer, loaded on first use and then reused."""
    global _cached
    if _cached is None:
        with _lock:
            if _cached is None:
                _cached = build_o200k(read_bundled_data())
    return _cached


def count_tokens(text: str) -> int:
    """o200k_base token count of ``text`` (special-token text counts as ordinary text)."""
    return get_tokenizer().count(text)
