"""Where the data files shipped inside the package live: ``mcpcost/core/data/``.

They are opened by path. A wheel installs the package as plain files, so no resource loader is
needed, and reading by path keeps ``importlib.resources`` (and what it imports) out of the start-up
of every command.
"""

from __future__ import annotations

import os

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def bundled_path(name: str) -> str:
    """The path of a bundled data file (``name`` is a plain file name under ``core/data``)."""
    if not name or os.sep in name or "/" in name or name.startswith("."):
        raise ValueError(f"not a bundled file name: {name!r}")
    return os.path.join(DATA_DIR, name)
