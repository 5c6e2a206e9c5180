"""A loopback GitHub for ``mcpcost adoption``: ``GET /search/code`` (paginated, with GitHub's
``Link`` header) and ``GET /repos/{owner}/{repo}/git/blobs/{file_sha}``.

Every request is checked against GitHub's published OpenAPI description (npm
``@octokit/openapi``, through the Action tests' ``validate_request``), and every answer the fake
gives with status 200 is validated against that operation's response schema, so the client is
tested against the shapes GitHub documents, not against shapes this file made up. Search items
and repositories are built from the description's own required fields and examples.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jsonschema
import pytest

from tests.action.github_fake import assets_missing, deref, openapi, validate_request

SEARCH = "/search/code"
BLOB_TEMPLATE = "/repos/{owner}/{repo}/git/blobs/{file_sha}"


def _instance(schema: Any) -> Any:
    """A value for ``schema``: its required properties, each from its example or its type."""
    schema = deref(schema)
    for key in ("allOf", "anyOf", "oneOf"):
        if key in schema:
            return _instance(schema[key][0])
    if "example" in schema and schema.get("type") != "object":
        return schema["example"]
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties", {})
        return {name: _instance(props[name]) for name in schema.get("required", [])}
    return {"string": "x", "integer": 1, "number": 1.0, "boolean": False, "array": []}.get(kind)


def _schema(name: str) -> Any:
    return openapi()["components"]["schemas"][name]


def response_problems(template: str, status: int, body: Any) -> list[str]:
    """Problems with an answer of ``GET template`` according to the OpenAPI description."""
    response = openapi()["paths"][template]["get"]["responses"].get(str(status))
    if response is None:
        return [f"GET {template}: {status} is not a documented answer"]
    content = deref(response).get("content", {}).get("application/json")
    if content is None:
        return []
    schema = dict(content["schema"])
    schema["components"] = openapi()["components"]
    try:
        jsonschema.Draft7Validator(schema).validate(body)
    except jsonschema.ValidationError as exc:
        return [f"GET {template} -> {status}: {exc.message}"]
    return []


def blob_sha(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()  # a stand-in id; only unique matters


def repository(full_name: str) -> dict[str, Any]:
    repo = _instance(_schema("minimal-repository"))
    owner, name = full_name.split("/")
    repo.update(
        name=name,
        full_name=full_name,
        html_url=f"https://github.com/{full_name}",
        url=f"https://api.github.com/repos/{full_name}",
    )
    repo["owner"].update(login=owner)
    return repo


@dataclass
class Hosted:
    repo: str
    path: str
    text: str
    queries: tuple[str, ...]  # the queries that find it (matched by equality)


@dataclass
class FakeCodeSearch:
    """Files the searches find; ``scripted`` answers go first ((status, headers, body) of any
    route); ``failing_queries`` answer 422; ``incomplete`` marks search answers incomplete."""

    files: list[Hosted] = field(default_factory=list)
    scripted: list[tuple[int, dict[str, str], Any]] = field(default_factory=list)
    failing_queries: set[str] = field(default_factory=set)
    missing_blobs: set[str] = field(default_factory=set)  # blob shas answered with 404
    incomplete: bool = False
    requests: list[tuple[str, dict[str, list[str]], dict[str, str]]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    url: str = ""

    def start(self) -> FakeCodeSearch:
        if (why := assets_missing()) is not None:
            pytest.skip(why)
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                query = parse_qs(parts.query)
                fake.requests.append((parts.path, query, dict(self.headers.items())))
                fake.problems.extend(validate_request("GET", parts.path, query, None))
                if fake.scripted:
                    status, headers, body = fake.scripted.pop(0)
                else:
                    status, headers, body = fake.answer(parts.path, query)
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json; charset=utf-8")
                self.send_header("content-length", str(len(payload)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def searches(self) -> list[dict[str, list[str]]]:
        return [q for path, q, _ in self.requests if path == SEARCH]

    def answer(self, path: str, query: dict[str, list[str]]) -> tuple[int, dict[str, str], Any]:
        if path == SEARCH:
            return self._search(query)
        if m := re.match(r"^/repos/([^/]+)/([^/]+)/git/blobs/([^/]+)$", path):
            return self._blob(f"{m.group(1)}/{m.group(2)}", m.group(3))
        return 404, {}, {"message": "Not Found", "documentation_url": "https://docs.github.com"}

    def _search(self, query: dict[str, list[str]]) -> tuple[int, dict[str, str], Any]:
        q = query["q"][0]
        if q in self.failing_queries:
            return (
                422,
                {},
                {"message": "Validation Failed", "documentation_url": "https://docs.github.com"},
            )
        per = int(query.get("per_page", ["30"])[0])
        page = int(query.get("page", ["1"])[0])
        found = [f for f in self.files if q in f.queries]
        chunk = found[(page - 1) * per : page * per]
        items = []
        for f in chunk:
            item = _instance(_schema("code-search-result-item"))
            sha = blob_sha(f.text)
            item.update(
                name=f.path.rsplit("/", 1)[-1],
                path=f.path,
                sha=sha,
                url=f"https://api.github.com/repos/{f.repo}/contents/{f.path}?ref={sha}",
                git_url=f"https://api.github.com/repos/{f.repo}/git/blobs/{sha}",
                html_url=f"https://github.com/{f.repo}/blob/main/{f.path}",
                repository=repository(f.repo),
                score=1.0,
            )
            items.append(item)
        body = {"total_count": len(found), "incomplete_results": self.incomplete, "items": items}
        headers = {}
        if page * per < len(found):
            headers["link"] = f'<{self.url}{SEARCH}?page={page + 1}>; rel="next"'
        self.problems.extend(response_problems(SEARCH, 200, body))
        return 200, headers, body

    def _blob(self, repo: str, sha: str) -> tuple[int, dict[str, str], Any]:
        for f in self.files:
            if f.repo == repo and blob_sha(f.text) == sha and sha not in self.missing_blobs:
                raw = f.text.encode()
                encoded = base64.b64encode(raw).decode()
                content = "\n".join(encoded[i : i + 60] for i in range(0, len(encoded), 60))
                body = {
                    "sha": sha,
                    "node_id": "B_x",
                    "size": len(raw),
                    "url": f"https://api.github.com/repos/{repo}/git/blobs/{sha}",
                    "content": content + "\n",
                    "encoding": "base64",
                }
                self.problems.extend(response_problems(BLOB_TEMPLATE, 200, body))
                return 200, {}, body
        return 404, {}, {"message": "Not Found", "documentation_url": "https://docs.github.com"}
