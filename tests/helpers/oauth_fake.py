"""A fake OAuth 2.1 authorization server in front of a small MCP resource, on 127.0.0.1.

An OAuth provider cannot exist here, so this plays one, by the field names the RFCs publish:
protected resource metadata (RFC 9728: resource, authorization_servers, scopes_supported),
authorization server metadata (RFC 8414: issuer, authorization_endpoint, token_endpoint,
registration_endpoint, revocation_endpoint, scopes_supported, response_types_supported,
grant_types_supported, token_endpoint_auth_methods_supported, code_challenge_methods_supported),
dynamic registration (RFC 7591), the authorization code grant with PKCE S256 (RFC 7636) and
``resource`` (RFC 8707), refresh with optional rotation, client credentials, and revocation
(RFC 7009). The MCP endpoint at /mcp answers ``initialize`` and ``tools/list`` (Streamable HTTP,
JSON answers) only with a valid Bearer token; without one it challenges with 401.

Everything it saw is recorded on the ``FakeAuthServer`` for the tests to assert.
"""

from __future__ import annotations

import base64
import hashlib
import json
import queue
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

TOOLS = [
    {"name": "lookup", "description": "Look a thing up.", "inputSchema": {"type": "object"}},
    {"name": "write", "description": "Write a thing.", "inputSchema": {"type": "object"}},
]


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class Grant:
    client_id: str
    scope: str
    resource: str | None
    redirect_uri: str | None = None
    challenge: str | None = None


@dataclass
class FakeAuthServer:
    """Knobs (set before use) and the record of what happened."""

    expires_in: int = 3600
    rotate_refresh: bool = False
    issue_refresh: bool = True
    scopes_supported: tuple[str, ...] = ("mcp:read",)
    challenge_scope: str | None = None  # the scope= of the 401 challenge
    list_needs_scope: str | None = None  # tools/list answers 403 insufficient_scope without it
    always_insufficient: bool = False
    # hostile metadata: protected resource metadata without ``resource``; another server's
    # issuer named as this resource's authorization server; endpoints under another base
    prm_names_resource: bool = True
    authorization_servers: tuple[str, ...] | None = None
    endpoint_base: str | None = None
    # records
    registrations: list[dict[str, Any]] = field(default_factory=list)
    authorize_requests: list[dict[str, str]] = field(default_factory=list)
    token_requests: list[dict[str, str]] = field(default_factory=list)
    revocations: list[dict[str, str]] = field(default_factory=list)
    mcp_auth_headers: list[str | None] = field(default_factory=list)
    sse_auth_headers: list[str | None] = field(default_factory=list)
    sse_outboxes: list[queue.Queue[bytes | None]] = field(default_factory=list)
    issued_access: set[str] = field(default_factory=set)
    issued_refresh: set[str] = field(default_factory=set)
    # state
    _codes: dict[str, Grant] = field(default_factory=dict)
    _access: dict[str, tuple[Grant, float]] = field(default_factory=dict)
    _refresh: dict[str, Grant] = field(default_factory=dict)
    _clients: dict[str, str | None] = field(default_factory=dict)
    base: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def mcp_url(self) -> str:
        return self.base + "/mcp"

    def all_tokens(self) -> set[str]:
        return self.issued_access | self.issued_refresh

    def revoke_all_refresh(self) -> None:
        with self.lock:
            self._refresh.clear()

    # -- token issuing ----------------------------------------------------------------------
    def issue(self, grant: Grant) -> dict[str, Any]:
        access = "at-" + secrets.token_urlsafe(16)
        self._access[access] = (grant, time.time() + self.expires_in)
        self.issued_access.add(access)
        answer: dict[str, Any] = {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.expires_in,
            "scope": grant.scope,
        }
        if self.issue_refresh:
            refresh = "rt-" + secrets.token_urlsafe(16)
            self._refresh[refresh] = grant
            self.issued_refresh.add(refresh)
            answer["refresh_token"] = refresh
        return answer

    def valid(self, header: str | None) -> Grant | None:
        if not header or not header.startswith("Bearer "):
            return None
        found = self._access.get(header[len("Bearer ") :])
        if found is None or found[1] < time.time():
            return None
        return found[0]


def _client_auth(server: FakeAuthServer, headers: Any, form: dict[str, str]) -> str | None:
    """The authenticated client id (basic, post or none), or None when authentication fails."""
    auth = headers.get("Authorization")
    if auth and auth.startswith("Basic "):
        client_id, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
        return client_id if server._clients.get(client_id) == secret else None
    client_id = form.get("client_id", "")
    if client_id not in server._clients:
        return None
    expected = server._clients[client_id]
    return client_id if expected is None or form.get("client_secret") == expected else None


def make_handler(server: FakeAuthServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            return

        def _json(self, status: int, doc: Any, extra: dict[str, str] | None = None) -> None:
            body = json.dumps(doc).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            base = server.base
            if parts.path == "/.well-known/oauth-protected-resource/mcp":
                prm: dict[str, Any] = {
                    "resource": server.mcp_url,
                    "authorization_servers": list(server.authorization_servers or [base]),
                    "scopes_supported": list(server.scopes_supported),
                }
                if not server.prm_names_resource:
                    del prm["resource"]
                self._json(200, prm)
            elif parts.path == "/.well-known/oauth-authorization-server":
                at = server.endpoint_base or base
                self._json(
                    200,
                    {
                        "issuer": base,
                        "authorization_endpoint": at + "/authorize",
                        "token_endpoint": at + "/token",
                        "registration_endpoint": at + "/register",
                        "revocation_endpoint": at + "/revoke",
                        "scopes_supported": list(server.scopes_supported),
                        "response_types_supported": ["code"],
                        "grant_types_supported": [
                            "authorization_code",
                            "refresh_token",
                            "client_credentials",
                        ],
                        "token_endpoint_auth_methods_supported": [
                            "none",
                            "client_secret_basic",
                            "client_secret_post",
                        ],
                        "code_challenge_methods_supported": ["S256"],
                    },
                )
            elif parts.path == "/authorize":
                self._authorize(parse_qs(parts.query))
            elif parts.path == "/sse":
                self._sse_stream()
            else:
                self._json(404, {"error": "not_found"})

        def _authorize(self, query: dict[str, list[str]]) -> None:
            q = {k: v[0] for k, v in query.items()}
            with server.lock:
                server.authorize_requests.append(q)
            redirect = q.get("redirect_uri", "")
            ok = (
                q.get("response_type") == "code"
                and q.get("client_id") in server._clients
                and q.get("code_challenge_method") == "S256"
                and bool(q.get("code_challenge"))
                and redirect.startswith("http://127.0.0.1:")
                and q.get("resource") in (server.mcp_url, server.base + "/sse")
            )
            if not ok:
                self._json(400, {"error": "invalid_request"})
                return
            code = "code-" + secrets.token_urlsafe(8)
            server._codes[code] = Grant(
                q["client_id"], q.get("scope", ""), q.get("resource"), redirect, q["code_challenge"]
            )
            self.send_response(302)
            self.send_header(
                "Location", redirect + "?" + urlencode({"code": code, "state": q.get("state", "")})
            )
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            path = urlsplit(self.path).path
            raw = self._body()
            if path == "/register":
                doc = json.loads(raw)
                with server.lock:
                    server.registrations.append(doc)
                    client_id = "client-" + secrets.token_urlsafe(6)
                    server._clients[client_id] = None
                self._json(201, {**doc, "client_id": client_id})
            elif path == "/token":
                form = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
                with server.lock:
                    server.token_requests.append(form)
                    self._token(form)
            elif path == "/revoke":
                form = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
                with server.lock:
                    server.revocations.append(form)
                    server._refresh.pop(form.get("token", ""), None)
                    server._access.pop(form.get("token", ""), None)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif path == "/mcp":
                self._mcp(raw)
            elif path == "/sse-messages":
                session = int(parse_qs(urlsplit(self.path).query)["s"][0])
                self._sse_message(raw, server.sse_outboxes[session])
            else:
                self._json(404, {"error": "not_found"})

        def _token(self, form: dict[str, str]) -> None:
            client_id = _client_auth(server, self.headers, form)
            if client_id is None:
                self._json(401, {"error": "invalid_client"})
                return
            kind = form.get("grant_type")
            if kind == "authorization_code":
                grant = server._codes.pop(form.get("code", ""), None)
                verifier = form.get("code_verifier", "")
                good = (
                    grant is not None
                    and grant.client_id == client_id
                    and grant.redirect_uri == form.get("redirect_uri")
                    and grant.challenge == _b64url(hashlib.sha256(verifier.encode()).digest())
                    and form.get("resource") == grant.resource
                )
                if not good or grant is None:
                    self._json(400, {"error": "invalid_grant"})
                    return
                self._json(200, server.issue(grant))
            elif kind == "refresh_token":
                grant = server._refresh.get(form.get("refresh_token", ""))
                if grant is None or grant.client_id != client_id:
                    self._json(400, {"error": "invalid_grant"})
                    return
                answer = server.issue(grant)
                if server.rotate_refresh:  # the old refresh token dies with its use
                    server._refresh.pop(form["refresh_token"], None)
                else:  # no new refresh token: the client keeps the old one
                    fresh = answer.pop("refresh_token", None)
                    server._refresh.pop(fresh, None)
                    server.issued_refresh.discard(fresh)
                self._json(200, answer)
            elif kind == "client_credentials":
                grant = Grant(client_id, form.get("scope", ""), form.get("resource"))
                answer = server.issue(grant)
                answer.pop("refresh_token", None)
                self._json(200, answer)
            else:
                self._json(400, {"error": "unsupported_grant_type"})

        def _sse_stream(self) -> None:
            """Legacy HTTP+SSE: the GET stream, which needs a valid token like /mcp does."""
            header = self.headers.get("Authorization")
            with server.lock:
                server.sse_auth_headers.append(header)
                grant = server.valid(header)
            if grant is None:
                metadata = server.base + "/.well-known/oauth-protected-resource/sse"
                self._json(
                    401,
                    {"error": "invalid_token"},
                    {"WWW-Authenticate": f'Bearer resource_metadata="{metadata}"'},
                )
                return
            outbox: queue.Queue[bytes | None] = queue.Queue()
            with server.lock:
                server.sse_outboxes.append(outbox)
                session = len(server.sse_outboxes) - 1
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(f"event: endpoint\ndata: /sse-messages?s={session}\n\n".encode())
            self.wfile.flush()
            while True:
                item = outbox.get()
                if item is None:
                    return
                self.wfile.write(b"event: message\ndata: " + item + b"\n\n")
                self.wfile.flush()

        def _sse_message(self, raw: bytes, outbox: queue.Queue[bytes | None]) -> None:
            with server.lock:
                server.sse_auth_headers.append(self.headers.get("Authorization"))
                grant = server.valid(self.headers.get("Authorization"))
            if grant is None:
                self._json(401, {"error": "invalid_token"})
                return
            message = json.loads(raw)
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            if "id" not in message:
                return
            if message.get("method") == "initialize":
                result: Any = {
                    "protocolVersion": "2024-11-05",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "walled-sse", "version": "1.0.0"},
                }
            else:
                result = {"tools": TOOLS}
            answer = {"jsonrpc": "2.0", "id": message["id"], "result": result}
            outbox.put(json.dumps(answer).encode())

        def _mcp(self, raw: bytes) -> None:
            header = self.headers.get("Authorization")
            with server.lock:
                server.mcp_auth_headers.append(header)
                grant = server.valid(header)
            metadata = server.base + "/.well-known/oauth-protected-resource/mcp"
            if grant is None:
                scope = f', scope="{server.challenge_scope}"' if server.challenge_scope else ""
                self._json(
                    401,
                    {"error": "invalid_token"},
                    {"WWW-Authenticate": f'Bearer resource_metadata="{metadata}"{scope}'},
                )
                return
            message = json.loads(raw)
            method = message.get("method")
            need = server.list_needs_scope
            if method == "tools/list" and (
                server.always_insufficient or (need and need not in grant.scope.split())
            ):
                wanted = need or "mcp:admin"
                self._json(
                    403,
                    {"error": "insufficient_scope"},
                    {
                        "WWW-Authenticate": f'Bearer error="insufficient_scope", scope="{wanted}", '
                        f'resource_metadata="{metadata}"'
                    },
                )
                return
            if "id" not in message:
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if method == "initialize":
                result: Any = {
                    "protocolVersion": message["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "walled", "version": "1.0.0"},
                }
            elif method == "tools/list":
                result = {"tools": TOOLS}
            else:
                self._json(
                    200,
                    {
                        "jsonrpc": "2.0",
                        "id": message["id"],
                        "error": {"code": -32601, "message": "no such method"},
                    },
                )
                return
            self._json(200, {"jsonrpc": "2.0", "id": message["id"], "result": result})

    return Handler


class RunningFake:
    """A FakeAuthServer served on 127.0.0.1 for the length of a ``with`` block."""

    def __init__(self, fake: FakeAuthServer | None = None) -> None:
        self.fake = fake or FakeAuthServer()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(self.fake))
        self._httpd.daemon_threads = True
        self.fake.base = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> FakeAuthServer:
        self._thread.start()
        return self.fake

    def __exit__(self, *exc: object) -> None:
        for outbox in self.fake.sse_outboxes:
            outbox.put(None)  # end the open SSE streams
        self._httpd.shutdown()
        self._httpd.server_close()
