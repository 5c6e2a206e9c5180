"""Real pinned servers (installed by scripts/setup-test-env.sh): measured, stable, and equal to a
Node reference run over the same server; server-everything gives one sha over all transports."""

from __future__ import annotations

import json
import subprocess

import pytest

from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status
from mcpcost.measuring import MeasureOptions, measure_server
from tests.servers.registry import (
    NODE_MODULES,
    NODE_REFERENCE,
    REAL_STDIO_SERVERS,
    node_binary,
    real_server,
    real_server_missing,
    serve_everything,
)

pytestmark = pytest.mark.slow
TIMEOUT_S = 60.0


def node_reference(args: list[str]) -> dict[str, object]:
    node = node_binary()
    assert node is not None
    proc = subprocess.run(
        [node, str(NODE_REFERENCE), "--timeout", "60000", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    answer: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return answer


def measure_real(name: str) -> tuple[Measurement, list[str]]:
    missing = real_server_missing(name)
    if missing is not None:
        pytest.skip(f"{name}: {missing}")
    server = real_server(name)
    assert server is not None
    spec = ServerSpec.stdio(name, list(server.argv), env=dict(server.env))
    return measure_server(spec, MeasureOptions(timeout_s=TIMEOUT_S)), list(server.argv)


@pytest.mark.parametrize("name", REAL_STDIO_SERVERS)
def test_real_server_is_measured_and_matches_node(name: str) -> None:
    m, argv = measure_real(name)
    assert m.status is Status.MEASURED, m.notes
    assert m.tool_count and m.total_tokens and m.canonical_sha256
    assert m.protocol_era == "legacy" and m.server_version
    if node_binary() is None:
        pytest.skip("node not installed: no reference cross-check")
    ref = node_reference(["--stdio", "--", *argv])
    assert ref["sha256"] == m.canonical_sha256
    assert ref["toolCount"] == m.tool_count
    # The reference counts tokens whenever js-tiktoken is installed (CI installs it).
    has_js_tiktoken = (NODE_MODULES / "js-tiktoken").is_dir()
    assert (ref.get("tokens") is not None) is has_js_tiktoken
    if has_js_tiktoken:
        assert ref["tokens"] == m.total_tokens


@pytest.mark.parametrize("mode", ["sse", "streamableHttp"])
def test_everything_same_sha_over_every_transport(mode: str) -> None:
    stdio, _ = measure_real("everything")
    assert stdio.status is Status.MEASURED, stdio.notes
    try:
        ctx = serve_everything(mode)
        url = ctx.__enter__()
    except LookupError as exc:
        pytest.skip(str(exc))
    try:
        remote = measure_server(
            ServerSpec.remote(f"everything-{mode}", url, transport="auto"),
            MeasureOptions(timeout_s=TIMEOUT_S),
        )
    finally:
        ctx.__exit__(None, None, None)
    assert remote.status is Status.MEASURED, remote.notes
    assert remote.transport == ("sse" if mode == "sse" else "http")
    assert remote.canonical_sha256 == stdio.canonical_sha256
    assert remote.total_tokens == stdio.total_tokens
