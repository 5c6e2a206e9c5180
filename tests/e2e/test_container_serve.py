"""The Action's image runs ``mcpcost serve`` (``podman run IMAGE serve``): built from the
Dockerfile on the prebuilt runtime, started as an unprivileged user on a read-only root, it
measures the reference ``everything`` server on the host's loopback and gives the number
``mcpcost measure --url`` gives on the host."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from urllib.parse import quote

import pytest

from tests.helpers.paths import ROOT
from tests.helpers.serve_process import Service, running
from tests.servers import podman
from tests.servers.registry import serve_everything

pytestmark = [pytest.mark.podman, pytest.mark.slow]


def _build(tag: str, base: str) -> None:
    network = ["--network", "host", "-v", "/etc/ssl/certs:/etc/ssl/certs:ro"]
    built = subprocess.run(
        ["podman", "build", *network, "--build-arg", f"BASE={base}", "-t", tag, str(ROOT)],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]


@contextlib.contextmanager
def _served_from(image: str, name: str, *flags: str) -> Iterator[Service]:
    argv = ["podman", "run", "--rm", "--name", name, "--network", "host"]
    argv += ["--user", "65534:65534", "--read-only", image, "serve", "--port", "0", *flags]
    try:
        with running(argv, start_timeout=120) as service:
            yield service
    finally:
        subprocess.run(["podman", "rm", "-f", name], capture_output=True, timeout=120)


def test_the_action_image_serves_the_api_and_measures_like_the_cli() -> None:
    if (why := podman.podman_unavailable()) is not None:
        pytest.skip(why)
    base = podman.ensure_prebuilt_image()
    try:
        everything = serve_everything("streamableHttp")
        url = everything.__enter__()
    except LookupError as exc:
        pytest.skip(str(exc))
    tag = f"localhost/mcpcost-serve-test:{uuid.uuid4().hex[:8]}"
    try:
        _build(tag, base)
        host = subprocess.run(
            [sys.executable, "-m", "mcpcost", "measure", "--url", url, "--json"],
            capture_output=True,
            text=True,
            timeout=180,
            cwd=ROOT,
            check=True,
        )
        expected = json.loads(host.stdout)
        name = f"mcpcost-serve-{uuid.uuid4().hex[:8]}"
        flags = ("--allow-private-addresses", "--allow-http")
        with _served_from(tag, name, *flags) as service:
            health = service.get("/healthz")  # the socket listens before the line is written
            assert health.status == 200 and health.headers["x-mcpcost-version"]
            reply = service.get(f"/api/measure?url={quote(url, safe='')}")
        assert reply.status == 200, reply.body
        answer = reply.json()
        assert answer["status"] == "measured" and answer["method"] == "exact"
        assert answer["totalTokens"] == expected["totalTokens"]
        assert answer["canonicalSha256"] == expected["canonicalSha256"]
    finally:
        everything.__exit__(None, None, None)
        subprocess.run(["podman", "image", "rm", "-f", tag], capture_output=True, timeout=120)
