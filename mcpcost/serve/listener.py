"""Running the app under uvicorn: the listening socket, the server's own logs, the run.

The socket is bound and listening before the service says where it listens (``--port 0`` picks
a free port; the line names the one the system chose), so a client that reads that line can
connect at once. uvicorn's access log is off (``app.ServiceEdge`` writes ours, without query
strings); its own warnings and errors become JSON lines on the same stream, without tracebacks.
Proxy headers (``X-Forwarded-For``) are read only from the addresses named in
``forwarded_allow_ips``: without it the client is the peer that connected.

Reading a request has deadlines of its own (``ReadDeadlines``), so a direct deployment holds
against slow clients (slowloris) without a reverse proxy: a request's headers must be complete
within ``header_s`` of the connection opening (or of the previous answer, on a kept-alive
connection), and its body within ``body_s`` of its last header; past either, the connection is
closed. Once a request is read, answering it is the app's business (a measurement takes its own
deadline), and an idle kept-alive connection is closed after ``KEEP_ALIVE_S``.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from dataclasses import dataclass
from typing import Any, Final, TextIO

from mcpcost.serve.app import LogLine, build_app, log_writer
from mcpcost.serve.options import ServeSettings
from mcpcost.version import __version__

BACKLOG: Final = 1024
KEEP_ALIVE_S: Final = 5
MAX_CONNECTIONS: Final = 512  # uvicorn answers 503 past this many connections and tasks
MAX_HEADER_BYTES: Final = 16 << 10
SHUTDOWN_GRACE_S: Final = 5
HEADER_DEADLINE_S: Final = 10.0
BODY_DEADLINE_S: Final = 30.0  # a body is at most app.MAX_BODY_BYTES


@dataclass(frozen=True, slots=True)
class ReadDeadlines:
    """Seconds a client has to send a request's headers, then its body."""

    header_s: float = HEADER_DEADLINE_S
    body_s: float = BODY_DEADLINE_S


DEFAULT_DEADLINES: Final = ReadDeadlines()


class _JsonLogHandler(logging.Handler):
    """uvicorn's records as JSON lines: level and message, never a traceback."""

    def __init__(self, log: LogLine) -> None:
        super().__init__(logging.WARNING)
        self._log = log

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not format
            message = str(record.msg)
        fields = {"event": "server", "level": record.levelname.lower(), "message": message[:300]}
        if record.exc_info and record.exc_info[0] is not None:
            fields["error"] = record.exc_info[0].__name__
        self._log(fields)


def _route_uvicorn_logs(log: LogLine) -> None:
    handler = _JsonLogHandler(log)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.setLevel(logging.WARNING)
        logger.propagate = False


def deadline_protocol(deadlines: ReadDeadlines) -> type[asyncio.Protocol]:
    """uvicorn's HTTP/1.1 protocol (h11) with ``deadlines`` on reading each request.

    The one place that reaches into uvicorn's protocol class: it subclasses ``H11Protocol`` and
    reads its ``conn`` (the h11 connection, whose ``their_state`` says how far the client's
    request is: ``IDLE`` before the last header, ``SEND_BODY`` until the body's end), its
    ``transport`` and ``loop``, around the hooks uvicorn calls per connection, per read and per
    answer."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class DeadlineProtocol(H11Protocol):
        _read_timer: asyncio.TimerHandle | None = None
        _timing_body = False

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm(deadlines.header_s, body=False)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._follow()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm(deadlines.header_s, body=False)  # the next request's headers
                self._follow()  # unless a pipelined one was read already

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _follow(self) -> None:
            state = self.conn.their_state
            if state is h11.SEND_BODY:
                if not self._timing_body:
                    self._arm(deadlines.body_s, body=True)
            elif state is not h11.IDLE:
                self._disarm()  # the request is read: the answer is the app's to give

        def _arm(self, seconds: float, *, body: bool) -> None:
            self._disarm()
            self._timing_body = body
            self._read_timer = self.loop.call_later(seconds, self._expired)

        def _disarm(self) -> None:
            if self._read_timer is not None:
                self._read_timer.cancel()
                self._read_timer = None

        def _expired(self) -> None:
            self._read_timer = None
            if not self.transport.is_closing():
                self.transport.close()

    return DeadlineProtocol


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` and listening; OSError when it cannot be."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def where(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def serve(
    settings: ServeSettings,
    sock: socket.socket,
    err: TextIO,
    deadlines: ReadDeadlines = DEFAULT_DEADLINES,
) -> None:
    """Serve on ``sock`` until a signal stops uvicorn; requests read within ``deadlines``."""
    import uvicorn

    log = log_writer(err)
    _route_uvicorn_logs(log)
    app = build_app(settings, log)
    config = uvicorn.Config(
        app,
        http=deadline_protocol(deadlines),
        log_config=None,
        access_log=False,
        server_header=False,
        proxy_headers=settings.forwarded_allow_ips is not None,
        forwarded_allow_ips=settings.forwarded_allow_ips or "",
        timeout_keep_alive=KEEP_ALIVE_S,
        limit_concurrency=MAX_CONNECTIONS,
        h11_max_incomplete_event_size=MAX_HEADER_BYTES,
        timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    log(
        {
            "event": "listening",
            "url": where(sock),
            "version": __version__,
            "maxConcurrent": settings.max_concurrent,
            "allowPrivateAddresses": settings.allow_private_addresses,
            "allowHttp": settings.allow_http,
        }
    )
    server.run(sockets=[sock])
