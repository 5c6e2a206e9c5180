"""One capture: open a transport, handshake, page through ``tools/list``, close. Never raises for
server behaviour: the outcome is a ``Capture`` or a classified ``CaptureFailure``."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from mcpcost.core.record import Record
from mcpcost.core.spec import Era, EraChoice, ServerSpec
from mcpcost.core.status import Status
from mcpcost.errors import McpcostError
from mcpcost.transports.base import Diagnostics, Transport, TransportFactory
from mcpcost.transports.failures import TransportClosed, TransportTimeout
from mcpcost.transports.session import ServerHello, Session


class Capture(Record, frozen=True):
    """A successful capture: the page-joined tools array and what the server said about itself."""

    tools: list[Any]
    hello: ServerHello
    diagnostics: Diagnostics
    elapsed_s: float
    eras_tried: tuple[Era, ...] = ()


class CaptureFailure(Record, frozen=True):
    """A failed capture with its status and a message (not yet redacted or cut)."""

    status: Status
    message: str
    diagnostics: Diagnostics | None
    elapsed_s: float
    eras_tried: tuple[Era, ...] = ()


def capture_tools(
    spec: ServerSpec,
    open_transport: TransportFactory,
    timeout_s: float,
    *,
    clock: Callable[[], float] = time.monotonic,
    protocol: EraChoice = EraChoice.AUTO,
    release: Callable[[Transport], None] | None = None,
) -> Capture | CaptureFailure:
    """One full capture within ``timeout_s`` (per request, and overall for the capture).

    ``protocol`` is the era choice handed to ``Session.open`` (auto, legacy or modern). The
    transport is closed before this returns, except after a successful capture when ``release``
    is given: it is handed the transport to close, so the server's stop can overlap what the
    caller does with the tools. A failure always waits for the stop, because its diagnostics
    (exit code, the end of stderr) are complete only once the server has ended.
    """
    started = clock()
    deadline = started + timeout_s
    transport: Transport | None = None
    session: Session | None = None
    failure: McpcostError | None = None
    succeeded = False
    try:
        transport = open_transport(spec, timeout_s)
        session = Session(transport, request_timeout_s=timeout_s, deadline=deadline, clock=clock)
        hello = session.open(protocol)
        tools = session.list_tools()
        succeeded = True
    except McpcostError as exc:
        failure = exc
    except OSError as exc:  # a launcher's own IO failing (a container engine, a socket)
        failure = TransportClosed(f"could not reach the server: {exc}")
    finally:
        if transport is not None and not (succeeded and release is not None):
            transport.close()
    diagnostics = transport.diagnostics if transport is not None else None
    if succeeded and release is not None:
        assert transport is not None
        try:
            release(transport)
        except BaseException:  # not handed over after all: stop it here
            transport.close()
            raise
    elapsed = clock() - started
    eras = tuple(session.eras_tried) if session is not None else ()
    if failure is None:
        assert diagnostics is not None
        return Capture(tools, hello, diagnostics, elapsed, eras)
    if isinstance(failure, TransportTimeout):
        failure = TransportTimeout(int(timeout_s * 1000), failure.waiting_for)
    from mcpcost.measuring.classify import classify_failure  # only a failure needs it

    status, message = classify_failure(failure, diagnostics.stderr_tail if diagnostics else "")
    return CaptureFailure(status, message, diagnostics, elapsed, eras)
