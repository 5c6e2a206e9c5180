"""The bundled ``o200k_base`` tokenizer, loaded offline and hash-checked.

tiktoken would download the BPE ranks on first use; we never do. The ranks ship gzipped inside
the package (``data/o200k_base.tiktoken.gz``), are checked against the SHA-256 OpenAI publishes
for the uncompressed file, and feed tiktoken's Rust core directly. Counting uses
``encode_ordinary``: text that looks like a special token (``<|endoftext|>``) is ordinary text.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import threading
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol

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


class Tokenizer(Protocol):
    """Counts tokens in text. The only thing the measurement needs from a tokenizer."""

    @property
    def name(self) -> str: ...

    def count(self, text: str) -> int: ...

    def count_many(self, texts: list[str]) -> list[int]: ...


@dataclass(frozen=True)
class TiktokenTokenizer:
    """A tiktoken ``Encoding`` wrapped to count ordinary text."""

    name: str
    encoding: Any

    def count(self, text: str) -> int:
        return len(self.encoding.encode_ordinary(text))

    def count_many(self, texts: list[str]) -> list[int]:
        return [len(t) for t in self.encoding.encode_ordinary_batch(texts, num_threads=1)]


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
    return TiktokenTokenizer(name=ENCODING_NAME, encoding=encoding)


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
