"""The ASGI app of ``mcpcost serve`` (Starlette routing under uvicorn).

Routes: ``/api/measure`` (GET with query parameters, POST with a JSON body), ``/data.json``,
``/api/servers/{name}`` (each also OPTIONS, a browser's preflight), ``/healthz`` and the OpenAPI
document answer JSON. ``/`` is the measure page, whose form posts form-encoded to
``/api/measure`` and gets the page back with the answer in it; with ``--out`` every other path
is the published tree's file there (its pages, badges, dashboard, ``serve.site``), else a JSON
404. Every answer carries ``Access-Control-Allow-Origin: *`` (any page may call the API; no
credentials are ever read), ``X-Mcpcost-Version`` and ``X-Content-Type-Options``; every page
a Content-Security-Policy that runs no script.

``ServiceEdge`` wraps the app: it adds those headers, writes one structured access-log line per
request (JSON on stderr: the path without its query string, which may carry a URL with a
secret), and turns a defect into a JSON 500 without a traceback.

The published tree is read at start-up and again every ``refresh_seconds`` when it changed, on a
worker thread; requests read the last snapshot, so a large tree never delays an answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any, Final, TextIO

from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.model import METHODOLOGY_VERSION
from mcpcost.errors import InputError
from mcpcost.runtime.clock import iso_utc, utc_now
from mcpcost.serve.api import (
    MAX_BODY_BYTES,
    RequestProblem,
    client_key,
    error_body,
    json_body,
    matches_entity_tag,
    measure_target,
)
from mcpcost.serve.dataset import Dataset, Representation, load_dataset, tree_signature
from mcpcost.serve.on_demand import OnDemand
from mcpcost.serve.openapi import OPENAPI_PATH, openapi_document
from mcpcost.serve.options import ServeSettings
from mcpcost.serve.site import (
    FORM_TYPE,
    HTML_TYPE,
    PAGE_HEADERS,
    form_fields,
    measure_page,
    tree_file,
)
from mcpcost.version import __version__

if TYPE_CHECKING:  # starlette is the serve extra's: imported when an app is built
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

JSON_TYPE: Final = "application/json"
BODY_DEADLINE_S: Final = 10.0  # a measure request's body arrives within this, or 408
LOG_PATH_CHARS: Final = 200
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
LogLine = Callable[[dict[str, Any]], None]

EDGE_HEADERS: Final = (
    (b"access-control-allow-origin", b"*"),
    (
        b"access-control-expose-headers",
        b"ETag, Retry-After, Age, X-Cache, X-Mcpcost-Version, X-Mcpcost-Dataset",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-mcpcost-version", __version__.encode("ascii")),
)
PREFLIGHT_HEADERS: Final = {
    "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type, If-None-Match",
    "Access-Control-Max-Age": "86400",
}


def _json(body: bytes, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    from starlette.responses import Response

    return Response(body, status_code=status, headers=headers, media_type=JSON_TYPE)


def _problem(problem: RequestProblem) -> Response:
    return _json(
        error_body(problem.code, str(problem)), problem.status, {"Cache-Control": "no-store"}
    )


def preflight() -> Response:
    """A browser's CORS preflight: any origin, the methods and headers the API reads."""
    from starlette.responses import Response

    return Response(status_code=204, headers=PREFLIGHT_HEADERS)


def _conditional(request: Request, rep: Representation, headers: dict[str, str]) -> Response:
    """The representation, or 304 when the request's ``If-None-Match`` names its ETag."""
    from starlette.responses import Response

    headers = {**headers, "ETag": rep.etag}
    if matches_entity_tag(request.headers.get("if-none-match"), rep.etag):
        return Response(status_code=304, headers=headers)
    return _json(rep.body, 200, headers)


class PublishedTree:
    """The snapshot of the published tree the app serves (None without ``--out``)."""

    def __init__(self, settings: ServeSettings, log: LogLine) -> None:
        self.settings = settings
        self.current: Dataset | None = None
        self._signature: tuple[object, ...] | None = None
        self._log = log

    def refresh(self) -> None:
        """Read the tree again if it changed (blocking IO: run on a worker thread)."""
        root = self.settings.out
        if root is None:
            return
        signature = tree_signature(root)
        if signature == self._signature and self.current is not None:
            return
        try:
            self.current = load_dataset(root)
        except Exception as exc:  # keep serving the last snapshot; say why once
            self._log({"event": "tree-unreadable", "error": type(exc).__name__})
            return
        self._signature = signature
        self._log(
            {
                "event": "tree-loaded",
                "dataset": self.current.origin,
                "servers": len(self.current.servers),
            }
        )

    async def keep_fresh(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.settings.refresh_seconds)
            await loop.run_in_executor(None, self.refresh)


def build_app(
    settings: ServeSettings, log: LogLine, *, on_demand: OnDemand | None = None
) -> ASGIApp:
    """The service: Starlette routes inside ``ServiceEdge``."""
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.routing import Route

    measuring = on_demand or OnDemand(settings)
    tree = PublishedTree(settings, log)
    openapi = json_body(openapi_document())

    async def read_body(request: Request) -> bytes:
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
            raise RequestProblem(
                f"the body is larger than {MAX_BODY_BYTES} bytes", status=413, code="too-large"
            )
        try:
            return await asyncio.wait_for(_bounded_body(request), BODY_DEADLINE_S)
        except TimeoutError:
            raise RequestProblem(
                f"the body did not arrive within {BODY_DEADLINE_S:g}s", status=408, code="slow-body"
            ) from None

    async def read_fields(request: Request) -> dict[str, object]:
        if request.method == "GET":
            items = request.query_params.multi_items()
            names = [k for k, _ in items]
            if len(names) != len(set(names)):
                raise RequestProblem("a query parameter is given twice")
            return dict(items)
        data = await read_body(request)
        try:
            value = parse_json(data)
        except InputError:
            raise RequestProblem("the body is not JSON") from None
        if not isinstance(value, dict):
            raise RequestProblem("the body must be a JSON object")
        return value

    async def measure(request: Request) -> Response:
        if request.method == "OPTIONS":
            return preflight()
        if request.method == "HEAD":  # routing adds HEAD to GET; a measurement is not a probe
            body = error_body("method-not-allowed", "HEAD does not measure: use GET or POST")
            return _json(body, 405, {"Allow": "GET, POST, OPTIONS", "Cache-Control": "no-store"})
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if request.method == "POST" and content_type == FORM_TYPE:
            return await measure_form(request)
        try:
            target = measure_target(await read_fields(request), allow_http=settings.allow_http)
        except RequestProblem as problem:
            return _problem(problem)
        client = client_key(request.client.host if request.client else None)
        answer = await measuring.answer(target, client)
        return _json(answer.body, answer.status, dict(answer.headers))

    def page(body: bytes, status: int = 200, headers: dict[str, str] | None = None) -> Response:
        from starlette.responses import Response

        extra = {**PAGE_HEADERS, "Cache-Control": "no-store", **(headers or {})}
        return Response(body, status_code=status, headers=extra, media_type=HTML_TYPE)

    def has_tree() -> bool:
        return settings.out is not None and tree.current is not None

    async def measure_form(request: Request) -> Response:
        """A person's form post: the measure page with the API's answer, or why not."""
        fields: dict[str, str] = {}
        try:
            fields = form_fields(await read_body(request))
            target = measure_target(fields, allow_http=settings.allow_http)
        except RequestProblem as problem:
            url, transport = fields.get("url", ""), fields.get("transport", "auto")
            body = measure_page(
                tree=has_tree(),
                timeout_s=settings.timeout_s,
                url=url,
                transport=transport,
                problem=str(problem),
            )
            return page(body, problem.status)
        client = client_key(request.client.host if request.client else None)
        answer = await measuring.answer(target, client)
        value = parse_json(answer.body)
        ok = answer.status == 200 and isinstance(value, dict)
        message = value.get("message") if isinstance(value, dict) else None
        body = measure_page(
            tree=has_tree(),
            timeout_s=settings.timeout_s,
            url=target.url,
            transport=str(target.transport),
            answer=value if ok else None,
            problem=None if ok else (message if isinstance(message, str) else "not measured"),
        )
        kept = {k: v for k, v in answer.headers.items() if k.lower() == "retry-after"}
        return page(body, answer.status, kept)

    async def home(request: Request) -> Response:
        return page(measure_page(tree=has_tree(), timeout_s=settings.timeout_s))

    async def published_file(request: Request) -> Response:
        from starlette.responses import Response

        root = settings.out
        found = None
        if root is not None:
            loop = asyncio.get_running_loop()
            found = await loop.run_in_executor(None, tree_file, root, request.url.path)
        if found is None:
            return _json(error_body("not-found", "no such path"), 404)
        data, content_type = found
        headers = {"Cache-Control": fresh_for}
        if not content_type.startswith("application/json"):
            headers.update(PAGE_HEADERS)
        return Response(data, headers=headers, media_type=content_type)

    def dataset_or_404() -> Dataset:
        if tree.current is None:
            raise RequestProblem(
                "this service serves no published tree (start it with --out DIR)",
                status=404,
                code="no-tree",
            )
        return tree.current

    fresh_for = f"public, max-age={int(settings.refresh_seconds)}"

    async def data_json(request: Request) -> Response:
        if request.method == "OPTIONS":
            return preflight()
        try:
            current = dataset_or_404()
        except RequestProblem as problem:
            return _problem(problem)
        headers = {"Cache-Control": fresh_for, "X-Mcpcost-Dataset": current.origin}
        return _conditional(request, current.data, headers)

    async def server(request: Request) -> Response:
        if request.method == "OPTIONS":
            return preflight()
        name = str(request.path_params["name"])
        try:
            current = dataset_or_404()
        except RequestProblem as problem:
            return _problem(problem)
        rep = current.servers.get(name)
        if rep is None:
            return _problem(
                RequestProblem("no such server in the published tree", status=404, code="not-found")
            )
        return _conditional(request, rep, {"Cache-Control": fresh_for})

    async def health(request: Request) -> Response:
        body = {
            "status": "ok",
            "version": __version__,
            "methodologyVersion": METHODOLOGY_VERSION,
            "measuring": measuring.slots.busy,
            "maxConcurrent": settings.max_concurrent,
            "dataset": tree.current.origin if tree.current is not None else None,
        }
        return _json(json_body(body), headers={"Cache-Control": "no-store"})

    async def document(request: Request) -> Response:
        return _json(openapi, headers={"Cache-Control": "public, max-age=3600"})

    async def not_found(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 404
        if status == 405:
            return _json(error_body("method-not-allowed", "method not allowed here"), 405)
        return _json(error_body("not-found", "no such path"), 404)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, tree.refresh)
        refresher = asyncio.create_task(tree.keep_fresh()) if settings.out is not None else None
        try:
            yield
        finally:
            if refresher is not None:
                refresher.cancel()
            measuring.close()

    routes = [
        Route("/api/measure", measure, methods=["GET", "POST", "OPTIONS"]),
        Route("/data.json", data_json, methods=["GET", "OPTIONS"]),
        Route("/api/servers/{name}", server, methods=["GET", "OPTIONS"]),
        Route("/healthz", health, methods=["GET"]),
        Route(OPENAPI_PATH, document, methods=["GET"]),
        Route("/", home, methods=["GET"]),
        Route("/{path:path}", published_file, methods=["GET"]),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={404: not_found, 405: not_found},
        lifespan=lifespan,
    )
    return ServiceEdge(app, log)


async def _bounded_body(request: Request) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise RequestProblem(
                f"the body is larger than {MAX_BODY_BYTES} bytes", status=413, code="too-large"
            )
        chunks.append(chunk)
    return b"".join(chunks)


class ServiceEdge:
    """Headers every answer carries, one access-log line per request, no traceback out."""

    def __init__(self, app: ASGIApp, log: LogLine, clock: Callable[[], float] = time.perf_counter):
        self.app = app
        self._log = log
        self._clock = clock

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = self._clock()
        seen: dict[str, Any] = {"status": 0, "bytes": 0, "cache": None}

        async def edge_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                seen["status"] = message["status"]
                headers = list(message.get("headers", []))
                seen["cache"] = next(
                    (v.decode("latin-1") for k, v in headers if k.lower() == b"x-cache"), None
                )
                message = {**message, "headers": [*headers, *EDGE_HEADERS]}
            elif message["type"] == "http.response.body":
                seen["bytes"] += len(message.get("body", b""))
            await send(message)

        error = None
        try:
            await self.app(scope, receive, edge_send)
        except Exception as exc:  # a defect: answered (when nothing was sent yet) and logged
            error = type(exc).__name__
            if seen["status"] == 0:
                await edge_send(
                    {
                        "type": "http.response.start",
                        "status": 500,
                        "headers": [(b"content-type", JSON_TYPE.encode())],
                    }
                )
                await edge_send(
                    {
                        "type": "http.response.body",
                        "body": error_body("internal", "the service failed on this request"),
                    }
                )
        finally:
            client = scope.get("client")
            line: dict[str, Any] = {
                "event": "request",
                "client": client[0] if client else None,
                "method": scope.get("method"),
                "path": str(scope.get("path", ""))[:LOG_PATH_CHARS],
                "status": seen["status"],
                "bytes": seen["bytes"],
                "ms": round((self._clock() - started) * 1000, 1),
            }
            if seen["cache"] is not None:
                line["cache"] = seen["cache"]
            if error is not None:
                line["error"] = error
            self._log(line)


def log_writer(stream: TextIO) -> LogLine:
    """A ``LogLine`` that writes one JSON object a line to ``stream`` and flushes it (ASCII
    only: nothing a caller sent can reach the log as a control character), stamped with the
    time."""

    def log(fields: dict[str, Any]) -> None:
        stream.write(json.dumps({"ts": iso_utc(utc_now()), **fields}, ensure_ascii=True) + "\n")
        stream.flush()

    return log
