"""The sign-in path end to end, on loopback: ``mcpcost auth login`` with a fake browser, stored
tokens reused by ``measure``, refresh (plain and rotating), revocation, logout, step-up and its
limit, client credentials, and no token in any output or file other than the 0600 token store."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.oauth_fake import FakeAuthServer, RunningFake
from tests.helpers.paths import ROOT

BROWSER = f"{sys.executable} {ROOT / 'tests' / 'helpers' / 'fake_browser.py'} %s"


class Cli:
    """Runs ``python -m mcpcost`` with a private home and state directory; keeps every output."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.outputs: list[str] = []
        self.env = {
            "PATH": os.environ.get("PATH", ""),
            "PYTHONPATH": str(ROOT),
            "HOME": str(tmp / "home"),
            "XDG_STATE_HOME": str(tmp / "state"),
            "MCPCOST_TOKEN_STORE": "file",
            "BROWSER": BROWSER,
        }

    def __call__(
        self, *args: str, extra: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [sys.executable, "-m", "mcpcost", *args],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=self.tmp,
            env={**self.env, **(extra or {})},
            check=False,
        )
        self.outputs += [proc.stdout, proc.stderr]
        return proc

    def measure(
        self, url: str, *flags: str, extra: dict[str, str] | None = None
    ) -> dict[str, object]:
        proc = self(
            "measure",
            "--url",
            url,
            "--json",
            "--no-retry",
            "--timeout",
            "20",
            "--out",
            str(self.tmp / "out"),
            *flags,
            extra=extra,
        )
        doc: dict[str, object] = json.loads(proc.stdout)
        return doc

    @property
    def store_file(self) -> Path:
        return self.tmp / "state" / "mcpcost" / "oauth-tokens.json"


@pytest.fixture
def fake() -> Iterator[FakeAuthServer]:
    with RunningFake() as server:
        yield server


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    (tmp_path / "home").mkdir()
    return Cli(tmp_path)


def _grants(fake: FakeAuthServer) -> list[str]:
    return [r.get("grant_type", "") for r in fake.token_requests]


def test_walled_server_without_sign_in_keeps_its_status(fake: FakeAuthServer, cli: Cli) -> None:
    doc = cli.measure(fake.mcp_url)
    assert doc["status"] == "remote-auth-wall"
    assert "authorization" not in doc
    assert fake.authorize_requests == [] and fake.registrations == []


def test_login_with_a_browser_then_measure_with_the_stored_tokens(
    fake: FakeAuthServer, cli: Cli
) -> None:
    login = cli("auth", "login", fake.mcp_url)
    assert login.returncode == 0, login.stderr
    assert "signed in" in login.stdout
    # the fake browser followed one authorization URL with PKCE S256, state and resource
    [request] = fake.authorize_requests
    assert request["code_challenge_method"] == "S256" and request["state"]
    assert request["resource"] == fake.mcp_url
    assert request["scope"] == "mcp:read"  # no scope in the challenge: scopes_supported
    assert fake.registrations[0]["token_endpoint_auth_method"] == "none"
    assert fake.registrations[0]["redirect_uris"][0].startswith("http://127.0.0.1:")
    assert stat.S_IMODE(cli.store_file.stat().st_mode) == 0o600

    doc = cli.measure(fake.mcp_url)
    assert doc["status"] == "measured" and doc["toolCount"] == 2
    assert doc["authorization"] == "oauth"
    assert len(fake.authorize_requests) == 1  # no second sign-in: the stored token was used
    assert _grants(fake) == ["authorization_code"]

    status = cli("auth", "status", "--json")
    listed = json.loads(status.stdout)
    assert [s["server"] for s in listed["signIns"]] == [fake.mcp_url]
    assert listed["signIns"][0]["refreshable"] is True


def test_expired_access_token_is_refreshed(fake: FakeAuthServer, cli: Cli) -> None:
    fake.expires_in = 5  # inside the client's 30 s margin: every use refreshes first
    assert cli("auth", "login", fake.mcp_url).returncode == 0
    doc = cli.measure(fake.mcp_url)
    assert doc["status"] == "measured" and doc["authorization"] == "oauth"
    assert _grants(fake)[0] == "authorization_code"
    assert "refresh_token" in _grants(fake)[1:]
    assert len(fake.authorize_requests) == 1


def test_rotating_refresh_tokens_are_kept_current(fake: FakeAuthServer, cli: Cli) -> None:
    fake.expires_in = 5
    fake.rotate_refresh = True
    assert cli("auth", "login", fake.mcp_url).returncode == 0
    for _ in range(3):  # each run spends the refresh token the previous run stored
        doc = cli.measure(fake.mcp_url)
        assert doc["status"] == "measured", doc["notes"]
    stored = json.loads(cli.store_file.read_text())["signIns"]
    [record] = stored.values()
    used = {r["refresh_token"] for r in fake.token_requests if r.get("refresh_token")}
    assert record["tokens"]["refresh_token"] not in used  # the newest one, still unspent
    assert len(fake.authorize_requests) == 1


def test_revoked_refresh_token_reads_as_auth_required_with_the_reason(
    fake: FakeAuthServer, cli: Cli
) -> None:
    fake.expires_in = 5
    assert cli("auth", "login", fake.mcp_url).returncode == 0
    fake.revoke_all_refresh()
    doc = cli.measure(fake.mcp_url)
    assert doc["status"] == "auth-required"
    assert "auth login" in str(doc["notes"])
    assert len(fake.authorize_requests) == 1  # never prompted without --login


def test_logout_revokes_and_forgets(fake: FakeAuthServer, cli: Cli) -> None:
    assert cli("auth", "login", fake.mcp_url).returncode == 0
    out = cli("auth", "logout", fake.mcp_url)
    assert out.returncode == 0 and "revoked and forgotten" in out.stdout
    assert {r["token_type_hint"] for r in fake.revocations} == {"refresh_token", "access_token"}
    assert json.loads(cli("auth", "status", "--json").stdout)["signIns"] == []
    assert cli.measure(fake.mcp_url)["status"] == "remote-auth-wall"


def test_measure_login_signs_in_inline(fake: FakeAuthServer, cli: Cli) -> None:
    doc = cli.measure(fake.mcp_url, "--login", "--browser", "follow", "--no-token-cache")
    assert doc["status"] == "measured" and doc["authorization"] == "oauth"
    assert not cli.store_file.exists()
    assert len(fake.authorize_requests) == 1  # two captures shared one sign-in


def test_step_up_asks_for_the_union_of_scopes(fake: FakeAuthServer, cli: Cli) -> None:
    fake.challenge_scope = "mcp:read"
    fake.list_needs_scope = "mcp:write"
    doc = cli.measure(fake.mcp_url, "--login", "--browser", "follow")
    assert doc["status"] == "measured", doc["notes"]
    scopes = [r.get("scope") for r in fake.authorize_requests]
    assert scopes == ["mcp:read", "mcp:read mcp:write"]


def test_step_up_gives_up_after_three_authorizations(fake: FakeAuthServer, cli: Cli) -> None:
    fake.always_insufficient = True
    doc = cli.measure(fake.mcp_url, "--login", "--browser", "follow")
    assert doc["status"] == "auth-required"
    assert "after 3 authorizations" in str(doc["notes"])
    assert len(fake.authorize_requests) == 3


def test_client_credentials_from_the_environment(fake: FakeAuthServer, cli: Cli) -> None:
    fake._clients["ci-client"] = "ci-secret-value"
    env = {
        "MCPCOST_OAUTH_GRANT": "client_credentials",
        "MCPCOST_OAUTH_CLIENT_ID": "ci-client",
        "MCPCOST_OAUTH_CLIENT_SECRET": "ci-secret-value",
    }
    doc = cli.measure(fake.mcp_url, "--no-token-cache", extra=env)
    assert doc["status"] == "measured" and doc["authorization"] == "oauth"
    assert _grants(fake) == ["client_credentials"]
    assert fake.token_requests[0]["resource"] == fake.mcp_url
    assert not any("ci-secret-value" in text for text in cli.outputs)


def test_audit_login_signs_in_then_measures(fake: FakeAuthServer, cli: Cli) -> None:
    config = cli.tmp / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"walled": {"type": "http", "url": fake.mcp_url}}}))
    proc = cli("audit", "--config", str(config), "--json", "--login")
    report = json.loads(proc.stdout)
    text = json.dumps(report)
    assert '"authorization": "oauth"' in text or '"authorization":"oauth"' in text
    assert len(fake.authorize_requests) == 1
    assert "signing in to walled" in proc.stderr


def test_no_token_reaches_any_output_or_file(fake: FakeAuthServer, cli: Cli) -> None:
    fake.expires_in = 5
    fake.rotate_refresh = True
    cli("auth", "login", fake.mcp_url)
    cli.measure(fake.mcp_url)
    cli.measure(fake.mcp_url, "--login", "--browser", "follow")
    cli("auth", "status")
    cli("auth", "status", "--json")
    cli("auth", "logout", "--all")
    tokens = fake.all_tokens()
    assert len(tokens) >= 4
    for text in cli.outputs:
        assert not any(t in text for t in tokens)
    for path in cli.tmp.rglob("*"):
        if path.is_file() and path != cli.store_file:
            data = path.read_text("utf-8", errors="replace")
            assert not any(t in data for t in tokens), path


def test_preregistered_client_with_a_refresh_token_from_the_environment(
    fake: FakeAuthServer, cli: Cli
) -> None:
    from tests.helpers.oauth_fake import Grant

    fake._clients["pre-registered"] = None
    fake._refresh["rt-from-ci-secret"] = Grant("pre-registered", "mcp:read", fake.mcp_url)
    env = {
        "MCPCOST_OAUTH_CLIENT_ID": "pre-registered",
        "MCPCOST_OAUTH_REFRESH_TOKEN": "rt-from-ci-secret",
    }
    doc = cli.measure(fake.mcp_url, "--no-token-cache", extra=env)
    assert doc["status"] == "measured" and doc["authorization"] == "oauth"
    assert _grants(fake) == ["refresh_token"]
    assert fake.authorize_requests == [] and fake.registrations == []
    assert not any("rt-from-ci-secret" in text for text in cli.outputs)


def test_legacy_sse_transport_signs_in_and_measures(fake: FakeAuthServer, cli: Cli) -> None:
    url = fake.base + "/sse"
    doc = cli.measure(url, "--transport", "sse", "--login", "--browser", "follow")
    assert doc["status"] in ("measured", "dynamic"), doc["notes"]
    assert doc["authorization"] == "oauth" and doc["transport"] == "sse"
    # each capture's first GET may go before the shared sign-in (401); everything else is signed
    unsigned = [h for h in fake.sse_auth_headers if h is None]
    assert fake.sse_auth_headers[0] is None and 1 <= len(unsigned) <= 2
    assert len(fake.sse_auth_headers) > 4 and len(fake.sse_outboxes) == 2
    assert [r["resource"] for r in fake.authorize_requests] == [url]


def test_action_measures_with_client_credentials_from_the_step_environment(
    fake: FakeAuthServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcpcost.action.measure_sides import default_measure_server
    from mcpcost.core.spec import ServerSpec

    fake._clients["action-client"] = "action-secret"
    monkeypatch.setenv("MCPCOST_OAUTH_GRANT", "client_credentials")
    monkeypatch.setenv("MCPCOST_OAUTH_CLIENT_ID", "action-client")
    monkeypatch.setenv("MCPCOST_OAUTH_CLIENT_SECRET", "action-secret")
    monkeypatch.setenv("MCPCOST_OAUTH_ISSUER", fake.base)
    spec = ServerSpec.remote("walled", fake.mcp_url, transport="http")
    measured = default_measure_server(spec, 20.0)
    assert str(measured.status) == "measured" and measured.authorization == "oauth"
    assert _grants(fake) == ["client_credentials"]  # one grant shared by both captures
    monkeypatch.delenv("MCPCOST_OAUTH_GRANT")
    monkeypatch.delenv("MCPCOST_OAUTH_CLIENT_ID")
    assert str(default_measure_server(spec, 20.0).status) == "remote-auth-wall"


def test_measure_login_with_the_system_browser_signs_in_before_measuring(
    fake: FakeAuthServer, cli: Cli
) -> None:
    doc = cli.measure(fake.mcp_url, "--login")
    assert doc["status"] == "measured" and doc["authorization"] == "oauth"
    assert len(fake.authorize_requests) == 1
    # the probe's unsigned initialize came first; every capture request was signed
    assert fake.mcp_auth_headers[0] is None
    assert all(h is not None for h in fake.mcp_auth_headers[2:])


def test_login_on_a_headless_machine_prints_the_url_and_waits(
    fake: FakeAuthServer, cli: Cli
) -> None:
    import requests

    proc = subprocess.Popen(
        [sys.executable, "-m", "mcpcost", "auth", "login", fake.mcp_url, "--browser", "print"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cli.tmp,
        env=cli.env,
    )
    assert proc.stderr is not None
    url = ""
    for line in proc.stderr:  # the person reads the URL off the terminal...
        if line.startswith(fake.base + "/authorize?"):
            url = line.strip()
            break
    assert url, "no authorization URL printed"
    assert requests.get(url, timeout=30).status_code == 200  # ...and opens it elsewhere
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "signed in" in out
    assert cli.measure(fake.mcp_url)["authorization"] == "oauth"
