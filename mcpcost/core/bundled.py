"""The data files shipped inside the package (``mcpcost/core/data/``), and the one place in
``core`` that reads a file.

``core`` is pure methodology; the tokenizer's rank table and the JavaScript class tables are part
of that methodology, shipped as package data rather than as code. Reading them is confined to
this module (``tests/unit/test_layers.py`` allows the file access here and nowhere else in ``core``).

Files are opened by path. A wheel installs the package as plain files, so no resource loader is
needed, and reading by path keeps ``importlib.resources`` (and what it imports) out of the start-up
of every command.
"""

from __future__ import annotations

import mmap
import os

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def bundled_path(name: str) -> str:
    """The path of a bundled data file (``name`` is a plain file name under ``core/data``)."""
    if not name or os.sep in name or "/" in name or name.startswith("."):
        raise ValueError(f"not a bundled file name: {name!r}")
    return os.path.join(DATA_DIR, name)


def read_bundled_text(name: str) -> str:
    """The whole of a bundled text file (UTF-8)."""
    with open(bundled_path(name), encoding="utf-8") as handle:
        return handle.read()


def map_bundled(name: str) -> mmap.mmap:
    """A read-only memory map of a bundled file: the process pays only for the pages it reads.

    Raises ``OSError`` when the file is missing or cannot be mapped, ``ValueError`` for a name
    that is not a plain file name.
    """
    with open(bundled_path(name), "rb") as handle:
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
