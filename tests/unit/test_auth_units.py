"""The pure pieces of the authorization client: challenge parsing, where metadata is looked
for and in which order, PKCE, request shapes, token responses, settings, and the token store's
file permissions; plus private_key_jwt signatures checked with the public key."""

from __future__ import annotations

import base64
import json
import stat
from pathlib import Path

import pytest

from mcpcost.auth.authorization_failed import AuthorizationFailed
from mcpcost.auth.challenge import parse_bearer_challenge, parse_challenges
from mcpcost.auth.credentials_env import Grant, settings_from_env
from mcpcost.auth.grants import (
    ClientAuthMethod,
    ClientIdentity,
    TokenSet,
    authorization_url,
    basic_credentials,
    choose_auth_method,
    parse_token_response,
    token_request,
)
from mcpcost.auth.metadata import (
    AuthorizationServerMetadata,
    authorization_server_metadata_urls,
    canonical_resource,
    parse_authorization_server_metadata,
    parse_protected_resource_metadata,
    protected_resource_metadata_urls,
    resource_covers,
)
from mcpcost.auth.pkce import new_pkce, s256_challenge
from mcpcost.auth.store import FileTokenStore, SignIn, state_dir

SERVER = AuthorizationServerMetadata(
    issuer="https://as.example",
    authorization_endpoint="https://as.example/a",
    token_endpoint="https://as.example/t",
)


def test_bearer_challenge_fields() -> None:
    c = parse_bearer_challenge(
        'Bearer error="insufficient_scope", scope="files:read files:write", '
        'resource_metadata="https://mcp.example/.well-known/oauth-protected-resource/mcp"'
    )
    assert c.insufficient_scope and c.scope == "files:read files:write"
    assert c.resource_metadata == "https://mcp.example/.well-known/oauth-protected-resource/mcp"


def test_bearer_challenge_among_others_and_odd_forms() -> None:
    header = 'Negotiate abc==, Basic realm="x", Bearer realm="y", scope=read'
    assert [s for s, _ in parse_challenges(header)] == ["negotiate", "basic", "bearer"]
    assert parse_bearer_challenge(header).scope == "read"
    assert parse_bearer_challenge('Bearer scope="a \\"b\\""').scope == 'a "b"'
    assert parse_bearer_challenge("Basic realm=x").scope is None
    assert parse_bearer_challenge(None).resource_metadata is None
    assert parse_bearer_challenge(",,,").error is None


def test_protected_resource_metadata_order() -> None:
    assert protected_resource_metadata_urls("https://h.example/v1/mcp/", None) == [
        "https://h.example/.well-known/oauth-protected-resource/v1/mcp",
        "https://h.example/.well-known/oauth-protected-resource",
    ]
    hinted = protected_resource_metadata_urls("https://h.example/mcp", "https://h.example/m.json")
    assert hinted[0] == "https://h.example/m.json" and len(hinted) == 3
    assert protected_resource_metadata_urls("https://h.example", None) == [
        "https://h.example/.well-known/oauth-protected-resource"
    ]


def test_authorization_server_metadata_order() -> None:
    assert authorization_server_metadata_urls("https://as.example/tenant1") == [
        "https://as.example/.well-known/oauth-authorization-server/tenant1",
        "https://as.example/.well-known/openid-configuration/tenant1",
        "https://as.example/tenant1/.well-known/openid-configuration",
    ]
    assert authorization_server_metadata_urls("https://as.example/") == [
        "https://as.example/.well-known/oauth-authorization-server",
        "https://as.example/.well-known/openid-configuration",
    ]


def test_metadata_documents_are_read_defensively() -> None:
    assert parse_protected_resource_metadata([]) is None
    prm = parse_protected_resource_metadata(
        {
            "resource": "https://h/mcp",
            "authorization_servers": ["javascript:x", "https://as"],
            "scopes_supported": ["a", 3],
        }
    )
    assert prm is not None and prm.authorization_servers == ("https://as",)
    assert prm.scopes_supported == ("a",)
    assert parse_authorization_server_metadata({"issuer": "https://as"}) is None
    meta = parse_authorization_server_metadata(
        {
            "token_endpoint": "https://as/t",
            "registration_endpoint": "file:///etc/passwd",
            "client_id_metadata_document_supported": "yes",
        }
    )
    assert meta is not None and meta.registration_endpoint is None
    assert meta.client_id_metadata_document_supported is False


def test_canonical_resource_and_coverage() -> None:
    assert canonical_resource("HTTPS://Mcp.Example/mcp/?x=1#f") == "https://mcp.example/mcp"
    assert resource_covers("https://mcp.example", "https://mcp.example/mcp")
    assert resource_covers("https://mcp.example/mcp", "https://mcp.example/mcp")
    assert not resource_covers("https://mcp.example/other", "https://mcp.example/mcp")
    assert not resource_covers("https://evil.example/mcp", "https://mcp.example/mcp")
    assert not resource_covers("https://mcp.example/m", "https://mcp.example/mcp")


def test_pkce_rfc7636_appendix_b_vector() -> None:
    verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    assert s256_challenge(verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    pair = new_pkce()
    assert 43 <= len(pair.verifier) <= 128 and pair.challenge == s256_challenge(pair.verifier)
    assert pair.verifier not in repr(pair)


def test_authorization_url_keeps_the_endpoint_query() -> None:
    url = authorization_url(
        "https://as.example/authorize?tenant=t1",
        client_id="c",
        redirect_uri="http://127.0.0.1:9/cb",
        code_challenge="ch",
        state="st",
        scope=None,
        resource="https://mcp.example/mcp",
    )
    assert url.startswith("https://as.example/authorize?tenant=t1&response_type=code&")
    assert "scope=" not in url and "resource=https%3A%2F%2Fmcp.example%2Fmcp" in url


def test_client_authentication_methods() -> None:
    assert basic_credentials("a b", "s:t") == "Basic " + base64.b64encode(b"a+b:s%3At").decode()
    basic = ClientIdentity("id", "sec", ClientAuthMethod.CLIENT_SECRET_BASIC)
    headers, form = token_request(basic, {"grant_type": "x"})
    assert headers["Authorization"].startswith("Basic ") and "client_secret" not in form
    post = ClientIdentity("id", "sec", ClientAuthMethod.CLIENT_SECRET_POST)
    headers, form = token_request(post, {"grant_type": "x"})
    assert "Authorization" not in headers and form["client_secret"] == "sec"
    headers, form = token_request(ClientIdentity("id"), {"grant_type": "x"})
    assert form == {"grant_type": "x", "client_id": "id"}
    assert "'sec'" not in repr(basic)


def test_choose_auth_method() -> None:
    assert choose_auth_method(False, None, SERVER) is ClientAuthMethod.NONE
    assert choose_auth_method(True, None, SERVER) is ClientAuthMethod.CLIENT_SECRET_BASIC
    post_only = AuthorizationServerMetadata(
        issuer=None,
        authorization_endpoint=None,
        token_endpoint="https://as/t",
        token_endpoint_auth_methods_supported=("client_secret_post",),
    )
    assert choose_auth_method(True, None, post_only) is ClientAuthMethod.CLIENT_SECRET_POST
    assert choose_auth_method(True, "client_secret_post", SERVER) is (
        ClientAuthMethod.CLIENT_SECRET_POST
    )


def test_token_responses() -> None:
    tokens = parse_token_response(
        200, {"access_token": "A", "token_type": "bearer", "expires_in": 60}, now=100.0
    )
    assert tokens.expires_at == 160.0 and tokens.usable_at(100.0) and not tokens.usable_at(140.0)
    kept = parse_token_response(200, {"access_token": "B"}, 0.0, previous_refresh="R")
    assert kept.refresh_token == "R"
    with pytest.raises(AuthorizationFailed, match="invalid_grant"):
        parse_token_response(400, {"error": "invalid_grant", "error_description": "secret"}, 0)
    with pytest.raises(AuthorizationFailed, match="not Bearer"):
        parse_token_response(200, {"access_token": "A", "token_type": "DPoP"}, 0)
    assert "A" not in repr(tokens)


def test_settings_from_environment() -> None:
    s = settings_from_env(
        {
            "MCPCOST_OAUTH_GRANT": "client_credentials",
            "MCPCOST_OAUTH_CLIENT_ID": "id",
            "MCPCOST_OAUTH_CLIENT_SECRET": "x",
        }
    )
    assert s.grant is Grant.CLIENT_CREDENTIALS and s.has_machine_credentials and s.can_sign_in
    assert "x" not in repr(s) and s.secret_values == ("x",)
    assert not settings_from_env({}).can_sign_in


def test_state_dir_and_file_store_permissions(tmp_path: Path) -> None:
    assert state_dir({"XDG_STATE_HOME": "relative", "HOME": "/h"}) == Path(
        "/h/.local/state/mcpcost"
    )
    assert state_dir({"XDG_STATE_HOME": str(tmp_path)}) == tmp_path / "mcpcost"
    store = FileTokenStore(tmp_path / "mcpcost")
    sign_in = SignIn(
        "https://m/mcp",
        "https://m/mcp",
        "https://as/t",
        TokenSet("tok", refresh_token="ref"),
        ClientIdentity("cid", "csec", ClientAuthMethod.CLIENT_SECRET_POST),
    )
    store.save(sign_in)
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.path.parent.stat().st_mode) == 0o700
    assert store.load("https://m/mcp", "https://m/mcp") == sign_in
    assert store.keys() == [("https://m/mcp", "https://m/mcp")]
    index = (tmp_path / "mcpcost" / "oauth-index.json").read_text()
    assert "tok" not in index and "csec" not in index
    assert store.forget("https://m/mcp", "https://m/mcp") and store.keys() == []
    assert "tok" not in store.path.read_text()


def test_the_file_store_never_writes_or_reads_through_a_link(tmp_path: Path) -> None:
    store = FileTokenStore(tmp_path / "mcpcost")
    sign_in = SignIn(
        "https://m/mcp",
        "https://m/mcp",
        "https://as/t",
        TokenSet("tok"),
        ClientIdentity("cid", None, ClientAuthMethod.NONE),
    )
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text('{"signIns": {}}')
    store.path.parent.mkdir(mode=0o700)
    store.path.symlink_to(elsewhere)
    assert store.load("https://m/mcp", "https://m/mcp") is None and store.keys() == []
    store.save(sign_in)
    assert elsewhere.read_text() == '{"signIns": {}}'  # the link was replaced, not followed
    assert not store.path.is_symlink() and stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert store.load("https://m/mcp", "https://m/mcp") == sign_in


@pytest.mark.parametrize("alg", ["ES256", "RS256", None])
def test_private_key_jwt_assertion_verifies(alg: str | None) -> None:
    crypto = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.ec")
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding, rsa, utils

    from mcpcost.auth.client_assertion import assertion_claims, sign_assertion

    key = (
        rsa.generate_private_key(65537, 2048)
        if alg == "RS256"
        else crypto.generate_private_key(crypto.SECP256R1())
    )
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    claims = assertion_claims("client-1", "https://as.example", now=1000.0)
    jwt = sign_assertion(claims, pem, alg)
    head, body, sig = jwt.split(".")

    def unb64(text: str) -> bytes:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))

    header = json.loads(unb64(head))
    assert header["alg"] == (alg or "ES256")
    payload = json.loads(unb64(body))
    assert payload["iss"] == payload["sub"] == "client-1" and payload["aud"] == "https://as.example"
    assert payload["exp"] - payload["iat"] == 300 and payload["jti"]
    signed = f"{head}.{body}".encode()
    raw = unb64(sig)
    if header["alg"] == "RS256":
        key.public_key().verify(raw, signed, padding.PKCS1v15(), hashes.SHA256())
    else:
        der = utils.encode_dss_signature(int.from_bytes(raw[:32]), int.from_bytes(raw[32:]))
        key.public_key().verify(der, signed, crypto.ECDSA(hashes.SHA256()))
    with pytest.raises(AuthorizationFailed):
        sign_assertion(claims, "not a key", alg)


class MemoryKeyring:
    """The three calls KeyringTokenStore makes of the ``keyring`` module, kept in a dict."""

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, key: str) -> str | None:
        return self.items.get((service, key))

    def set_password(self, service: str, key: str, value: str) -> None:
        self.items[(service, key)] = value

    def delete_password(self, service: str, key: str) -> None:
        del self.items[(service, key)]


def test_keyring_store_keeps_secrets_in_the_keyring_only(tmp_path: Path) -> None:
    from mcpcost.auth.store import KEYRING_SERVICE, KeyringTokenStore

    ring = MemoryKeyring()
    store = KeyringTokenStore(ring, tmp_path)
    sign_in = SignIn(
        "https://m/mcp",
        "https://m",
        "https://as/t",
        TokenSet("tok-1", refresh_token="ref-1"),
        ClientIdentity("cid"),
    )
    store.save(sign_in)
    assert [service for service, _ in ring.items] == [KEYRING_SERVICE]
    assert store.load("https://m/mcp", "https://m") == sign_in
    assert store.keys() == [("https://m/mcp", "https://m")]
    on_disk = "".join(p.read_text() for p in tmp_path.rglob("*") if p.is_file())
    assert "tok-1" not in on_disk and "ref-1" not in on_disk
    assert store.forget("https://m/mcp", "https://m") and ring.items == {} and store.keys() == []
    assert not store.forget("https://m/mcp", "https://m")
