"""``mcpcost serve`` as a real process on a loopback port, and a plain HTTP client for it.

``running_service(*flags)`` starts ``python -m mcpcost serve --port 0 FLAGS`` in a session of
its own (``running(argv)`` any command that runs the service, a container's too), reads its
JSON log lines from stderr, and yields a ``Service`` once the first line names the address it
listens on; leaving the block stops it (SIGTERM, then SIGKILL). The
client is ``http.client`` over a fresh connection per request, so every request pays what a
caller's would.

``validate_answer(document, schema, value)`` checks a value against one schema of the
service's OpenAPI 3.1 document (JSON Schema 2020-12, references resolved in the document).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from tests.helpers.paths import ROOT


@dataclass(frozen=True)
class Reply:
    status: int
    headers: dict[str, str]  # lower-case names
    body: bytes
    seconds: float

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Service:
    proc: subprocess.Popen[bytes]
    url: str = ""
    log_lines: list[str] = field(default_factory=list)

    @property
    def port(self) -> int:
        return urlsplit(self.url).port or 0

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
    ) -> Reply:
        started = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=dict(headers or {}))
            answer = conn.getresponse()
            data = answer.read()
            found = {k.lower(): v for k, v in answer.getheaders()}
            return Reply(answer.status, found, data, time.perf_counter() - started)
        finally:
            conn.close()

    def get(self, path: str, **kwargs: Any) -> Reply:
        return self.request("GET", path, **kwargs)

    def post_json(self, path: str, value: Any, **kwargs: Any) -> Reply:
        headers = {"Content-Type": "application/json", **kwargs.pop("headers", {})}
        return self.request("POST", path, json.dumps(value).encode(), headers=headers, **kwargs)

    def log(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in list(self.log_lines) if line.startswith("{")]


def serve_argv(*flags: str) -> list[str]:
    return [sys.executable, "-m", "mcpcost", "serve", "--port", "0", *flags]


@contextlib.contextmanager
def running(argv: list[str], *, start_timeout: float = 60.0, **popen: Any) -> Iterator[Service]:
    """The service ``argv`` starts (``mcpcost serve`` directly, or in a container), once its
    first log line names where it listens; stopped when the block ends."""
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        **popen,
    )
    service = Service(proc)
    ready = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            service.log_lines.append(line)
            if not service.url and line.startswith("{"):
                fields = json.loads(line)
                if fields.get("event") == "listening":
                    service.url = fields["url"]
                    ready.set()
        ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        ready.wait(start_timeout)
        if not service.url:
            raise RuntimeError("mcpcost serve did not start:\n" + "\n".join(service.log_lines))
        yield service
    finally:
        stop(proc)
        reader.join(timeout=10)
        if proc.stderr is not None:
            proc.stderr.close()


def running_service(*flags: str) -> contextlib.AbstractContextManager[Service]:
    """``python -m mcpcost serve --port 0 FLAGS`` from this checkout, without proxies."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        env.pop(name, None)
    return running(serve_argv(*flags), env=env, cwd=ROOT)


def stop(proc: subprocess.Popen[bytes]) -> int:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
    return proc.returncode


def validate_answer(document: dict[str, Any], schema: str, value: Any) -> None:
    """Raise ``jsonschema.ValidationError`` unless ``value`` fits ``schema`` of the document."""
    import jsonschema

    root = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": f"#/components/schemas/{schema}",
        "components": document["components"],
    }
    jsonschema.Draft202012Validator(
        root, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    ).validate(value)
