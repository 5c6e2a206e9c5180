"""Loopback fakes of the two token-counting endpoints, answering from the request's content.

Neither vendor's endpoint can be reached here, so these play them, by the fields the vendors'
API references and SDKs publish (docs/DIVERGENCE.md quotes them):

- Anthropic ``POST /v1/messages/count_tokens``: the key in ``x-api-key`` (the API reference) or
  ``Authorization: Bearer`` (what the SDK 2.15 sends), and ``anthropic-version``;
  body ``model`` and ``messages`` (required) and ``tools`` (each ``name`` and ``input_schema``
  required, ``input_schema.type`` ``"object"``); answer ``{"input_tokens": N}``; errors
  ``{"type": "error", "error": {"type": ..., "message": ...}}``.
- OpenAI ``POST /v1/responses/input_tokens``: header ``Authorization: Bearer``; body ``model``,
  ``input`` and ``tools`` (each ``type: "function"``, ``name``, ``parameters``); answer
  ``{"object": "response.input_tokens", "input_tokens": N}``; errors ``{"error": {"message",
  "type", "code"}}``.

The count is a known function of the content, so a test can predict every number:
``BASE + (FIXED + round(FACTOR x o200k(JSON.stringify(tools))) if tools else 0)``. A 429 with
``retry-after`` can be served for the first requests; every request is recorded.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from mcpcost.core.jsonvalue import stringify
from mcpcost.core.tokenizer import get_tokenizer

ANTHROPIC_TOOL_KEYS = {
    "name",
    "description",
    "input_schema",
    "cache_control",
    "type",
    "strict",
    "defer_loading",
    "input_examples",
    "allowed_callers",
    "eager_input_streaming",
}
OPENAI_TOOL_KEYS = {
    "type",
    "name",
    "description",
    "parameters",
    "strict",
    "defer_loading",
    "output_schema",
    "allowed_callers",
}


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any
    at: float


@dataclass
class FakeCountApi:
    """One fake endpoint of ``api`` ("anthropic" or "openai"): knobs, then the record."""

    api: str
    key: str
    base: int = 7
    fixed: int = 320
    factor: float = 1.75
    rate_limit_first: int = 0  # answer 429 to this many requests first
    retry_after: str = "1"
    reject_tool: str | None = None  # a tool name answered with 400
    seen: list[Seen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def expected(self, tools: list[Any] | None) -> int:
        if not tools:
            return self.base
        return self.base + self.fixed + round(self.factor * get_tokenizer().count(stringify(tools)))

    @property
    def path(self) -> str:
        if self.api == "anthropic":
            return "/v1/messages/count_tokens"
        return "/v1/responses/input_tokens"

    def answer(
        self, path: str, headers: dict[str, str], raw: bytes
    ) -> tuple[int, dict[str, str], Any]:
        with self.lock:
            self.seen.append(Seen(path, headers, None, time.monotonic()))
            limited = self.rate_limit_first > 0
            if limited:
                self.rate_limit_first -= 1
        if path.split("?")[0] != self.path:
            return 404, {}, self._error("not_found_error", f"no route {path}")
        if not self._authorized(headers):
            return 401, {}, self._error("authentication_error", "invalid api key")
        if limited:
            return (
                429,
                {"retry-after": self.retry_after},
                self._error("rate_limit_error", "rate limited"),
            )
        try:
            body = json.loads(raw)
        except ValueError:
            return 400, {}, self._error("invalid_request_error", "body is not JSON")
        self.seen[-1].body = body
        problem = self._check(body)
        if problem:
            return 400, {}, self._error("invalid_request_error", problem)
        tools = body.get("tools")
        if self.reject_tool and any(t.get("name") == self.reject_tool for t in tools or []):
            return 400, {}, self._error("invalid_request_error", "tools.0.input_schema: bad")
        count = self.expected(tools)
        if self.api == "anthropic":
            return 200, {}, {"input_tokens": count}
        return 200, {}, {"object": "response.input_tokens", "input_tokens": count}

    def _authorized(self, headers: dict[str, str]) -> bool:
        bearer = headers.get("authorization") == f"Bearer {self.key}"
        if self.api == "anthropic":
            # the API reference names x-api-key; the SDK (2.15) sends the key as a Bearer token
            keyed = bearer or headers.get("x-api-key") == self.key
            return keyed and "anthropic-version" in headers
        return bearer

    def _error(self, kind: str, message: str) -> Any:
        if self.api == "anthropic":
            return {"type": "error", "error": {"type": kind, "message": message}}
        return {"error": {"message": message, "type": kind, "code": None}}

    def _check(self, body: Any) -> str | None:
        if not isinstance(body, dict) or not isinstance(body.get("model"), str):
            return "model: field required"
        tools = body.get("tools")
        if tools is not None and not isinstance(tools, list):
            return "tools: must be an array"
        if self.api == "anthropic":
            messages = body.get("messages")
            if not isinstance(messages, list) or not messages:
                return "messages: field required"
            for t in tools or []:
                if not isinstance(t, dict) or set(t) - ANTHROPIC_TOOL_KEYS:
                    return "tools: unexpected field"
                if not isinstance(t.get("name"), str) or not isinstance(
                    t.get("input_schema"), dict
                ):
                    return "tools: name and input_schema are required"
                if t["input_schema"].get("type") != "object":
                    return "tools: input_schema.type must be 'object'"
            return None
        if "input" not in body:
            return "input: field required"
        for t in tools or []:
            if not isinstance(t, dict) or set(t) - OPENAI_TOOL_KEYS:
                return "tools: unexpected field"
            if t.get("type") != "function" or not isinstance(t.get("name"), str):
                return "tools: type 'function' and name are required"
            if "parameters" not in t or "strict" not in t:
                return "tools: parameters and strict are required"
        return None


class _Handler(BaseHTTPRequestHandler):
    fake: FakeCountApi

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        headers = {k.lower(): v for k, v in self.headers.items()}
        status, extra, body = self.fake.answer(self.path, headers, raw)
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in extra.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return


class Running:
    """A fake served on 127.0.0.1 until ``close``."""

    def __init__(self, fake: FakeCountApi) -> None:
        handler = type("Handler", (_Handler,), {"fake": fake})
        self.fake = fake
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def origin(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        """What the vendor's SDK takes as its base URL (OpenAI's includes ``/v1``)."""
        return self.origin if self.fake.api == "anthropic" else f"{self.origin}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)
