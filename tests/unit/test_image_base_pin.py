"""The Action's Dockerfile builds, by default, on a base pinned by digest (GitHub builds this file
for ``uses: <repository>@<sha>``), and a local build's ``--build-arg BASE`` still replaces it."""

from __future__ import annotations

import re

from tests.helpers.paths import ROOT

PINNED = re.compile(r"^ARG BASE=debian:bookworm-slim@sha256:[0-9a-f]{64}$", re.MULTILINE)


def test_the_action_dockerfile_pins_its_default_base_by_digest() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert PINNED.search(text), "ARG BASE must name debian:bookworm-slim@sha256:<digest>"
    froms = [line for line in text.splitlines() if line.startswith("FROM ")]
    assert froms == ["FROM ${BASE}"]  # one stage, on the argument a local build gives
