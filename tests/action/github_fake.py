"""A loopback GitHub REST API for the Action's tests, checking every request against GitHub's
published OpenAPI description (npm ``@octokit/openapi``): the path template and method must exist,
query parameters must be declared, and a JSON body must validate against the operation's schema."""

from __future__ import annotations

import base64
import io
import itertools
import json
import re
import threading
import zipfile
from dataclasses import dataclass, field
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jsonschema
import pytest

NPM = Path(__file__).resolve().parent / "npm" / "node_modules"
OPENAPI = NPM / "@octokit" / "openapi" / "generated" / "api.github.com.json"
WEBHOOKS = NPM / "@octokit" / "webhooks-examples" / "api.github.com" / "index.json"


def assets_missing() -> str | None:
    """Why the fake cannot run here (its npm assets are absent), or None when it can."""
    absent = [p.relative_to(NPM).parts[1] for p in (OPENAPI, WEBHOOKS) if not p.is_file()]
    if not absent:
        return None
    names = " and ".join(f"@octokit/{name}" for name in absent)
    return f"{names} not installed in tests/action/npm (run scripts/setup-test-env.sh)"


@cache
def openapi() -> dict[str, Any]:
    return json.loads(OPENAPI.read_text())


@cache
def _routes() -> list[tuple[re.Pattern[str], str]]:
    out = []
    for template in openapi()["paths"]:
        rx = re.escape(template)
        rx = re.sub(r"\\\{(path|ref)\\\}$", ".+", rx)  # these may hold slashes
        rx = re.sub(r"\\\{[^}]+\\\}", "[^/]+", rx)
        out.append((re.compile(f"^{rx}$"), template))
    # literal templates first, so /git/ref/heads/x does not hit a looser pattern by accident
    out.sort(key=lambda p: p[1].count("{"))
    return out


def deref(node: Any) -> Any:
    spec = openapi()
    while isinstance(node, dict) and "$ref" in node:
        target: Any = spec
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def validate_request(method: str, path: str, query: dict[str, list[str]], body: Any) -> list[str]:
    """Problems with this request according to the OpenAPI description (empty: valid)."""
    templates = [t for rx, t in _routes() if rx.match(path)]
    ops = [(t, openapi()["paths"][t].get(method.lower())) for t in templates]
    ops = [(t, op) for t, op in ops if op is not None]
    if not ops:
        return [f"{method} {path}: no such operation in the OpenAPI description"]
    template, op = ops[0]
    problems = []
    known = {deref(p)["name"] for p in op.get("parameters", []) if deref(p)["in"] == "query"}
    for name in query:
        if name not in known:
            problems.append(f"{method} {template}: unknown query parameter {name!r}")
    content = op.get("requestBody", {}).get("content", {}).get("application/json")
    if body is not None:
        if content is None:
            problems.append(f"{method} {template}: takes no JSON body")
        else:
            schema = dict(content["schema"])
            schema["components"] = openapi()["components"]
            try:
                jsonschema.Draft7Validator(schema).validate(body)
            except jsonschema.ValidationError as exc:
                problems.append(f"{method} {template}: body invalid: {exc.message}")
    return problems


def webhook_example(event: str, action: str | None = None) -> dict[str, Any]:
    for entry in json.loads(WEBHOOKS.read_text()):
        if entry["name"] == event:
            for ex in entry["examples"]:
                if action is None or ex.get("action") == action:
                    return json.loads(json.dumps(ex))
    raise LookupError(event)


@dataclass
class FakeGitHub:
    """State and scripted faults; ``url`` is the API base to give the Action."""

    login: str | None = None  # None: GET /user answers 403 like an installation token
    comments: dict[int, dict[str, Any]] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)
    files: dict[tuple[str, str], str] = field(default_factory=dict)  # (branch, path) -> text
    artifacts: dict[int, dict[str, bytes]] = field(default_factory=dict)  # run id -> files
    pulls: dict[int, tuple[str, str]] = field(default_factory=dict)  # number -> (head sha, repo)
    expired_runs: set[int] = field(default_factory=set)  # runs whose artifact has expired
    forbid_writes: bool = False
    # answered (status, headers, body) in order before any normal answer: rate limits, 5xx
    scripted: list[tuple[int, dict[str, str], Any]] = field(default_factory=list)
    conflicts_left: int = 0
    requests: list[tuple[str, str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    url: str = ""
    _ids: Any = field(default_factory=lambda: itertools.count(1001))

    def start(self) -> FakeGitHub:
        """Serve on loopback; the calling test is skipped when the npm assets are absent."""
        if (why := assets_missing()) is not None:
            pytest.skip(why)
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _handle(self, method: str) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                query = parse_qs(parts.query)
                fake.requests.append((method, parts.path, body))
                fake.problems.extend(validate_request(method, parts.path, query, body))
                if fake.scripted:
                    status, headers, data = fake.scripted.pop(0)
                else:
                    status, data, headers = fake.answer(method, parts.path, query, body)
                payload = data if isinstance(data, bytes) else json.dumps(data).encode()
                self.send_response(status)
                ctype = "application/zip" if isinstance(data, bytes) else "application/json"
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(payload)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self) -> None:
                self._handle("GET")

            def do_POST(self) -> None:
                self._handle("POST")

            def do_PATCH(self) -> None:
                self._handle("PATCH")

            def do_PUT(self) -> None:
                self._handle("PUT")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _forbidden(self) -> tuple[int, Any, dict[str, str]]:
        return 403, {"message": "Resource not accessible by integration"}, {}

    def answer(
        self, method: str, path: str, query: dict[str, list[str]], body: Any
    ) -> tuple[int, Any, dict[str, str]]:
        m = re.match(r"^/repos/([^/]+/[^/]+)(/.*)$", path)
        if path == "/user":
            return (200, {"login": self.login}, {}) if self.login else self._forbidden()
        if not m:
            return 404, {"message": "Not Found"}, {}
        rest = m.group(2)
        if c := re.match(r"^/issues/(\d+)/comments$", rest):
            if method == "GET":
                mine = [x for x in self.comments.values() if x["issue"] == int(c.group(1))]
                page = int(query.get("page", ["1"])[0])
                per = int(query.get("per_page", ["30"])[0])
                chunk = mine[(page - 1) * per : page * per]
                headers = {}
                if page * per < len(mine):
                    headers["link"] = (
                        f'<{self.url}{path}?per_page={per}&page={page + 1}>; rel="next"'
                    )
                return 200, chunk, headers
            if self.forbid_writes:
                return self._forbidden()
            if len(body["body"]) > 65536:
                return 422, {"message": "Body is too long"}, {}
            cid = next(self._ids)
            self.comments[cid] = {
                "id": cid,
                "issue": int(c.group(1)),
                "body": body["body"],
                "user": {"login": self.login or "github-actions[bot]"},
                "html_url": f"https://github.example/c/{cid}",
            }
            return 201, self.comments[cid], {}
        if (c := re.match(r"^/issues/comments/(\d+)$", rest)) and method == "PATCH":
            if self.forbid_writes:
                return self._forbidden()
            self.comments[int(c.group(1))]["body"] = body["body"]
            return 200, self.comments[int(c.group(1))], {}
        if c := re.match(r"^/git/ref/heads/(.+)$", rest):
            sha = self.refs.get(c.group(1))
            return (
                (200, {"ref": f"refs/heads/{c.group(1)}", "object": {"sha": sha}}, {})
                if sha
                else (404, {"message": "Not Found"}, {})
            )
        if rest == "/git/blobs":
            self._blob = body["content"]
            return 201, {"sha": "b" * 40}, {}
        if rest == "/git/trees":
            self._tree_path = body["tree"][0]["path"]
            return 201, {"sha": "c" * 40}, {}
        if rest == "/git/commits":
            return 201, {"sha": "d" * 40}, {}
        if rest == "/git/refs":
            branch = body["ref"].removeprefix("refs/heads/")
            self.refs[branch] = body["sha"]
            self.files[(branch, self._tree_path)] = self._blob
            return 201, {"ref": body["ref"]}, {}
        if c := re.match(r"^/contents/(.+)$", rest):
            branch = query.get("ref", [None])[0] or (body or {}).get("branch")
            key = (branch, c.group(1))
            if method == "GET":
                if key not in self.files:
                    return 404, {"message": "Not Found"}, {}
                text = self.files[key]
                return (
                    200,
                    {
                        "sha": f"s{len(text)}",
                        "content": base64.b64encode(text.encode()).decode(),
                        "type": "file",
                    },
                    {},
                )
            if self.conflicts_left:
                self.conflicts_left -= 1
                return 409, {"message": "is at a different sha"}, {}
            self.files[key] = base64.b64decode(body["content"]).decode()
            return 200, {"commit": {"sha": "e" * 40}}, {}
        if c := re.match(r"^/actions/runs/(\d+)/artifacts$", rest):
            files = self.artifacts.get(int(c.group(1)))
            arts = (
                [
                    {
                        "id": int(c.group(1)) * 10,
                        "name": "mcp-context-cost",
                        "expired": int(c.group(1)) in self.expired_runs,
                    }
                ]
                if files
                else []
            )
            return 200, {"total_count": len(arts), "artifacts": arts}, {}
        if c := re.match(r"^/actions/artifacts/(\d+)/zip$", rest):
            files = self.artifacts[int(c.group(1)) // 10]
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w") as z:
                for name, data in files.items():
                    z.writestr(name, data)
            return 200, buf.getvalue(), {}
        if (c := re.match(r"^/pulls/(\d+)$", rest)) and int(c.group(1)) in self.pulls:
            sha, head_repo = self.pulls[int(c.group(1))]
            pull = webhook_example("pull_request", "opened")["pull_request"]
            pull["number"] = int(c.group(1))
            pull["head"]["sha"] = sha
            pull["head"]["repo"]["full_name"] = head_repo
            return 200, pull, {}
        return 404, {"message": "Not Found"}, {}
