"""One capture: open a transport, handshake, page through ``tools/list``, close. Never raises for
server behaviour: the outcome is a ``Capture`` or a classified ``CaptureFailure``.

After the tools, each of ``prompts/list``, ``resources/list`` and ``resources/templates/list``
the server declared (its ``prompts`` or ``resources`` capability) is paged through as well, each
request bounded by ``LIST_TIMEOUT_S`` and the capture's deadline. These are counted beside the
number, never in it: a failure is recorded on that list and never spoils the tools capture.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcpcost.core.model import ListingKind
from mcpcost.core.spec import Era, EraChoice, ServerSpec
from mcpcost.core.status import Status
from mcpcost.errors import McpcostError
from mcpcost.measuring.classify import classify_failure
from mcpcost.transports.base import Diagnostics, Transport, TransportFactory
from mcpcost.transports.failures import TransportClosed, TransportTimeout
from mcpcost.transports.session import ServerHello, Session

LIST_TIMEOUT_S = 10.0
# (kind in measurement.json, method, the result's array, the capability that declares it)
LISTS = (
    (ListingKind.PROMPTS, "prompts/list", "prompts", "prompts"),
    (ListingKind.RESOURCES, "resources/list", "resources", "resources"),
    (ListingKind.RESOURCE_TEMPLATES, "resources/templates/list", "resourceTemplates", "resources"),
)


@dataclass(frozen=True, slots=True)
class Listed:
    """One declared list beside the tools: its page-joined items, or why it failed."""

    kind: ListingKind
    items: list[Any] | None
    error: str | None


@dataclass(frozen=True, slots=True)
class Capture:
    """A successful capture: the page-joined tools array and what the server said about itself."""

    tools: list[Any]
    hello: ServerHello
    diagnostics: Diagnostics
    elapsed_s: float
    eras_tried: tuple[Era, ...] = ()
    listed: tuple[Listed, ...] = ()


def list_declared(session: Session, capabilities: Any, timeout_s: float) -> tuple[Listed, ...]:
    """Each list the capabilities declare, in ``LISTS`` order; failures recorded, not raised."""
    declared = capabilities if isinstance(capabilities, dict) else {}
    out: list[Listed] = []
    gone: str | None = None  # after a timeout or a closed connection, nothing more is asked
    for kind, method, key, capability in LISTS:
        if not isinstance(declared.get(capability), dict):
            continue
        if gone is not None:
            out.append(Listed(kind, None, f"{method}: not asked ({gone})"))
            continue
        try:
            out.append(Listed(kind, session.list_all(method, key, timeout_s=timeout_s), None))
        except (TransportTimeout, TransportClosed) as exc:
            gone = f"an earlier list failed: {exc}"
            out.append(Listed(kind, None, f"{method}: {exc}"))
        except McpcostError as exc:
            out.append(Listed(kind, None, f"{method}: {exc}"))
        except OSError as exc:
            gone = "the server could not be reached"
            out.append(Listed(kind, None, f"{method}: could not reach the server: {exc}"))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class CaptureFailure:
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
    on_initialized: Callable[[], None] | None = None,
) -> Capture | CaptureFailure:
    """One full capture within ``timeout_s`` (per request, and overall for the capture).

    ``protocol`` is the era choice handed to ``Session.open`` (auto, legacy or modern). The
    transport is closed before this returns, so a failure's diagnostics (exit code, the end of
    stderr) are complete.
    ``on_initialized`` is called once the server has answered the handshake (``initialize``, or
    the modern era's discovery), before ``tools/list`` is asked.
    """
    started = clock()
    deadline = started + timeout_s
    transport: Transport | None = None
    session: Session | None = None
    failure: McpcostError | None = None
    listed: tuple[Listed, ...] = ()
    try:
        transport = open_transport(spec, timeout_s)
        session = Session(transport, request_timeout_s=timeout_s, deadline=deadline, clock=clock)
        hello = session.open(protocol)
        if on_initialized is not None:
            on_initialized()
        tools = session.list_tools()
        listed = list_declared(session, hello.capabilities, min(timeout_s, LIST_TIMEOUT_S))
    except McpcostError as exc:
        failure = exc
    except OSError as exc:  # a launcher's own IO failing (a container engine, a socket)
        failure = TransportClosed(f"could not reach the server: {exc}")
    finally:
        if transport is not None:
            transport.close()
    diagnostics = transport.diagnostics if transport is not None else None
    elapsed = clock() - started
    eras = tuple(session.eras_tried) if session is not None else ()
    if failure is None:
        assert diagnostics is not None
        return Capture(tools, hello, diagnostics, elapsed, eras, listed)
    if isinstance(failure, TransportTimeout):
        failure = TransportTimeout(int(timeout_s * 1000), failure.waiting_for)

    status, message = classify_failure(failure, diagnostics.stderr_tail if diagnostics else "")
    return CaptureFailure(status, message, diagnostics, elapsed, eras)
