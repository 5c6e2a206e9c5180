"""The default transport factory: stdio for a command, http / sse / auto for a URL; and
``open_authorized``, the same with a request authorizer and, for URLs that came from the world
rather than from the user, an address policy (``measuring.server.MeasureOptions`` chooses).

The HTTP transports (and ``requests`` behind them, ~0.1 s to import) are imported only when a
spec has a URL, so a stdio measurement spawns its server without paying for them.

``AheadOpener`` wraps a factory and opens some transports before their captures ask for them: a
caller that launches many servers at once starts them as soon as it knows what to launch, and
loads the rest of its machinery while they boot. On a busy machine every bit of CPU spent before
a launch delays it, and a server's start-up is the longest part of its measurement.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from mcpcost.core.spec import ServerSpec, TransportName
from mcpcost.transports.base import Transport, TransportFactory
from mcpcost.transports.stdio import spawn_stdio

if TYPE_CHECKING:
    from mcpcost.auth import RequestAuthorizer
    from mcpcost.runtime.addresses import AddressPolicy


def open_transport(spec: ServerSpec, timeout_s: float) -> Transport:
    """Open (launch or connect) the transport a spec asks for."""
    return open_authorized(spec, timeout_s, None)


def open_authorized(
    spec: ServerSpec,
    timeout_s: float,
    authorizer: RequestAuthorizer | None,
    *,
    policy: AddressPolicy | None = None,
    quote_bodies: bool = True,
) -> Transport:
    """``open_transport`` with an authorizer that signs HTTP requests and answers authorization
    challenges (see ``auth``). With ``policy`` every connection, each redirect's included, goes
    only to addresses it allows (``runtime.addresses``); without ``quote_bodies`` the body of an
    error status is never quoted in a note (it may be an internal service's page)."""
    if spec.url is None:
        return spawn_stdio(spec)
    from mcpcost.transports.auto import AutoTransport
    from mcpcost.transports.http import StreamableHTTPTransport
    from mcpcost.transports.legacy_sse import LegacySSETransport
    from mcpcost.transports.server_url import usable_url

    url, headers = usable_url(spec.url, spec.secrets), dict(spec.headers)

    def opened(kind: Callable[..., Transport]) -> Transport:
        return kind(
            url,
            headers=headers,
            timeout_s=timeout_s,
            authorizer=authorizer,
            address_policy=policy,
            quote_bodies=quote_bodies,
        )

    if spec.transport == TransportName.HTTP:
        return opened(StreamableHTTPTransport)
    if spec.transport == TransportName.SSE:
        return opened(LegacySSETransport)
    return AutoTransport(opened(StreamableHTTPTransport), lambda: opened(LegacySSETransport))


class AheadOpener:
    """A transport factory that hands out transports opened ahead of time.

    ``open_ahead(specs)`` starts opening one transport per item (list a spec twice for two), each
    on its own thread, and returns at once: a launch mostly waits for the new process to start,
    so the launches overlap each other and whatever the caller does next. A call for a spec
    takes one of its transports opened ahead (waiting for one still opening), or opens a fresh
    one when none was. A failure to open is raised to the call that takes it, as the factory
    would have raised it then. ``wait_opened()`` lets a caller hold back CPU-heavy work until
    the launches are under way. ``release(transport)`` closes a transport on a thread of its
    own, so a server's stop overlaps whatever the caller does next. ``finish()`` closes what no
    call took and waits for those stops (the caller's cleanup, also on errors and
    interrupts)."""

    def __init__(self, factory: TransportFactory = open_transport) -> None:
        self._factory = factory
        self._ready: dict[str, list[Transport | Exception]] = {}
        self._opening: dict[str, int] = {}
        self._changed = threading.Condition()
        self._threads: list[threading.Thread] = []
        self._stopping: list[threading.Thread] = []

    def open_ahead(self, specs: Iterable[ServerSpec], timeout_s: float) -> None:
        for spec in specs:
            key = spec.launch_key()
            with self._changed:
                self._opening[key] = self._opening.get(key, 0) + 1
            thread = threading.Thread(
                target=self._open_one,
                args=(spec, key, timeout_s),
                name="mcpcost-open-ahead",
                daemon=True,
            )
            self._threads.append(thread)
            thread.start()

    def _open_one(self, spec: ServerSpec, key: str, timeout_s: float) -> None:
        opened: Transport | Exception
        try:
            opened = self._factory(spec, timeout_s)
        except Exception as exc:  # handed to the capture that takes it, which decides
            opened = exc
        with self._changed:
            self._opening[key] -= 1
            self._ready.setdefault(key, []).append(opened)
            self._changed.notify_all()

    def __call__(self, spec: ServerSpec, timeout_s: float) -> Transport:
        key = spec.launch_key()
        with self._changed:
            self._changed.wait_for(lambda: bool(self._ready.get(key) or not self._opening.get(key)))
            ready = self._ready.get(key)
            opened = ready.pop(0) if ready else None
        if opened is None:
            return self._factory(spec, timeout_s)
        if isinstance(opened, Exception):
            raise opened
        return opened

    def wait_opened(self, timeout_s: float) -> bool:
        """Block until every open started ahead has finished (True) or ``timeout_s`` passed."""
        with self._changed:
            return self._changed.wait_for(lambda: not any(self._opening.values()), timeout_s)

    def release(self, transport: Transport) -> None:
        thread = threading.Thread(target=transport.close, name="mcpcost-stop")
        with self._changed:
            self._stopping.append(thread)
        thread.start()

    def finish(self) -> None:
        for thread in self._threads:
            thread.join()
        with self._changed:
            left = [t for ready in self._ready.values() for t in ready]
            self._ready.clear()
        for opened in left:
            if not isinstance(opened, Exception):
                opened.close()
        with self._changed:
            stopping, self._stopping = self._stopping, []
        for thread in stopping:
            thread.join()
