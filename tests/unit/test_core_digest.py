"""SHA-256 through ``core.digest``: the published test vectors, over bytes, views and maps."""

from __future__ import annotations

import hashlib
import mmap
from pathlib import Path

import pytest

from mcpcost.core.digest import sha256_digest, sha256_hex

# FIPS 180-2 examples
VECTORS = {
    b"": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    b"abc": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq": (
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    b"a" * 1_000_000: "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
}


@pytest.mark.parametrize("data", list(VECTORS), ids=["empty", "abc", "two-blocks", "million-a"])
def test_published_vectors(data: bytes) -> None:
    assert sha256_hex(data) == VECTORS[data]
    assert sha256_digest(data) == bytes.fromhex(VECTORS[data])
    assert sha256_hex(memoryview(data)) == VECTORS[data]


def test_a_memory_map_hashes_like_its_bytes(tmp_path: Path) -> None:
    path = tmp_path / "blob"
    path.write_bytes(b"\x00\xff" * 700_000)
    with open(path, "rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    with memoryview(mapped) as view:
        assert sha256_hex(view) == hashlib.sha256(path.read_bytes()).hexdigest()
    mapped.close()  # no view left exported


def test_a_view_of_wide_items_hashes_its_bytes() -> None:
    data = bytes(range(256)) * 16  # 4 KiB
    words = memoryview(data).cast("I")  # 1,024 items of 4 bytes
    assert sha256_hex(words) == hashlib.sha256(data).hexdigest()
    assert sha256_digest(words) == hashlib.sha256(data).digest()
