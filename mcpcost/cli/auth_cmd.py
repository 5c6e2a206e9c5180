"""``mcpcost auth``: sign in to OAuth-protected MCP servers, list and forget sign-ins.

    mcpcost auth login URL [--browser system|print|follow] [--client-metadata-url URL] [--force]
    mcpcost auth status [--json]
    mcpcost auth logout URL | --all

``login`` probes the server, follows its authorization challenge (discovery, client
registration, authorization code with PKCE through a loopback redirect) and stores the tokens
per server and resource: in the OS keyring when the ``keyring`` package has a backend, else in a
0600 file in the state directory. ``logout`` revokes where the server allows it and forgets.
Tokens are never printed. The measuring commands' sign-in flags (``--login``...) live here too,
so ``measure`` and ``audit`` spell them the same way. Credentials for CI come from environment
variables only (see docs/AUTH.md and ``auth.credentials_env``).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, TextIO

from mcpcost.auth.authorization_failed import AuthorizationFailed
from mcpcost.auth.authorizer import OAuthAuthorizer
from mcpcost.auth.credentials_env import BrowserMode, settings_from_env
from mcpcost.auth.revocation import revoke_sign_in
from mcpcost.auth.store import open_token_store
from mcpcost.cli.args import ArgParser
from mcpcost.core.jsonvalue import stringify
from mcpcost.core.redact import redact_url
from mcpcost.errors import EXIT_CHECK_FAILED, EXIT_OK, UsageError
from mcpcost.measuring.server import measure_server
from mcpcost.runtime.http_session import BoundedSession
from mcpcost.transports.auth_probe import SignInOutcome, sign_in_to

if TYPE_CHECKING:
    from mcpcost.auth.authorizer import OAuthAuthorizer
    from mcpcost.auth.credentials_env import OAuthSettings
    from mcpcost.core.model import Measurement
    from mcpcost.core.spec import ServerSpec
    from mcpcost.measuring.server import MeasureOptions

BROWSERS = ("system", "print", "follow")


def add_login_arguments(p: argparse.ArgumentParser) -> None:
    """The sign-in flags of commands that measure remote servers."""
    p.add_argument(
        "--login",
        action="store_true",
        help="sign in when a remote server asks for OAuth authorization (opens the "
        "browser, or prints the URL); stored sign-ins are used either way",
    )
    p.add_argument(
        "--browser",
        choices=BROWSERS,
        default=None,
        help="with --login: system (default), print (only print the URL), or follow "
        "(fetch the URL without a person: for servers that approve at once)",
    )
    p.add_argument(
        "--client-metadata-url",
        metavar="URL",
        help="an https URL of this client's OAuth client ID metadata document",
    )
    p.add_argument(
        "--no-token-cache",
        action="store_true",
        help="neither read nor store sign-ins (tokens live only for this run)",
    )


def login_settings(args: argparse.Namespace, environ: Mapping[str, str]) -> OAuthSettings:
    """Settings from the environment (credentials) and the flags (how to reach a person)."""

    settings = settings_from_env(environ)
    browser = BrowserMode.NONE
    if getattr(args, "login", False) or getattr(args, "browser", None):
        browser = BrowserMode(args.browser or "system")
    metadata_url = getattr(args, "client_metadata_url", None) or settings.client_metadata_url
    if metadata_url is not None and not metadata_url.startswith("https://"):
        raise UsageError("mcpcost: --client-metadata-url must be an https URL")
    return replace(
        settings,
        browser=browser,
        client_metadata_url=metadata_url,
        use_store=not getattr(args, "no_token_cache", False),
    )


def make_authorizer(
    url: str, settings: OAuthSettings, environ: Mapping[str, str], err: TextIO
) -> OAuthAuthorizer:

    store = open_token_store(environ) if settings.use_store else None

    def notify(text: str) -> None:
        err.write(text + "\n")
        err.flush()

    return OAuthAuthorizer(url, settings, store=store, notify=notify)


def sign_in_first(authorizer: OAuthAuthorizer, url: str, err: TextIO) -> None:
    """With a person at a browser (``--login``, browser system or print), sign in before the
    measurement starts, so waiting for the person does not eat the captures' time budget. A
    failure is reported and the measurement goes on (it records the status the server gives)."""

    if authorizer.settings.browser not in (BrowserMode.SYSTEM, BrowserMode.PRINT):
        return
    try:
        sign_in_to(authorizer, url, 30.0)
    except AuthorizationFailed as exc:
        err.write(f"sign-in failed: {exc.reason}\n")


def build_parser() -> ArgParser:
    p = ArgParser(prog="mcpcost auth", description="Sign in to OAuth-protected MCP servers.")
    sub = p.add_subparsers(dest="action", required=True, metavar="login|status|logout")
    login = sub.add_parser("login", help="sign in to a server and store the tokens")
    login.add_argument("url", help="the MCP server URL")
    login.add_argument("--browser", choices=BROWSERS, default="system")
    login.add_argument(
        "--client-metadata-url",
        metavar="URL",
        help="an https URL of this client's client ID metadata document",
    )
    login.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="how long to wait for the browser's redirect (default 300)",
    )
    login.add_argument("--force", action="store_true", help="sign in again even if signed in")
    status = sub.add_parser("status", help="list stored sign-ins (never the tokens)")
    status.add_argument("--json", action="store_true")
    logout = sub.add_parser("logout", help="revoke (where supported) and forget a sign-in")
    logout.add_argument("url", nargs="?", help="the MCP server URL")
    logout.add_argument("--all", action="store_true", help="every stored sign-in")
    return p


def run(
    argv: list[str], out: TextIO, err: TextIO, *, environ: Mapping[str, str] | None = None
) -> int:
    env = dict(os.environ if environ is None else environ)
    args = build_parser().parse_args(argv)
    if args.action == "login":
        return _login(args, env, out, err)
    if args.action == "status":
        return _status(args, env, out)
    return _logout(args, env, out)


def _check_url(url: str) -> str:
    if not url.startswith(("https://", "http://")):
        raise UsageError(f"mcpcost auth: expected an http(s) URL, got {url!r}")
    return url


def _login(args: argparse.Namespace, env: dict[str, str], out: TextIO, err: TextIO) -> int:

    url = _check_url(args.url)
    settings = replace(login_settings(args, env), login_timeout_s=args.timeout)
    if args.force:
        store = open_token_store(env)
        for server, resource in store.keys():
            if server == url:
                store.forget(server, resource)
    authorizer = make_authorizer(url, settings, env, err)
    try:
        outcome = sign_in_to(authorizer, url, timeout_s=30.0)
    except AuthorizationFailed as exc:
        err.write(f"mcpcost auth login: {redact_url(url)}: {exc.reason}\n")
        return EXIT_CHECK_FAILED
    if outcome is SignInOutcome.OPEN:
        out.write(f"{redact_url(url)}: no sign-in needed (the server answered without one)\n")
    else:
        where = open_token_store(env).where
        out.write(f"{redact_url(url)}: signed in (stored in {where})\n")
    return EXIT_OK


def _describe_expiry(expires_at: float | None, now: float) -> str:
    if expires_at is None:
        return "no expiry given"
    left = expires_at - now
    if left <= 0:
        return "access token expired"
    return f"access token valid for {int(left // 60)} min"


def _status(args: argparse.Namespace, env: dict[str, str], out: TextIO) -> int:

    store = open_token_store(env)
    now = time.time()
    rows: list[dict[str, object]] = []
    for server, resource in store.keys():
        sign_in = store.load(server, resource)
        if sign_in is None:
            continue
        rows.append(
            {
                "server": redact_url(server),
                "resource": redact_url(resource),
                "expiresAt": sign_in.tokens.expires_at,
                "refreshable": sign_in.tokens.refresh_token is not None,
                "scope": sign_in.tokens.scope,
            }
        )
    if args.json:
        out.write(stringify({"store": store.where, "signIns": rows}) + "\n")
        return EXIT_OK
    if not rows:
        out.write(f"no stored sign-ins ({store.where})\n")
        return EXIT_OK
    out.write(f"sign-ins in {store.where}:\n")
    for row in rows:
        expires = row["expiresAt"]
        expiry = _describe_expiry(expires if isinstance(expires, float) else None, now)
        refresh = "refreshable" if row["refreshable"] else "not refreshable"
        out.write(f"  {row['server']}: {expiry}, {refresh}\n")
    return EXIT_OK


def _logout(args: argparse.Namespace, env: dict[str, str], out: TextIO) -> int:

    if bool(args.url) == bool(args.all):
        raise UsageError("mcpcost auth logout: give a URL or --all")
    url = None if args.all else _check_url(args.url)
    store = open_token_store(env)
    keys = store.keys() if url is None else [k for k in store.keys() if k[0] == url]
    if not keys:
        out.write("no stored sign-in to forget\n")
        return EXIT_OK
    http = BoundedSession()
    for server, resource in keys:
        sign_in = store.load(server, resource)
        revoked = sign_in is not None and revoke_sign_in(sign_in, http, 10.0)
        store.forget(server, resource)
        note = "revoked and forgotten" if revoked else "forgotten"
        out.write(f"{redact_url(server)}: {note}\n")
    return EXIT_OK


def signed_in_measure(
    options: MeasureOptions,
    settings: OAuthSettings,
    environ: Mapping[str, str],
    err: TextIO,
) -> Callable[[ServerSpec], Measurement]:
    """``measure_server`` with ``options``, remote servers measured with stored or
    configured sign-ins (``settings``: ``login_settings``); with ``--login`` each walled server
    is signed in to first, one at a time (a person answers one browser at a time), and then
    measured without further prompts.

    The sign-in machinery (and ``requests`` behind it) is imported when the first remote server
    is measured: an audit of local servers never loads it."""

    one_at_a_time = threading.Lock()

    def run_one(spec: ServerSpec) -> Measurement:
        if spec.url is None:
            return measure_server(spec, options)
        return _measure_remote(options, spec, settings, environ, err, one_at_a_time)

    return run_one


def _measure_remote(
    options: MeasureOptions,
    spec: ServerSpec,
    settings: OAuthSettings,
    environ: Mapping[str, str],
    err: TextIO,
    one_at_a_time: threading.Lock,
) -> Measurement:

    assert spec.url is not None
    if settings.browser is not BrowserMode.NONE:
        with one_at_a_time:
            err.write(f"signing in to {spec.name} ({redact_url(spec.url)})\n")
            try:
                sign_in_to(make_authorizer(spec.url, settings, environ, err), spec.url, 30.0)
            except AuthorizationFailed as exc:
                err.write(f"{spec.name}: sign-in failed: {exc.reason}\n")
    quiet = replace(settings, browser=BrowserMode.NONE)
    authorizer = make_authorizer(spec.url, quiet, environ, err)
    # signed in through the transports' own opener, not one the options give for launches
    signed = dataclasses.replace(options, sign_in=authorizer, open_transport=None)
    return measure_server(spec, signed)
