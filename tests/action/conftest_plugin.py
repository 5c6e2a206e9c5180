"""Fixtures for the Action's tests (registered in tests/conftest.py with ``pytest_plugins``): the
loopback GitHub fake and the simulated runner around a fresh git repository."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.action.github_fake import FakeGitHub
from tests.action.runner_sim import Sim


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    server = FakeGitHub().start()
    yield server
    server.stop()
    assert server.problems == []


@pytest.fixture
def sim(tmp_path: Path, fake: FakeGitHub) -> Sim:
    return Sim(tmp_path, fake)
