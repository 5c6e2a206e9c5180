"""Running the app under uvicorn: the listening socket, the server's own logs, the run.

The socket is bound and listening before the service says where it listens (``--port 0`` picks
a free port; the line names the one the system chose), so a client that reads that line can
connect at once. uvicorn's access log is off (``app.ServiceEdge`` writes ours, without query
strings); its own warnings and errors become JSON lines on the same stream, without tracebacks.
Proxy headers (``X-Forwarded-For``) are read only from the addresses named in
``forwarded_allow_ips``: without it the client is the peer that connected.
"""

from __future__ import annotations

import logging
import socket
from typing import Final, TextIO

from mcpcost.serve.app import LogLine, build_app, log_writer
from mcpcost.serve.options import ServeSettings
from mcpcost.version import __version__

BACKLOG: Final = 1024
KEEP_ALIVE_S: Final = 5
MAX_CONNECTIONS: Final = 512  # uvicorn answers 503 past this many connections and tasks
MAX_HEADER_BYTES: Final = 16 << 10
SHUTDOWN_GRACE_S: Final = 5


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


def serve(settings: ServeSettings, sock: socket.socket, err: TextIO) -> None:
    """Serve on ``sock`` until a signal stops uvicorn."""
    import uvicorn

    log = log_writer(err)
    _route_uvicorn_logs(log)
    app = build_app(settings, log)
    config = uvicorn.Config(
        app,
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
