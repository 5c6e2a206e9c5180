"""Secrets never surface: masking where a buffer cuts a secret, failure notes, the Action's masks
for values reached through references, and records that hold a secret (echoed by a real server:
tests/integration/test_security_secrets_echoed.py)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mcpcost.action.runner_files import mask_commands
from mcpcost.configs.clients import ParseContext
from mcpcost.configs.discovery import parse_project_config
from mcpcost.core.redact import MASK, maskable, redact_text
from mcpcost.core.status import Status
from mcpcost.measuring.capture import CaptureFailure
from mcpcost.measuring.server import failure_notes
from mcpcost.transports.base import Diagnostics

SECRET = "s3cr3t-Value-0f-the-User-7f3a9c"


def test_a_buffer_that_begins_inside_a_secret_masks_that_fragment() -> None:
    tail = SECRET[7:] + " then the rest"
    assert redact_text(tail, [SECRET], cut_head=True) == f"{MASK} then the rest"
    assert redact_text("unrelated text", [SECRET], cut_head=True) == "unrelated text"


def test_too_short_or_common_values_are_not_masked() -> None:
    assert not maskable("1") and not maskable("true") and not maskable("abc")
    assert maskable("abcd") and maskable(SECRET)
    assert redact_text("debug=true port=1 key=abcd", ["true", "1", "abcd"]) == (
        f"debug=true port=1 key={MASK}"
    )
    assert mask_commands(["true", "1", SECRET]) == [f"::add-mask::{SECRET}"]


def test_the_action_masks_values_reached_through_references() -> None:
    ctx = ParseContext(
        environ={"MY_SECRET": SECRET, "URL_TOKEN": "tok-9f8e7d6c"},
        home="/home/u",
        cwd="/w",
        platform="linux",
    )
    text = json.dumps(
        {
            "mcpServers": {
                "a": {"command": "srv", "args": ["--key", "${MY_SECRET}"]},
                "b": {"url": "https://h.example/${URL_TOKEN}/mcp"},
            }
        }
    )
    cf = parse_project_config(".mcp.json", text, ctx)
    specs = [e.spec for e in cf.entries if e.spec is not None]
    lines = mask_commands(v for s in specs for v in s.secret_values)
    assert f"::add-mask::{SECRET}" in lines and "::add-mask::tok-9f8e7d6c" in lines
    assert all(SECRET not in s.display() and "tok-9f8e7d6c" not in s.display() for s in specs)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    secret=st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=4, max_size=80),
    before=st.text(alphabet="abcxyz0123 \n", max_size=1500),
    after=st.text(alphabet="abcxyz0123 \n", max_size=1500),
    kept=st.integers(min_value=1, max_value=3000),
)
def test_failure_notes_never_hold_any_part_of_a_secret(
    secret: str, before: str, after: str, kept: int
) -> None:
    """Whatever surrounds the secret and wherever the stderr buffer was cut, no character of it
    reaches the notes (the secret's alphabet is disjoint from everything else in them)."""
    assume(maskable(secret))
    stderr = (before + secret + after)[-kept:]
    failure = CaptureFailure(
        status=Status.STARTUP_FAILURE,
        message="server exited (code 1)",
        diagnostics=Diagnostics(kind="stdio", stderr_tail=stderr),
        elapsed_s=0.0,
    )
    notes = failure_notes(failure, (secret,))
    assert not any(c.isupper() for c in notes), notes


def test_a_secret_cut_at_the_end_of_a_text_is_masked() -> None:
    # an HTTP body's head, or any note cut after a secret began, ends in the secret's first part
    head = f"upstream refused key {SECRET[: len(SECRET) // 2]}"
    assert SECRET[: len(SECRET) // 2] not in redact_text(head, [SECRET])
    assert redact_text(head, [SECRET]).endswith(MASK)
    # fewer than the shortest maskable length is ordinary text
    assert redact_text(f"ends with {SECRET[:3]}", [SECRET]) == f"ends with {SECRET[:3]}"


SENTINEL = "s3cr3t-sentinel-value"


def records_holding_secrets() -> list[object]:
    """One of every record type that holds a secret, each secret set to ``SENTINEL``."""
    import requests

    from mcpcost.action.runner_env import Runner
    from mcpcost.action.settings import Settings
    from mcpcost.auth.credentials_env import OAuthSettings
    from mcpcost.auth.grants import ClientIdentity, Registration, TokenSet
    from mcpcost.auth.loopback import Redirect
    from mcpcost.auth.pkce import PKCEPair
    from mcpcost.auth.store import SignIn
    from mcpcost.core.spec import ServerSpec
    from mcpcost.runtime.github import GitHubClient

    client = ClientIdentity("visible-client", client_secret=SENTINEL, private_key_pem=SENTINEL)
    tokens = TokenSet(access_token=SENTINEL, refresh_token=SENTINEL, scope="visible-scope")
    return [
        client,
        tokens,
        Registration("visible-client", client_secret=SENTINEL),
        OAuthSettings(
            client_id="visible-client",
            client_secret=SENTINEL,
            private_key_pem=SENTINEL,
            refresh_token=SENTINEL,
        ),
        Redirect(code=SENTINEL, state="visible-state"),
        PKCEPair(SENTINEL, "visible-challenge"),
        SignIn("https://visible.example", "r", "t", tokens, client),
        Runner.from_environ({"GITHUB_REPOSITORY": "visible/repo", "API_KEY": SENTINEL}),
        Settings(github_token=SENTINEL, comment_key="visible-key"),
        GitHubClient(requests.Session(), "https://visible.example", SENTINEL, print, float),
        ServerSpec(
            name="visible-server",
            argv=("run", SENTINEL),
            env=(("TOKEN", SENTINEL),),
            secrets=(SENTINEL,),
        ),
    ]


@pytest.mark.parametrize("record", records_holding_secrets(), ids=lambda r: type(r).__name__)
def test_no_record_shows_a_secret_in_its_repr(record: object) -> None:
    shown = repr(record)
    assert SENTINEL not in shown and SENTINEL not in str(record)
    assert "visible" in shown  # the rest of the record is still shown


def test_server_specs_that_differ_only_in_their_secrets_are_the_same_server() -> None:
    from mcpcost.core.spec import ServerSpec

    bare = ServerSpec(name="s", argv=("run",), env=(("TOKEN", "x"),))
    marked = ServerSpec(name="s", argv=("run",), env=(("TOKEN", "x"),), secrets=("x",))
    assert bare == marked and hash(bare) == hash(marked)
    assert bare.launch_key() == marked.launch_key()
    assert bare != ServerSpec(name="s", argv=("run",), env=(("TOKEN", "y"),))
    assert bare != ServerSpec(name="t", argv=("run",), env=(("TOKEN", "x"),))
