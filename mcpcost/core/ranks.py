"""o200k_base's byte-pair ranks in a compact, memory-mapped table.

Counting needs one thing from the ranks: given a byte string, its rank or "not a token". The
published ``.tiktoken`` file (base64 token and rank per line) must be decoded into a 200,000-entry
dictionary before the first lookup, which costs most of a CLI run's start-up and about 100 MB. The
table here answers the same question straight from a file mapped into memory, so a process pays
only for the pages its lookups touch. Its layout (little-endian ``uint32`` throughout):

    header   magic ``MCPRANK1``, token count N, slot bits B, byte length of the token blob
    ends     N values: token r occupies blob[ends[r-1]:ends[r]] (ranks are 0..N-1, dense)
    slots    2**B values: rank + 1, or 0 for an empty slot; open addressing on crc32(token)
    blob     every token's bytes, in rank order

The file is derived from the published ranks by :func:`build_rank_table`; a test rebuilds it
from the published file (whose SHA-256 is pinned) and compares it byte for byte, and
:func:`open_rank_table` checks the shipped file against its own pinned SHA-256.
"""

from __future__ import annotations

import base64
import struct
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcpcost.core.bundled import map_bundled
from mcpcost.core.digest import sha256_hex
from mcpcost.errors import TokenizerError

if TYPE_CHECKING:
    import mmap

TABLE_FILE = "o200k_base.ranks"
TABLE_SHA256 = "ba162fb86fb493f0c73462fefea5289b58de1ebfccbc7341712b9683f5869119"
_MAGIC = b"MCPRANK1"
_HEADER = struct.Struct("<8sIII")
_SLOT_BITS = 19  # 524,288 slots for about 200,000 tokens: load factor under 0.4
# The table is little-endian; a memoryview cast reads the host's order.
_HOST_IS_LITTLE_ENDIAN = struct.pack("=I", 1) == struct.pack("<I", 1)


def parse_tiktoken_file(data: bytes) -> list[bytes]:
    """Tokens of a ``.tiktoken`` file in rank order; ranks must be exactly 0..N-1."""

    pairs: list[tuple[int, bytes]] = []
    for line in data.splitlines():
        if not line:
            continue
        token, rank = line.split()
        pairs.append((int(rank), base64.b64decode(token)))
    pairs.sort()
    if [rank for rank, _ in pairs] != list(range(len(pairs))):
        raise TokenizerError("ranks are not the dense sequence 0..N-1")
    return [token for _, token in pairs]


def build_rank_table(tokens: list[bytes], slot_bits: int = _SLOT_BITS) -> bytes:
    """The table file for ``tokens`` (in rank order)."""
    mask = (1 << slot_bits) - 1
    slots = [0] * (1 << slot_bits)
    ends: list[int] = []
    end = 0
    for rank, token in enumerate(tokens):
        end += len(token)
        ends.append(end)
        slot = zlib.crc32(token) & mask
        while slots[slot]:
            slot = (slot + 1) & mask
        slots[slot] = rank + 1
    blob = b"".join(tokens)
    return b"".join(
        [
            _HEADER.pack(_MAGIC, len(tokens), slot_bits, len(blob)),
            struct.pack(f"<{len(ends)}I", *ends),
            struct.pack(f"<{len(slots)}I", *slots),
            blob,
        ]
    )


@dataclass(frozen=True, slots=True)
class RankTable:
    """Rank lookups over a table file's bytes (a memory map or an in-memory copy)."""

    size: int
    ends: memoryview
    slots: memoryview
    blob: bytes | mmap.mmap
    blob_start: int
    mask: int

    def rank(self, token: bytes) -> int:
        """The rank of ``token``, or -1 when it is not a token."""
        slots, ends, blob, mask = self.slots, self.ends, self.blob, self.mask
        base = self.blob_start
        length = len(token)
        slot = zlib.crc32(token) & mask
        while True:
            entry = slots[slot]
            if not entry:
                return -1
            rank = entry - 1
            end = ends[rank]
            start = ends[rank - 1] if rank else 0
            if end - start == length and blob[base + start : base + end] == token:
                return rank
            slot = (slot + 1) & mask

    def tokens(self) -> list[bytes]:
        """Every token in rank order (for building a full encoder)."""
        ends = self.ends.tolist()
        base = self.blob_start
        blob = bytes(self.blob[base : base + ends[-1]])
        starts = [0, *ends[:-1]]
        return [blob[a:b] for a, b in zip(starts, ends, strict=True)]


def read_rank_table(data: bytes | mmap.mmap) -> RankTable:
    """Interpret table bytes; raises :class:`TokenizerError` on a malformed header."""
    if len(data) < _HEADER.size:
        raise TokenizerError("rank table is truncated")
    magic, size, slot_bits, blob_len = _HEADER.unpack_from(data, 0)
    ends_at = _HEADER.size
    slots_at = ends_at + 4 * size
    blob_at = slots_at + 4 * (1 << slot_bits)
    if magic != _MAGIC or len(data) != blob_at + blob_len or size == 0:
        raise TokenizerError("rank table is malformed")
    view = memoryview(data)
    ends = view[ends_at:slots_at].cast("I")
    slots = view[slots_at:blob_at].cast("I")
    if not _HOST_IS_LITTLE_ENDIAN:  # copy and swap on other hosts
        import array

        ends_arr, slots_arr = array.array("I", ends), array.array("I", slots)
        ends_arr.byteswap()
        slots_arr.byteswap()
        ends, slots = memoryview(ends_arr), memoryview(slots_arr)
    return RankTable(
        size=size,
        ends=ends,
        slots=slots,
        blob=data,
        blob_start=blob_at,
        mask=(1 << slot_bits) - 1,
    )


def open_rank_table(expected_sha256: str = TABLE_SHA256) -> RankTable:
    """The bundled table, memory-mapped and checked against its pinned SHA-256."""
    try:
        mapped = map_bundled(TABLE_FILE)
    except (OSError, ValueError) as exc:
        raise TokenizerError(f"bundled tokenizer data is missing ({exc})") from None
    with memoryview(mapped) as view:
        digest = sha256_hex(view)
    if digest != expected_sha256:
        raise TokenizerError(
            f"bundled rank table has sha256 {digest}, expected {expected_sha256}; "
            "the installation is corrupt, reinstall mcp-context-cost"
        )
    return read_rank_table(mapped)
