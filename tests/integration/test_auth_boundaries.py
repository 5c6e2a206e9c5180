"""OAuth talks only to what it should (docs/AUTH.md, "What sign-in sends where"): configured
secrets only to the issuer they are bound to, HTTPS for every endpoint but loopback, the resource
check always, and a redirect listener that ignores any request without this sign-in's state.
Against the fake authorization server of tests/helpers (no OAuth provider exists here)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from mcpcost.auth.loopback import LoopbackReceiver
from mcpcost.auth.oauth_values import OAuthState
from mcpcost.core.spec import ServerSpec, TransportName
from mcpcost.measuring.server import MeasureOptions, measure_server
from mcpcost.measuring.signed_in import environment_sign_in
from tests.helpers.oauth_fake import FakeAuthServer, RunningFake

SECRET = "ci-client-secret-3b7f"


@pytest.fixture
def good() -> Iterator[FakeAuthServer]:
    with RunningFake() as server:
        server._clients["ci"] = SECRET
        yield server


@pytest.fixture
def evil() -> Iterator[FakeAuthServer]:
    with RunningFake() as server:
        server._clients["ci"] = SECRET  # would accept it: the point is it is never sent
        yield server


def ci_env(issuer: str | None) -> dict[str, str]:
    env = {
        "MCPCOST_OAUTH_GRANT": "client_credentials",
        "MCPCOST_OAUTH_CLIENT_ID": "ci",
        "MCPCOST_OAUTH_CLIENT_SECRET": SECRET,
    }
    if issuer is not None:
        env["MCPCOST_OAUTH_ISSUER"] = issuer
    return env


def measure(url: str, env: dict[str, str], *, required: bool = True) -> tuple[str, str]:
    spec = ServerSpec.remote("remote", url, transport=TransportName.HTTP)
    sign_in = environment_sign_in(spec, env, issuer_required=required)
    m = measure_server(spec, MeasureOptions(timeout_s=10.0, sign_in=sign_in))
    return str(m.status), m.notes or ""


def test_ci_credentials_go_only_to_the_issuer_they_are_bound_to(
    good: FakeAuthServer, evil: FakeAuthServer
) -> None:
    status, _ = measure(good.mcp_url, ci_env(good.base))
    assert status == "measured" and len(good.token_requests) == 1
    # a remote only the pull request names, with its own authorization server
    status, notes = measure(evil.mcp_url, ci_env(good.base))
    assert status != "measured" and evil.token_requests == []
    assert f"credentials are for {good.base}" in notes
    # a remote whose metadata names our issuer but whose server metadata is its own
    evil.authorization_servers = (good.base,)
    status, _ = measure(evil.mcp_url, ci_env(evil.base))
    assert evil.token_requests == []


def test_the_action_sends_no_secret_without_an_issuer_the_cli_keeps_its_behaviour(
    evil: FakeAuthServer,
) -> None:
    status, notes = measure(evil.mcp_url, ci_env(None))
    assert status != "measured" and evil.token_requests == []
    assert "MCPCOST_OAUTH_ISSUER" in notes
    status, _ = measure(evil.mcp_url, ci_env(None), required=False)
    assert status == "measured"  # a person measuring a URL they chose, as before


def test_a_cleartext_endpoint_off_the_machine_is_refused(good: FakeAuthServer) -> None:
    good.endpoint_base = "http://auth.mcpcost-test.invalid"
    status, notes = measure(good.mcp_url, ci_env(good.base))
    assert status != "measured" and good.token_requests == []
    assert "is not HTTPS" in notes


def test_resource_metadata_without_a_resource_is_refused(good: FakeAuthServer) -> None:
    good.prm_names_resource = False
    status, notes = measure(good.mcp_url, ci_env(good.base))
    assert status != "measured" and good.token_requests == []
    assert "names no resource" in notes


def test_a_forged_callback_neither_ends_the_sign_in_nor_says_signed_in() -> None:
    state = OAuthState("the-real-state-7d1e")
    with LoopbackReceiver(state) as receiver:
        forged = requests.get(
            receiver.redirect_uri, params={"code": "x", "state": "guess"}, timeout=5
        )
        assert forged.status_code == 400 and "Signed in." not in forged.text
        missing = requests.get(receiver.redirect_uri, params={"code": "x"}, timeout=5)
        assert missing.status_code == 400
        assert receiver.wait(0.2) is None  # still waiting for the real one
        real = requests.get(
            receiver.redirect_uri, params={"code": "the-code", "state": state}, timeout=5
        )
        assert real.status_code == 200 and "Signed in." in real.text
        got = receiver.wait(1)
    assert got is not None and got.code == "the-code" and got.state == state
