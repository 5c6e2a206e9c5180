"""SHA-256, the one hash the package publishes (canonical bytes, launch keys, fingerprints).

Importing :mod:`hashlib` loads OpenSSL, about 4 ms, and an audit hashes a launch key before it
starts its first server. Python's built-in SHA-256 module needs no library; it is about five
times slower per byte, which for a launch key or a tools array is microseconds to a millisecond.
So inputs up to ``BUILTIN_LIMIT`` go to it and longer ones (the 4 MB rank table) to
:mod:`hashlib`. Both compute the same function: a test checks them against each other and
against published test vectors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# Above this many bytes OpenSSL's speed pays for loading it.
BUILTIN_LIMIT = 1 << 20

Hasher = Callable[[Any], Any]


def _builtin() -> Hasher:
    try:  # Python 3.12 and later
        from _sha2 import sha256 as builtin  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        try:  # Python 3.11
            from _sha256 import sha256 as builtin  # type: ignore[import-not-found,no-redef,unused-ignore]
        except ImportError:  # a build without it: OpenSSL's is the only one
            from hashlib import sha256 as builtin
    return builtin  # type: ignore[no-any-return,unused-ignore]


_BUILTIN = _builtin()


def _hasher(data: bytes | memoryview) -> Hasher:
    size = data.nbytes if isinstance(data, memoryview) else len(data)
    if size <= BUILTIN_LIMIT:
        return _BUILTIN
    from hashlib import sha256

    return sha256


def sha256_digest(data: bytes | memoryview) -> bytes:
    """The 32-byte SHA-256 of ``data`` (bytes or any buffer, a memory map included)."""
    return bytes(_hasher(data)(data).digest())


def sha256_hex(data: bytes | memoryview) -> str:
    """The SHA-256 of ``data`` as 64 lowercase hex digits."""
    return str(_hasher(data)(data).hexdigest())
