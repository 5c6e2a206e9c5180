"""Every read from the network is bounded in decoded size and in time, whatever the server does:
a body that never ends, a gzip or deflate bomb, a body that trickles one byte at a time, an
event stream whose one event never ends, a redirect whose own body never ends. Each path is
driven the way a user drives it (``mcpcost measure``, ``mcpcost sweep --registry``, the OAuth
client) in a fresh interpreter whose peak resident memory is measured
(``tests/helpers/peak_memory.py``).

The hostile server stops on its own after 1 GiB or 60 s, so an unbounded read fails these tests
(memory far above the bound, or the time) instead of hanging them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from mcpcost.transports.base import MAX_CAPTURE_BYTES
from tests.helpers.paths import PACKAGE
from tests.helpers.peak_memory import Cost, run_costed
from tests.servers.hostile_http import serve_hostile

# What a bounded read may cost above the interpreter's baseline. The metadata, token and registry
# caps are 1-16 MiB; an event stream keeps at most one 16 MiB event per capture (two run at once).
SMALL_MIB = 64
STREAM_MIB = 400

# The one home of body reads and of the session class.
HOMES = {"runtime/http_body.py", "runtime/http_session.py"}
# The GitHub client still reads most bodies itself (the second part of the hostile-world
# work moves it onto the same boundary).
NOT_YET = {"runtime/github.py", "action/main.py"}
UNBOUNDED = re.compile(
    r"requests\.(get|post|put|patch|delete|head|request|Session)\("
    r"|\.iter_content\(|\.iter_lines\(|\.raw\.read"
    r"|\b(resp|response)\.(content|text|json)\b"
)


def test_no_module_reads_a_body_or_opens_a_session_past_the_boundary() -> None:
    """Every HTTP body is read through ``runtime.http_body`` and every session is a
    ``BoundedSession``: no module calls ``requests`` directly or reads a response whole."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in HOMES or rel in NOT_YET:
            continue
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if UNBOUNDED.search(line):
                found.append(f"{rel}:{number}: {line.strip()}")
    assert found == []


MEASURE = """
import io
from mcpcost.cli import main
out, err = io.StringIO(), io.StringIO()
"""


@pytest.fixture(scope="module")
def hostile() -> Iterator[str]:
    with serve_hostile() as base:
        yield base


def measure_cost(url: str, *extra: str, timeout: str = "20") -> Cost:
    args = ["measure", "--url", url, "--json", "--no-retry", "--no-token-cache"]
    args += ["--timeout", timeout, *extra]
    body = f"""
code = main({args!r}, out, err)
from mcpcost.core.jsonvalue import parse_json
doc = parse_json(out.getvalue()) if out.getvalue() else {{}}
result = [code, doc.get("status"), doc.get("notes"), err.getvalue()[-500:]]
"""
    return run_costed(MEASURE, body)


def report(name: str, cost: Cost) -> None:
    print(f"\n{name}: +{cost.grown_mib:.0f} MiB peak RSS, {cost.seconds:.1f}s, {cost.result!r}")


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["endless", "gzip-bomb", "deflate-bomb"])
def test_protected_resource_metadata_after_a_401_is_read_bounded(hostile: str, mode: str) -> None:
    cost = measure_cost(f"{hostile}/mcp/{mode}", "--transport", "http")
    report(f"metadata {mode}", cost)
    code, status, _notes, _err = cost.result
    assert code == 1 and status == "auth-required"
    assert cost.grown_mib < SMALL_MIB
    assert cost.seconds < 15


@pytest.mark.slow
def test_protected_resource_metadata_that_trickles_ends_at_the_probe_deadline(
    hostile: str,
) -> None:
    cost = measure_cost(f"{hostile}/mcp/trickle", "--transport", "http")
    report("metadata trickle", cost)
    code, status, _notes, _err = cost.result
    assert code == 1 and status == "auth-required"
    assert cost.seconds < 15  # the probe's whole-read deadline is 5 s; the server trickles 60 s


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["endless", "gzip-bomb"])
def test_a_redirect_whose_own_body_never_ends_is_not_read(hostile: str, mode: str) -> None:
    cost = measure_cost(f"{hostile}/redirect/{mode}", "--transport", "http")
    report(f"redirect {mode}", cost)
    code, status, _notes, _err = cost.result
    assert code == 1 and status == "gone"  # the target answers 404
    assert cost.grown_mib < SMALL_MIB
    assert cost.seconds < 15


@pytest.mark.slow
@pytest.mark.parametrize(
    ("path", "transport"),
    [
        ("sse-post/endless-event", "http"),
        ("sse-post/endless-line", "http"),
        ("sse-get/endless-event", "sse"),
    ],
)
def test_an_event_that_never_ends_is_cut_at_the_event_cap(
    hostile: str, path: str, transport: str
) -> None:
    cost = measure_cost(f"{hostile}/{path}", "--transport", transport, timeout="30")
    report(f"event {path}", cost)
    code, status, notes, _err = cost.result
    assert code == 1 and status == "startup-failure"
    assert f"event larger than {MAX_CAPTURE_BYTES} bytes" in notes
    assert cost.grown_mib < STREAM_MIB


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["endless", "gzip-bomb", "trickle"])
def test_a_registry_page_is_read_bounded(
    hostile: str, mode: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    out = tmp_path_factory.mktemp("sweep")
    # the page deadline is 30 s; 3 s here keeps the test short (the server trickles for 60 s)
    body = f"""
import mcpcost.sweep.registry_source as registry_source
registry_source.PAGE_TIMEOUT_S = 3.0
code = main(["sweep", "--registry", {hostile + "/registry/" + mode!r}, "--out", {str(out)!r}],
            out, err)
result = [code, err.getvalue()[-300:]]
"""
    cost = run_costed(MEASURE, body)
    report(f"registry {mode}", cost)
    code, err = cost.result
    assert code == 2 and "registry" in err
    assert cost.grown_mib < SMALL_MIB
    assert cost.seconds < 10


AUTHORIZER = """
from mcpcost.auth.authorizer import OAuthAuthorizer
from mcpcost.auth.challenge import parse_bearer_challenge
from mcpcost.auth.credentials_env import OAuthSettings
"""


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["endless", "gzip-bomb", "trickle"])
def test_oauth_metadata_is_read_bounded(hostile: str, mode: str) -> None:
    body = f"""
authorizer = OAuthAuthorizer({hostile + "/mcp"!r}, OAuthSettings(use_store=False), timeout_s=3.0)
challenge = parse_bearer_challenge('Bearer resource_metadata="{hostile}/body/{mode}"')
result = repr(authorizer.discover_resource(challenge))
"""
    cost = run_costed(AUTHORIZER, body)
    report(f"oauth metadata {mode}", cost)
    assert cost.grown_mib < SMALL_MIB
    assert cost.seconds < 12  # three candidate URLs, each with a 3 s whole-read deadline
