"""measure_server against real misbehaving servers: right status, within the deadline, and no
process left behind (every launch carries a marker in its environment; /proc is scanned)."""

from __future__ import annotations

import os
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest

import mcpcost
from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.core.model import Measurement, render_measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status
from mcpcost.measuring import MeasureOptions, measure_server
from mcpcost.measuring.server import DYNAMIC_NOTE, RETRY_PREFIX
from mcpcost.transports.base import Transport
from mcpcost.transports.stdio import spawn_stdio
from tests.helpers.paths import TEST_FIXTURES
from tests.servers.fixtures.stdio_server import GOOD_TOOLS_RAW
from tests.servers.http_fixtures import serve_http
from tests.servers.registry import fixture_argv, sdk_server_argv

pytestmark = pytest.mark.linux_only("reads /proc")

MARKER_VAR = "MCPCOST_TEST_MARKER"
GRACE = 2.0  # SIGTERM -> SIGKILL grace of the stdio transport
FIXED_NOW = datetime(2026, 11, 30, 12, 0, 0, 123456, tzinfo=UTC)


def live_marked(marker: str) -> list[int]:
    """PIDs of live (non-zombie) processes whose environment carries the marker."""
    found = []
    needle = f"{MARKER_VAR}={marker}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if needle not in fh.read().split(b"\0"):
                    continue
            with open(f"/proc/{entry}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in (b"Z", b"X"):
            found.append(int(entry))
    return found


def measure_fixture(
    mode: str,
    *extra: str,
    timeout: float = 3.0,
    retry: bool = False,
    env: dict[str, str] | None = None,
) -> tuple[Measurement, float, str]:
    marker = uuid.uuid4().hex
    spec = ServerSpec.stdio(
        f"fx-{mode}", fixture_argv(mode, *extra), env={MARKER_VAR: marker, **(env or {})}
    )
    started = time.monotonic()
    m = measure_server(
        spec, MeasureOptions(timeout_s=timeout, retry_timeouts=retry, now=lambda: FIXED_NOW)
    )
    elapsed = time.monotonic() - started
    assert live_marked(marker) == [], f"processes left behind by {mode}"
    return m, elapsed, marker


def test_good_server_is_measured_with_all_fields() -> None:
    m, elapsed, _ = measure_fixture("good")
    assert m.status is Status.MEASURED
    assert m.tool_count == 3 and m.total_tokens and m.total_tokens > 0
    assert stringify(m.raw_tools_capture) == stringify(parse_json(GOOD_TOOLS_RAW))
    assert m.server_name == "fixture-good" and m.server_version
    assert isinstance(m.server_instructions, str)
    assert (m.protocol_version, m.protocol_era, m.transport) == ("2025-11-25", "legacy", "stdio")
    assert m.measured_at == "2026-11-30T12:00:00.123Z"
    assert m.env_var_names == (MARKER_VAR,)
    assert m.timeout_ms == 3000 and m.notes is None
    assert m.measured_by == {"tool": "mcp-context-cost (Python)", "version": mcpcost.__version__}
    doc = parse_json(render_measurement(m))
    assert doc["isolation"] == {"docker": False}
    assert elapsed < 3.0


def test_banner_lines_do_not_change_the_number() -> None:
    good, _, _ = measure_fixture("good")
    banner, _, _ = measure_fixture("banner", "--json-logs")
    assert banner.status is Status.MEASURED
    assert banner.canonical_sha256 == good.canonical_sha256


def test_dynamic_publishes_the_first_capture() -> None:
    m, _, _ = measure_fixture("dynamic")
    assert m.status is Status.DYNAMIC
    assert m.notes == DYNAMIC_NOTE
    assert m.total_tokens is not None and m.tool_count


def test_two_captures_run_concurrently(tmp_path: Path) -> None:
    # A barrier, not a stopwatch: each launch records itself, then serves only once it sees the
    # other launch alive too. Sequential captures leave the first launch alone at the barrier; it
    # exits without serving, so the measurement fails. No wall-clock bound, so load cannot flake it.
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    script = fixture_argv("good")[1]
    code = (
        "import os,runpy,sys,time; d=sys.argv[1]; "
        "open(os.path.join(d, str(os.getpid())), 'w').close(); "
        "end=time.monotonic()+5\n"
        "while len(os.listdir(d)) < 2:\n"
        "    time.sleep(0.02)\n"
        "    if time.monotonic() > end: sys.exit(3)\n"
        f"sys.argv=[{script!r},'--mode','good']; "
        f"runpy.run_path({script!r}, run_name='__main__')"
    )
    spec = ServerSpec.stdio("barrier", [sys.executable, "-c", code, str(barrier)])
    m = measure_server(spec, MeasureOptions(timeout_s=10, retry_timeouts=False))
    assert m.status is Status.MEASURED, m.notes
    assert len(os.listdir(barrier)) == 2


@pytest.mark.parametrize(
    ("mode", "extra", "status", "words"),
    [
        ("silent", (), Status.TIMEOUT, "waiting for initialize"),
        ("hang-tools", (), Status.TIMEOUT, "waiting for tools/list"),
        ("crash", (), Status.STARTUP_FAILURE, "server exited (code 1)"),
        ("page-forever", (), Status.STARTUP_FAILURE, "100 pages"),
        ("repeat-cursor", (), Status.STARTUP_FAILURE, "repeated cursor"),
        ("huge", (), Status.STARTUP_FAILURE, "larger than"),
        ("auth-error", (), Status.AUTH_REQUIRED, "-32001"),
        ("grandchild", ("--then", "hang"), Status.TIMEOUT, "waiting for tools/list"),
    ],
)
def test_misbehaving_servers(mode: str, extra: tuple[str, ...], status: Status, words: str) -> None:
    # 100 MB takes a while to produce on a loaded machine: the size guard must win, not the timer.
    timeout = 15.0 if mode == "huge" else 1.5
    m, elapsed, _ = measure_fixture(mode, *extra, timeout=timeout)
    assert m.status is status, m.notes
    assert m.notes is not None and words in m.notes and len(m.notes) <= 700
    assert m.total_tokens is None and m.tools == () and m.raw_tools_capture is None
    assert m.server_name == f"fx-{mode}"
    # within its deadline: the budget, plus the kill grace for SIGTERM-ignoring trees
    assert elapsed < timeout + GRACE + 1.5


def test_crash_with_dotnet_and_js_noise_is_not_auth() -> None:
    m, _, _ = measure_fixture("crash")
    assert m.status is Status.STARTUP_FAILURE
    assert m.notes is not None and "stderr tail:" in m.notes


def test_timeout_retry_doubles_the_budget_and_says_so() -> None:
    m, elapsed, _ = measure_fixture("silent", timeout=0.5, retry=True)
    assert m.status is Status.TIMEOUT
    assert m.timeout_ms == 1000
    assert m.notes is not None and m.notes.startswith(RETRY_PREFIX + "timeout after 1000ms")
    assert 1.4 < elapsed < 4.0


def test_retry_success_replaces_a_false_timeout(tmp_path: Path) -> None:
    # Every launch sleeps 0.6 s first: over the 0.5 s budget, inside the 1 s retry budget.
    script = fixture_argv("good")[1]
    code = (
        "import runpy,sys,time; time.sleep(0.6); "
        f"sys.argv=[{script!r},'--mode','good']; runpy.run_path({script!r}, run_name='__main__')"
    )
    spec = ServerSpec.stdio("slowish", [sys.executable, "-c", code])
    m = measure_server(spec, MeasureOptions(timeout_s=0.5))
    assert m.status is Status.MEASURED
    assert m.timeout_ms == 1000 and m.notes is None


def test_secrets_never_reach_notes() -> None:
    secret = "s3cr3t-value-0123456789"
    code = "import os,sys; sys.stderr.write('bad key ' + os.environ['ACME_API_KEY']); sys.exit(2)"
    spec = ServerSpec.stdio("leaky", [sys.executable, "-c", code], env={"ACME_API_KEY": secret})
    m = measure_server(spec, MeasureOptions(timeout_s=3))
    text = render_measurement(m)
    assert m.status is Status.STARTUP_FAILURE
    assert secret not in text and "bad key ***" in text


def test_secret_in_argv_is_masked_in_launch_command() -> None:
    spec = ServerSpec.stdio(
        "x",
        [
            sys.executable,
            "-c",
            "import sys; sys.exit(1)",
            "--api-key=ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        ],
    )
    m = measure_server(spec, MeasureOptions(timeout_s=3))
    assert "ghp_" not in render_measurement(m)


def test_spawn_failure() -> None:
    m = measure_server(
        ServerSpec.stdio("nope", ["/nonexistent/server-bin"]), MeasureOptions(timeout_s=2)
    )
    assert m.status is Status.STARTUP_FAILURE
    assert m.notes is not None and m.notes.startswith("spawn failed")


@pytest.mark.slow
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_sdk_servers_of_both_eras_are_measured(era: str) -> None:
    m = measure_server(
        ServerSpec.stdio(f"sdk-{era}", sdk_server_argv(era)), MeasureOptions(timeout_s=30)
    )
    assert m.status is Status.MEASURED
    assert m.protocol_era == era
    assert m.protocol_version == ("2026-07-28" if era == "modern" else "2025-11-25")


@pytest.mark.parametrize(
    ("kind", "transport", "status"),
    [
        ("streamable-json", "auto", Status.MEASURED),
        ("streamable-sse", "http", Status.MEASURED),
        ("legacy-sse", "auto", Status.MEASURED),
        ("legacy-sse", "sse", Status.MEASURED),
        ("auth-401-metadata", "auto", Status.REMOTE_AUTH_WALL),
        ("auth-401-bare", "auto", Status.AUTH_REQUIRED),
        ("forbidden-403", "auto", Status.AUTH_REQUIRED),
        ("bearer-required", "auto", Status.AUTH_REQUIRED),
    ],
)
def test_remote_servers(kind: str, transport: str, status: Status) -> None:
    with serve_http(kind) as fx:
        m = measure_server(
            ServerSpec.remote(kind, fx.url, transport=transport), MeasureOptions(timeout_s=5)
        )
    assert m.status is status, m.notes
    if status is Status.MEASURED:
        good, _, _ = measure_fixture("good")
        assert m.canonical_sha256 == good.canonical_sha256
        assert m.transport == ("sse" if kind == "legacy-sse" else "http")


def test_header_values_stay_secret_and_names_are_recorded() -> None:
    from tests.servers.http_fixtures import BEARER_TOKEN

    with serve_http("bearer-required") as fx:
        spec = ServerSpec.remote("b", fx.url, headers={"Authorization": f"Bearer {BEARER_TOKEN}"})
        m = measure_server(spec, MeasureOptions(timeout_s=5))
    text = render_measurement(m)
    assert m.status is Status.MEASURED
    assert BEARER_TOKEN not in text
    assert parse_json(text)["headerNames"] == ["Authorization"]


def test_custom_transport_factory_is_used() -> None:
    opened: list[float] = []

    def factory(spec: ServerSpec, timeout_s: float) -> Transport:
        opened.append(timeout_s)
        return spawn_stdio(spec)

    m = measure_server(
        ServerSpec.stdio("f", fixture_argv("good")),
        MeasureOptions(timeout_s=4, open_transport=factory),
    )
    assert m.status is Status.MEASURED and opened == [4, 4]


def test_bad_timeout_is_refused() -> None:
    with pytest.raises(ValueError):
        measure_server(ServerSpec.stdio("f", fixture_argv("good")), MeasureOptions(timeout_s=0))


def test_a_signed_in_measurement_json_matches_its_golden_file() -> None:
    """The record's own fields and the ones measuring adds (headerNames, protocolErasTried,
    protocolRequested, authorization), byte for byte, written and read back."""
    from types import SimpleNamespace

    from mcpcost.core.model import HOST_ISOLATION
    from mcpcost.measuring.capture import Capture
    from mcpcost.measuring.server import mark_authorized, measurement_from_pair
    from mcpcost.transports.base import Diagnostics
    from mcpcost.transports.session import ServerHello

    spec = ServerSpec.remote("r", "https://mcp.example.test/mcp", headers={"X-Api-Key": "k-9"})
    hello = ServerHello(
        era="modern",
        protocol_version="2026-07-28",
        server_name="example",
        server_version="1.2.0",
        instructions="Be brief.",
    )
    capture = Capture(
        parse_json(GOOD_TOOLS_RAW), hello, Diagnostics(kind="http"), 0.1, eras_tried=("modern",)
    )
    folded = measurement_from_pair(
        spec,
        (capture, capture),
        timeout_s=5,
        measured_at="2026-11-30T00:00:00.000Z",
        isolation=HOST_ISOLATION,
        protocol="modern",
    )
    # the golden file outlives a version bump
    folded = folded.with_(measured_by={"tool": "mcp-context-cost", "version": "0.0.0-golden"})
    text = render_measurement(mark_authorized(folded, SimpleNamespace(used=True)))  # type: ignore[arg-type]
    golden = TEST_FIXTURES / "golden" / "measurement_signed_in.json"
    if os.environ.get("MCPCOST_UPDATE_GOLDEN"):
        golden.write_text(text, "utf-8")
    assert text == golden.read_text("utf-8")
    assert "k-9" not in text
    assert render_measurement(Measurement.from_dict(parse_json(text))) == text
