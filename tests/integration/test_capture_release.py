"""A capture hands a successful capture's transport to ``release`` (the caller closes it), and
closes it itself after a failure or when ``release`` refuses it."""

from __future__ import annotations

import sys
from typing import cast

from mcpcost.core.spec import ServerSpec
from mcpcost.measuring.capture import Capture, CaptureFailure, capture_tools
from mcpcost.transports.base import Transport
from mcpcost.transports.open import open_transport
from mcpcost.transports.stdio import group_alive
from tests.servers.registry import fixture_argv


def test_a_capture_releases_its_transport_only_when_it_succeeded() -> None:
    released: list[Transport] = []
    good = capture_tools(
        ServerSpec.stdio("good", fixture_argv("good")),
        open_transport,
        10.0,
        release=released.append,
    )
    assert isinstance(good, Capture) and len(released) == 1
    pgid = cast(int, released[0].diagnostics.pgid)
    assert group_alive(pgid)  # left to the caller, still running
    released[0].close()
    assert not group_alive(pgid)
    crash = [sys.executable, "-c", "import sys; sys.stderr.write('boom'); sys.exit(3)"]
    failed = capture_tools(
        ServerSpec.stdio("bad", crash), open_transport, 10.0, release=released.append
    )
    # a failure waits for the server's end: its exit code and stderr are in the diagnostics
    assert isinstance(failed, CaptureFailure) and len(released) == 1
    assert failed.diagnostics is not None and failed.diagnostics.exit_code == 3
    assert "boom" in failed.diagnostics.stderr_tail


def test_a_transport_release_refuses_is_stopped_by_the_capture() -> None:
    seen: list[Transport] = []

    def refuse(transport: Transport) -> None:
        seen.append(transport)
        raise RuntimeError("can't start new thread")

    spec = ServerSpec.stdio("good", fixture_argv("good"))
    try:
        capture_tools(spec, open_transport, 10.0, release=refuse)
    except RuntimeError:
        pass
    else:
        raise AssertionError("the release's error was swallowed")
    assert len(seen) == 1 and not group_alive(cast(int, seen[0].diagnostics.pgid))
