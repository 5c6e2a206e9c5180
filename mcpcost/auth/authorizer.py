"""The MCP authorization client for one server (MCP 2025-06-18 / 2025-11-25, 2025-03-26 fallbacks).

The HTTP transports call ``authorization_header()`` before each request and
``answer_challenge()`` on a 401/403, which tries, in order: a refresh; discovery (RFC 9728
resource metadata, RFC 8414 / OpenID server metadata, or the 2025-03-26 defaults); a grant
(client credentials for machines, else the authorization code with PKCE S256, ``state``,
``resource`` and a loopback redirect). Scope choice, step-up (at most ``MAX_AUTHORIZATIONS``) and
the client identity order are described in docs/AUTH.md. One lock serialises sign-ins; failures
are ``AuthorizationFailed`` with a reason, and no token appears in a reason, a log or a repr.
"""

from __future__ import annotations

import threading
import time
import webbrowser
from collections.abc import Callable, Mapping
from typing import Any

import requests

from mcpcost.auth.authorization_failed import AuthorizationFailed
from mcpcost.auth.challenge import BearerChallenge, parse_bearer_challenge
from mcpcost.auth.client_assertion import assertion_claims, sign_assertion
from mcpcost.auth.credentials_env import BrowserMode, Grant, OAuthSettings
from mcpcost.auth.grants import (
    ClientAuthMethod,
    ClientIdentity,
    TokenSet,
    authorization_url,
    choose_auth_method,
    parse_token_response,
    scope_union,
    token_request,
)
from mcpcost.auth.loopback import LoopbackReceiver, follow_authorization_url
from mcpcost.auth.metadata import (
    AuthorizationServerMetadata,
    ProtectedResourceMetadata,
    authorization_server_metadata_urls,
    canonical_resource,
    fallback_authorization_server,
    origin_of,
    parse_authorization_server_metadata,
    parse_protected_resource_metadata,
    protected_resource_metadata_urls,
    resource_covers,
    same_issuer,
    secure_endpoint,
)
from mcpcost.auth.oauth_values import OAuthScope
from mcpcost.auth.pkce import new_pkce, new_state
from mcpcost.auth.registration import register_client
from mcpcost.auth.revocation import revoke_sign_in
from mcpcost.auth.store import SignIn, TokenStore
from mcpcost.core.jsonvalue import parse_json
from mcpcost.errors import JSONSyntaxError
from mcpcost.runtime.http_body import BodyReadFailed, ReadLimits, read_body
from mcpcost.runtime.http_session import BoundedSession

MAX_AUTHORIZATIONS = 3
MAX_METADATA_BYTES = 1 << 20
USER_AGENT_HEADER = {"Accept": "application/json", "MCP-Protocol-Version": "2025-11-25"}


class OAuthAuthorizer:
    """Bearer tokens for one MCP server, obtained and renewed as its challenges ask."""

    def __init__(
        self,
        server_url: str,
        settings: OAuthSettings,
        *,
        store: TokenStore | None = None,
        http: requests.Session | None = None,
        open_browser: Callable[[str], bool] | None = None,
        notify: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.time,
        timeout_s: float = 30.0,
    ) -> None:
        self.server_url = server_url
        self.resource = canonical_resource(server_url)
        self.settings = settings
        self._store = store if settings.use_store else None
        self._http = http or BoundedSession()
        self._open_browser = open_browser
        self._notify = notify or (lambda _text: None)
        self._clock = clock
        self._timeout = timeout_s
        self._lock = threading.RLock()
        self._authorizations = 0
        self._sign_in: SignIn | None = None
        self._server_meta: AuthorizationServerMetadata | None = None
        self._discovered_for: str | None = None  # the issuer whose metadata URL answered
        self._lost: str | None = None  # why a stored sign-in was dropped, for the failure note
        self.used = False
        if self._store is not None:
            self._sign_in = self._load(self._store)

    def _load(self, store: TokenStore) -> SignIn | None:
        """This server's stored sign-in: for its own URL as the resource first, else for the
        resource its metadata named when it was stored."""
        found = store.load(self.server_url, self.resource)
        if found is not None:
            return found
        for server, resource in store.keys():
            if server == self.server_url:
                found = store.load(server, resource)
                if found is not None:
                    self.resource = resource
                    return found
        return None

    # -- what the transports call ---------------------------------------------------------
    def authorization_header(self) -> str | None:
        """``Bearer <token>`` for the next request, refreshing an expired token first."""
        with self._lock:
            sign_in = self._sign_in
            if sign_in is None:
                return None
            if not sign_in.tokens.usable_at(self._clock()) and sign_in.tokens.refresh_token:
                try:
                    self._refresh(sign_in)
                except AuthorizationFailed as exc:
                    self._drop(exc)
                    return None
            assert self._sign_in is not None
            self.used = True
            return "Bearer " + self._sign_in.tokens.access_token

    def answer_challenge(self, status: int, www_authenticate: str | None, sent: str | None) -> bool:
        """After a 401/403 to a request that carried ``sent`` (an Authorization value or None):
        True when a new token is ready and the request should be sent again; False when this
        answer is not an OAuth challenge we act on. AuthorizationFailed when signing in failed."""
        challenge = parse_bearer_challenge(www_authenticate)
        if status == 403 and not challenge.insufficient_scope:
            return False
        with self._lock:
            current = self._current_header()
            if current is not None and current != sent:
                return True  # another request renewed the token meanwhile
            sign_in = self._sign_in
            if (
                status == 401
                and sign_in is not None
                and sign_in.tokens.refresh_token
                and sent is not None
            ):
                try:
                    self._refresh(sign_in)
                    return True
                except AuthorizationFailed as exc:
                    self._drop(exc)
            if self._authorizations >= MAX_AUTHORIZATIONS:
                raise AuthorizationFailed(
                    f"the server still refused access after {MAX_AUTHORIZATIONS} authorizations"
                    + (f" (it asks for scope {challenge.scope[:200]!r})" if challenge.scope else "")
                )
            if (
                not self.settings.can_sign_in
                and self._authorizations == 0
                and self._sign_in is None
            ):
                if self._lost is None:
                    return False  # nothing to try: the status stays what the wall says
                raise AuthorizationFailed(
                    f"{self._lost}; sign in again with `mcpcost auth login URL` or pass --login"
                )
            self._authorizations += 1
            self._authorize(challenge, step_up=status == 403)
            return True

    def _drop(self, exc: AuthorizationFailed) -> None:
        self._sign_in = None
        self._lost = f"the stored sign-in could not be refreshed ({exc.reason})"

    def _current_header(self) -> str | None:
        return None if self._sign_in is None else "Bearer " + self._sign_in.tokens.access_token

    # -- discovery --------------------------------------------------------------------------
    def _get_json(self, url: str) -> Any:
        if not secure_endpoint(url):
            return None
        try:
            with self._http.get(
                url,
                headers=USER_AGENT_HEADER,
                timeout=self._timeout,
                allow_redirects=True,
                stream=True,
            ) as resp:
                if resp.status_code != 200 or not secure_endpoint(resp.url):
                    return None
                body = read_body(resp, ReadLimits(MAX_METADATA_BYTES, self._timeout))
        except (requests.RequestException, OSError, ValueError, BodyReadFailed):
            return None
        try:
            return parse_json(body)
        except JSONSyntaxError:
            return None

    def discover_resource(self, challenge: BearerChallenge) -> ProtectedResourceMetadata | None:
        for url in protected_resource_metadata_urls(self.server_url, challenge.resource_metadata):
            meta = parse_protected_resource_metadata(self._get_json(url))
            if meta is not None:
                return meta
        return None

    def discover_server(
        self, issuer: str, *, check_issuer: bool = True
    ) -> AuthorizationServerMetadata | None:
        """RFC 8414 section 3.3: the document must name the issuer it was fetched for. The
        2025-03-26 lookup at the MCP server's origin has no issuer to check against."""
        for url in authorization_server_metadata_urls(issuer):
            meta = parse_authorization_server_metadata(self._get_json(url))
            if meta is not None and (not check_issuer or same_issuer(meta.issuer, issuer)):
                return meta
        return None

    # -- the flow ---------------------------------------------------------------------------
    def _authorize(self, challenge: BearerChallenge, *, step_up: bool) -> None:
        resource_meta = self.discover_resource(challenge)
        if resource_meta is not None and resource_meta.resource is None:
            raise AuthorizationFailed(
                "the protected resource metadata names no resource; refusing to sign in for it"
            )
        if resource_meta is not None and resource_meta.resource is not None:
            if not resource_covers(resource_meta.resource, self.server_url):
                raise AuthorizationFailed(
                    "the protected resource metadata names a different resource "
                    f"({resource_meta.resource[:200]}); refusing to sign in for it"
                )
            self.resource = canonical_resource(resource_meta.resource)
        if resource_meta is not None and resource_meta.authorization_servers:
            issuer = resource_meta.authorization_servers[0]
            server = self.discover_server(issuer)
            if server is None:
                raise AuthorizationFailed(
                    f"no authorization server metadata found for {issuer[:200]}"
                )
            self._discovered_for = issuer
        elif resource_meta is not None:
            raise AuthorizationFailed(
                "the protected resource metadata names no authorization server"
            )
        else:  # 2025-03-26: metadata at the server's origin, else the default endpoints
            server = self.discover_server(origin_of(self.server_url), check_issuer=False) or (
                fallback_authorization_server(self.server_url)
            )
            self._discovered_for = origin_of(self.server_url)
        insecure = [
            f"{name} {url[:200]}"
            for name, url in (
                ("token endpoint", server.token_endpoint),
                ("authorization endpoint", server.authorization_endpoint),
                ("registration endpoint", server.registration_endpoint),
                ("revocation endpoint", server.revocation_endpoint),
            )
            if url is not None and not secure_endpoint(url)
        ]
        if insecure:
            raise AuthorizationFailed(
                f"the authorization server's {insecure[0]} is not HTTPS (only loopback may be "
                "plain HTTP); refusing to sign in there"
            )
        self._server_meta = server
        previous = self._sign_in.tokens.scope if self._sign_in is not None and step_up else None
        scope: OAuthScope | None
        if self.settings.scope:
            scope = self.settings.scope
        elif challenge.scope:
            scope = scope_union(previous, challenge.scope)
        elif resource_meta is not None and resource_meta.scopes_supported:
            scope = OAuthScope(" ".join(resource_meta.scopes_supported))
        else:
            scope = None
        if self.settings.grant is Grant.CLIENT_CREDENTIALS:
            tokens, identity = self._client_credentials(server, scope)
        else:
            tokens, identity = self._authorization_code(server, scope)
        self._keep(server, identity, tokens)

    def _keep(
        self, server: AuthorizationServerMetadata, identity: ClientIdentity, tokens: TokenSet
    ) -> None:
        self._sign_in = SignIn(
            server_url=self.server_url,
            resource=self.resource,
            token_endpoint=server.token_endpoint,
            tokens=tokens,
            client=identity,
            revocation_endpoint=server.revocation_endpoint,
            issuer=server.issuer,
        )
        if self._store is not None:
            self._store.save(self._sign_in)

    def _token_call(
        self,
        endpoint: str,
        identity: ClientIdentity,
        params: Mapping[str, str],
        audience: str,
        previous_refresh: str | None = None,
    ) -> TokenSet:
        assertion = None
        if identity.auth_method is ClientAuthMethod.PRIVATE_KEY_JWT:
            if identity.private_key_pem is None:
                raise AuthorizationFailed("private_key_jwt needs MCPCOST_OAUTH_PRIVATE_KEY")
            claims = assertion_claims(identity.client_id, audience, self._clock())
            assertion = sign_assertion(claims, identity.private_key_pem, identity.signing_alg)
        headers, form = token_request(identity, params, assertion)
        try:
            with self._http.post(
                endpoint,
                data=form,
                headers=headers,
                timeout=self._timeout,
                allow_redirects=False,
                stream=True,
            ) as resp:
                status = resp.status_code
                body = read_body(resp, ReadLimits(MAX_METADATA_BYTES, self._timeout))
        except (requests.RequestException, OSError) as exc:
            raise AuthorizationFailed(
                f"token endpoint unreachable ({type(exc).__name__})"
            ) from None
        except BodyReadFailed as exc:
            raise AuthorizationFailed(f"token endpoint answer unreadable: {exc}") from None
        try:
            doc = parse_json(body)
        except JSONSyntaxError:
            doc = None
        return parse_token_response(status, doc, self._clock(), previous_refresh)

    def _refresh(self, sign_in: SignIn) -> None:
        refresh = sign_in.tokens.refresh_token
        assert refresh is not None
        params = {
            "grant_type": "refresh_token",
            "refresh_token": refresh,
            "resource": sign_in.resource,
        }
        tokens = self._token_call(
            sign_in.token_endpoint,
            sign_in.client,
            params,
            sign_in.issuer or sign_in.token_endpoint,
            previous_refresh=refresh,
        )
        if tokens.scope is None and sign_in.tokens.scope is not None:
            tokens = TokenSet(
                tokens.access_token,
                tokens.token_type,
                tokens.refresh_token,
                tokens.expires_at,
                sign_in.tokens.scope,
            )
        self._sign_in = SignIn(
            server_url=sign_in.server_url,
            resource=sign_in.resource,
            token_endpoint=sign_in.token_endpoint,
            tokens=tokens,
            client=sign_in.client,
            revocation_endpoint=sign_in.revocation_endpoint,
            issuer=sign_in.issuer,
        )
        if self._store is not None:
            self._store.save(self._sign_in)

    def refresh_configured(self, server: AuthorizationServerMetadata) -> None:
        """Use the configured client and refresh token (CI) to get a first access token."""
        refresh = self.settings.refresh_token
        identity = self._preregistered(server)
        if refresh is None or identity is None:
            raise AuthorizationFailed("no refresh token and client id configured")
        seed = SignIn(
            self.server_url,
            self.resource,
            server.token_endpoint,
            TokenSet(access_token="", refresh_token=refresh),
            identity,
            server.revocation_endpoint,
            server.issuer,
        )
        self._refresh(seed)  # sets self._sign_in only when the refresh succeeds

    def _preregistered(self, server: AuthorizationServerMetadata) -> ClientIdentity | None:
        s = self.settings
        if s.client_id is None:
            return None
        refused = s.refuses_issuer(self._discovered_for, server.issuer)
        if refused is not None:
            raise AuthorizationFailed(refused)
        if s.private_key_pem is not None:
            return ClientIdentity(
                s.client_id,
                auth_method=ClientAuthMethod.PRIVATE_KEY_JWT,
                private_key_pem=s.private_key_pem,
                signing_alg=s.signing_alg,
            )
        method = choose_auth_method(s.client_secret is not None, None, server)
        return ClientIdentity(s.client_id, s.client_secret, method)

    def _client_credentials(
        self, server: AuthorizationServerMetadata, scope: OAuthScope | None
    ) -> tuple[TokenSet, ClientIdentity]:
        identity = self._preregistered(server)
        if identity is None:
            raise AuthorizationFailed("client credentials need MCPCOST_OAUTH_CLIENT_ID")
        params = {"grant_type": "client_credentials", "resource": self.resource}
        if scope:
            params["scope"] = scope
        tokens = self._token_call(
            server.token_endpoint, identity, params, server.issuer or server.token_endpoint
        )
        return tokens, identity

    def _identity(self, server: AuthorizationServerMetadata, redirect_uri: str) -> ClientIdentity:
        """Pre-registered, else the client ID metadata document, else the identity of an earlier
        sign-in with this server, else dynamic registration."""
        pre = self._preregistered(server)
        if pre is not None:
            return pre
        url = self.settings.client_metadata_url
        if url and server.client_id_metadata_document_supported:
            return ClientIdentity(url)
        known = self._sign_in
        if known is not None and known.token_endpoint == server.token_endpoint:
            return known.client
        if server.registration_endpoint is None:
            raise AuthorizationFailed(
                "the authorization server offers no dynamic registration and no client id is "
                "configured (set MCPCOST_OAUTH_CLIENT_ID)"
            )
        return register_client(self._http, server, redirect_uri, timeout_s=self._timeout)

    def _authorization_code(
        self, server: AuthorizationServerMetadata, scope: OAuthScope | None
    ) -> tuple[TokenSet, ClientIdentity]:
        sign_in = self._sign_in
        if (
            self.settings.refresh_token is not None
            and self.settings.client_id is not None
            and (sign_in is None or not sign_in.tokens.access_token)
            and self._authorizations == 1
        ):
            self.refresh_configured(server)
            assert self._sign_in is not None
            return self._sign_in.tokens, self._sign_in.client
        if self.settings.browser is BrowserMode.NONE:
            raise AuthorizationFailed(
                "the server needs a sign-in: run `mcpcost auth login URL` first, or pass --login"
            )
        if server.authorization_endpoint is None:
            raise AuthorizationFailed("the authorization server names no authorization endpoint")
        methods = server.code_challenge_methods_supported
        if methods is not None and "S256" not in methods:
            raise AuthorizationFailed("the authorization server does not support PKCE S256")
        state = new_state()
        with LoopbackReceiver(state) as receiver:
            redirect_uri = receiver.redirect_uri
            identity = self._identity(server, redirect_uri)
            pkce = new_pkce()
            url = authorization_url(
                server.authorization_endpoint,
                client_id=identity.client_id,
                redirect_uri=redirect_uri,
                code_challenge=pkce.challenge,
                state=state,
                scope=scope,
                resource=self.resource,
            )
            self._send_to_browser(url)
            redirect = receiver.wait(self.settings.login_timeout_s)
        if redirect is None:
            raise AuthorizationFailed(
                f"no sign-in arrived within {self.settings.login_timeout_s:g}s"
            )
        if redirect.state != state:
            raise AuthorizationFailed("the redirect's state did not match; sign-in refused")
        if redirect.error is not None or redirect.code is None:
            code = (redirect.error or "no code")[:64]
            raise AuthorizationFailed(f"the authorization server answered {code!r}")
        params = {
            "grant_type": "authorization_code",
            "code": redirect.code,
            "redirect_uri": redirect_uri,
            "code_verifier": pkce.verifier,
            "resource": self.resource,
        }
        tokens = self._token_call(
            server.token_endpoint, identity, params, server.issuer or server.token_endpoint
        )
        return tokens, identity

    def _send_to_browser(self, url: str) -> None:
        mode = self.settings.browser
        if self._open_browser is not None:
            if self._open_browser(url):
                return
        elif mode is BrowserMode.FOLLOW:
            if follow_authorization_url(url, self._timeout):
                return
        elif mode is BrowserMode.SYSTEM:
            try:
                opened = webbrowser.open(url)
            except webbrowser.Error:
                opened = False
            if opened:
                self._notify("opened the browser to sign in; waiting for the redirect")
                return
        self._notify(f"open this URL to sign in, then come back here:\n{url}")

    # -- sign-out ---------------------------------------------------------------------------
    def revoke(self) -> bool:
        """Revoke this server's tokens where it has a revocation endpoint (best effort)."""
        with self._lock:
            if self._sign_in is None:
                return False
            return revoke_sign_in(self._sign_in, self._http, self._timeout)

    @property
    def sign_in(self) -> SignIn | None:
        return self._sign_in
