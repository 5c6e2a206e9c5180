"""A loopback MCP registry whose entries are served by this same process, one path each.

    python -m tests.servers.loopback_registry [--remotes N] [--auth-walls K] [--gone K]
                                              [--packages FILE]

One process, one port on 127.0.0.1 (reported as ``MCPCOST_LISTENING <port>`` on stderr):

* ``GET /v0.1/servers?limit=100&version=latest[&cursor=...]``: the registry's pages (the
  official registry's schema: ``servers[]`` of ``{server, _meta}``, ``metadata.nextCursor``),
  ``--remotes`` active entries ``io.github.loopback/remote-<i>`` whose one remote is
  ``streamable-http`` at ``/mcp/<i>``, then the entries of ``--packages`` (a JSON list of
  registry items, ``{server, _meta}``, listed as written but for ``@BASE@``, which becomes this
  registry's base URL, so an item can name one of its endpoints: package entries for real
  servers, ``tests/servers/package_entries.py``; the sweep launches those itself).
* ``POST /mcp/<i>``: a Streamable HTTP MCP server (JSON answers, ``Mcp-Session-Id`` issued on
  ``initialize`` and required after it) serving the stdio fixture's well-behaved tools; the
  last ``--auth-walls`` entries answer 401 with OAuth protected-resource metadata instead, and
  the ``--gone`` before them 404.
* ``--delay-ms M``: every endpoint's answer comes M milliseconds late (a sweep interrupted
  while its measurements are in flight).
* ``POST /slow/<ms>``: entry 0's server, each answer ``<ms>`` milliseconds late (a measurement
  in flight long enough for a test to interrupt what is measuring it).
* ``GET /stats``: ``{"initialize": {"<i>": count}}``, how many sessions each entry was asked
  for (a test counts what a resumed sweep launched again).

For benchmarks and tests of sweeps at registry scale: the threads answering are this process's,
so a sweep measured against it shares the machine with them as it would with a real registry's
servers, and a bare client measured against it (``bench/sweep_scale.py``) pays the same.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
import uuid
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.servers.http_fixtures import rpc_reply
from tests.servers.package_entries import OFFICIAL

SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
PAGE = 100
NAME = "io.github.loopback/remote-{i:05d}"


def entry(i: int, base: str) -> dict[str, Any]:
    return {
        "server": {
            "$schema": SCHEMA,
            "name": NAME.format(i=i),
            "description": f"loopback remote {i}",
            "version": "1.0.0",
            "repository": {"url": f"https://github.com/loopback/remote-{i}", "source": "github"},
            "remotes": [{"type": "streamable-http", "url": f"{base}/mcp/{i}"}],
        },
        "_meta": {
            OFFICIAL: {
                "status": "active",
                "publishedAt": "2026-09-01T10:00:00Z",
                "updatedAt": "2026-09-01T10:00:00Z",
                "isLatest": True,
            }
        },
    }


class Registry:
    def __init__(
        self, remotes: int, auth_walls: int, gone: int, listed: list[dict[str, Any]] | None = None
    ) -> None:
        self.remotes = remotes
        self.listed = listed or []
        self.delay_s = 0.0  # how late every endpoint answers
        self.total = remotes + len(self.listed)
        self.walled = range(remotes - auth_walls, remotes)
        self.gone = range(remotes - auth_walls - gone, remotes - auth_walls)
        self.base = ""
        self.sessions: set[str] = set()
        self.initialize: Counter[int] = Counter()
        self.lock = threading.Lock()

    def item(self, index: int) -> Any:
        """A listed item, its ``@BASE@`` made this registry's base URL."""
        return json.loads(json.dumps(self.listed[index]).replace("@BASE@", self.base))

    def page(self, cursor: str) -> dict[str, Any]:
        start = int(cursor) if cursor.isdigit() else 0
        stop = min(start + PAGE, self.total)
        servers = [
            entry(i, self.base) if i < self.remotes else self.item(i - self.remotes)
            for i in range(start, stop)
        ]
        doc: dict[str, Any] = {"servers": servers, "metadata": {"count": stop - start}}
        if stop < self.total:
            doc["metadata"]["nextCursor"] = str(stop)
        return doc


def handler(reg: Registry) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # As Node's, Go's and uvicorn's servers do: without it, a kept-alive connection's
        # answer (headers, then body, in two writes) waits out the client's delayed ACK.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:
            return None

        def _send(self, status: int, body: bytes, ctype: str, **headers: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for key, value in headers.items():
                self.send_header(key.replace("_", "-"), value)
            self.end_headers()
            self.wfile.write(body)

        def _index(self) -> int | None:
            path = urlsplit(self.path).path
            head, _, tail = path.rpartition("/")
            if head == "/slow" and tail.isdigit():  # entry 0, answered after <tail> ms
                time.sleep(int(tail) / 1000)
                return 0
            if head != "/mcp" or not tail.isdigit() or int(tail) >= reg.remotes:
                return None
            return int(tail)

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            if url.path == "/v0.1/servers":
                cursor = parse_qs(url.query).get("cursor", [""])[0]
                body = json.dumps(reg.page(cursor)).encode()
                self._send(200, body, "application/json")
            elif url.path == "/stats":
                with reg.lock:
                    counts = {str(i): n for i, n in sorted(reg.initialize.items())}
                self._send(200, json.dumps({"initialize": counts}).encode(), "application/json")
            elif url.path.startswith("/.well-known/oauth-protected-resource/mcp/"):
                self._send(
                    200,
                    json.dumps(
                        {
                            "resource": reg.base
                            + url.path.removeprefix("/.well-known/oauth-protected-resource"),
                            "authorization_servers": [reg.base + "/auth"],
                        }
                    ).encode(),
                    "application/json",
                )
            else:
                self._send(405 if self._index() is not None else 404, b"", "text/plain")

        def do_DELETE(self) -> None:
            sid = self.headers.get("Mcp-Session-Id") or ""
            with reg.lock:
                reg.sessions.discard(sid)
            self._send(200, b"", "text/plain")

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            time.sleep(reg.delay_s)
            index = self._index()
            if index is None or index in reg.gone:
                self._send(404, b"Not Found", "text/plain")
                return
            if index in reg.walled:
                meta = f"{reg.base}/.well-known/oauth-protected-resource/mcp/{index}"
                self._send(
                    401,
                    b'{"error":"invalid_token"}',
                    "application/json",
                    WWW_Authenticate=f'Bearer resource_metadata="{meta}"',
                )
                return
            try:
                msg = json.loads(body)
            except ValueError:
                self._send(
                    400, b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}', "application/json"
                )
                return
            headers: dict[str, str] = {}
            if not isinstance(msg, dict):
                self._send(400, b"", "text/plain")
                return
            if msg.get("method") == "initialize":
                sid = uuid.uuid4().hex
                with reg.lock:
                    reg.sessions.add(sid)
                    reg.initialize[index] += 1
                headers["Mcp_Session_Id"] = sid
            else:
                with reg.lock:
                    known = (self.headers.get("Mcp-Session-Id") or "") in reg.sessions
                if not known:
                    self._send(
                        404,
                        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32001}}',
                        "application/json",
                    )
                    return
            reply = rpc_reply(msg, "streamable-json")
            if reply is None:
                self._send(202, b"", "text/plain", **headers)
            else:
                self._send(200, reply.encode(), "application/json", **headers)

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # the listen backlog: a sweep opens connections in bursts


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--remotes", type=int, default=0)
    p.add_argument("--auth-walls", type=int, default=0)
    p.add_argument("--gone", type=int, default=0)
    p.add_argument("--packages", metavar="FILE", help="a JSON list of registry items to list")
    p.add_argument("--delay-ms", type=int, default=0, help="every endpoint answers this late")
    args = p.parse_args()
    listed: list[dict[str, Any]] = []
    if args.packages:
        with open(args.packages, encoding="utf-8") as f:
            listed = json.load(f)
    reg = Registry(args.remotes, args.auth_walls, args.gone, listed)
    reg.delay_s = args.delay_ms / 1000
    server = _Server(("127.0.0.1", 0), handler(reg))
    port = server.server_address[1]
    reg.base = f"http://127.0.0.1:{port}"
    sys.stderr.write(f"MCPCOST_LISTENING {port}\n")
    sys.stderr.flush()
    server.serve_forever(poll_interval=0.2)


if __name__ == "__main__":
    main()
