"""Unit tests start no process and open no socket. While tests/unit runs, each attempt is refused
where it is made and fails the test that made it (at its teardown too, since the code under test
may catch what it was refused), naming the folder where the test belongs. The refusal covers the
folder's module and session fixtures as well: it starts before any of them."""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import pytest

# urllib3 (under requests) binds a socket to ::1 when first imported, to learn whether IPv6 works:
# imported here, before the refusal starts, that probe is not taken for a test's socket.
import urllib3  # noqa: F401

CALL_PASSED = pytest.StashKey[bool]()
REFUSED = "refused_in_a_unit_test"
MOVE = (
    "a unit test {what}: it belongs in tests/integration or tests/e2e (see tests/unit/__init__.py)"
)


class RefusedInUnitTest(Exception):
    """What a unit test gets when it starts a process or opens a socket."""


@pytest.fixture(scope="package", autouse=True)
def _refused_attempts() -> Iterator[list[tuple[str, str]]]:
    attempts: list[tuple[str, str]] = []  # (the test running, what it attempted)

    def refuse(what: str) -> Callable[..., Any]:
        def refused(*args: Any, **kwargs: Any) -> Any:
            running = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]
            attempts.append((running, what))
            raise RefusedInUnitTest(MOVE.format(what=what))

        return refused

    refused_popen = refuse("starts a process")
    finalise = subprocess.Popen.__del__

    def popen_init(self: subprocess.Popen[Any], *args: Any, **kwargs: Any) -> None:
        self.__dict__[REFUSED] = True
        refused_popen()

    def popen_del(self: subprocess.Popen[Any]) -> None:
        if not self.__dict__.get(REFUSED):  # a refused Popen holds nothing to finalise
            finalise(self)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(subprocess.Popen, "__init__", popen_init)
        patch.setattr(subprocess.Popen, "__del__", popen_del)
        for name in ("fork", "system", "posix_spawn", "posix_spawnp"):
            if hasattr(os, name):
                patch.setattr(os, name, refuse(f"starts a process (os.{name})"))
        for name in ("connect", "connect_ex", "bind"):
            patch.setattr(socket.socket, name, refuse(f"opens a socket (socket.{name})"))
        yield attempts


def _fail_on(attempts: list[tuple[str, str]], test: str) -> None:
    made = [what for running, what in attempts if running == test]
    attempts.clear()
    if made:
        pytest.fail(MOVE.format(what=made[0]), pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.when == "call":
        item.stash[CALL_PASSED] = report.passed
    return report


@pytest.fixture(autouse=True)
def _no_processes_or_sockets(
    request: pytest.FixtureRequest, _refused_attempts: list[tuple[str, str]]
) -> Iterator[None]:
    # Refused while this test set up a module or session fixture that carried on regardless.
    # (An attempt of an earlier test whose fixture setup failed was reported by that failure.)
    _fail_on(_refused_attempts, request.node.nodeid)
    yield
    if request.node.stash.get(CALL_PASSED, False):  # a failed test already says what it was refused
        _fail_on(_refused_attempts, request.node.nodeid)
    _refused_attempts.clear()
