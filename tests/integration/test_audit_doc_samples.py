"""docs/AUDIT.md's real-output samples are what the commands print (``MCPCOST_UPDATE_GOLDEN=1``
rewrites them)."""

from __future__ import annotations

import os

from tests.helpers.audit_samples import comparable, doc_samples, generate, write_samples


def test_the_audit_docs_samples_are_the_real_output() -> None:
    now = generate()
    if os.environ.get("MCPCOST_UPDATE_GOLDEN") == "1":
        write_samples(now)
    shown = doc_samples()
    assert set(shown) == set(now)
    for name, text in now.items():
        assert comparable(shown[name]) == comparable(text), name
