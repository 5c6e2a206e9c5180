"""SHA-256, the one hash the package publishes (canonical bytes, launch keys, fingerprints).

Every input, bytes or any contiguous buffer (a memory map included), goes to :mod:`hashlib`.
"""

from __future__ import annotations

import hashlib


def sha256_digest(data: bytes | memoryview) -> bytes:
    """The 32-byte SHA-256 of ``data`` (bytes or any buffer, a memory map included)."""
    return hashlib.sha256(data).digest()


def sha256_hex(data: bytes | memoryview) -> str:
    """The SHA-256 of ``data`` as 64 lowercase hex digits."""
    return hashlib.sha256(data).hexdigest()
