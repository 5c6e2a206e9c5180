"""Deferral verdict truth table: every row of the README table, every refusal, threshold
arithmetic through the published ratio band, alwaysLoad read from the config, the no-record
wording for other clients, settings files read from a temporary home."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcpcost.audit.deferral import DeferralServer, Loading, decide, load_inputs
from mcpcost.configs.clients import client_named, presentation_of
from mcpcost.configs.clients.claude_code import (
    BASE_URL,
    BETAS,
    TOOL_SEARCH,
    deferral_sources,
    parse_settings,
    settings_paths,
)
from mcpcost.configs.clients.presentation import SHELL_SOURCE, LoadVerdict, SettingsSource
from mcpcost.configs.clients.settings_files import SettingsFile, read_settings
from mcpcost.core.divergence import parse_divergence
from mcpcost.core.jsonvalue import stringify
from mcpcost.render.deferral_lines import deferral_block

SERVERS = (DeferralServer(name="a", tokens=30_000), DeferralServer(name="b", tokens=2_000))


def settings_file(
    env: Any, scope: str = "user", source: str = "/h/.claude/settings.json"
) -> SettingsSource:
    return parse_settings(scope, source, stringify({"env": env}))


def absent(scope: str, source: str) -> SettingsSource:
    return parse_settings(scope, source, None)


def verdict(
    shell: dict[str, str] | None = None,
    settings: list[SettingsSource] | None = None,
    servers: tuple[DeferralServer, ...] = SERVERS,
    client: str = "claude-code",
    **kw: Any,
) -> Loading:
    inputs = load_inputs(
        client=client,
        sources=["/h/.claude.json"],
        servers=servers,
        unmeasured=["u"] if kw.pop("is_floor", False) else [],
        context_window=kw.pop("context_window", 200_000),
        shell_environ=shell or {},
        settings=settings if settings is not None else [],
        **kw,
    )
    return decide(inputs, presentation_of(client), 0)


# --------------------------------------------------------------------- README rows


def test_nothing_set_defers_all_with_no_threshold() -> None:
    v = verdict()
    assert v.mode == "defers-all" and v.threshold_tokens is None
    assert v.setting is not None and v.setting.read_from_machine is False
    assert v.verdict is LoadVerdict.DEFERRED
    assert len(v.exceptions) == 3


def test_tool_search_true_defers_all() -> None:
    v = verdict({TOOL_SEARCH: "true"})
    assert v.mode == "defers-all" and v.setting is not None and v.setting.read_from_machine
    assert v.setting.source == SHELL_SOURCE


def test_tool_search_false_string_loads_upfront() -> None:
    v = verdict(settings=[settings_file({TOOL_SEARCH: "false"})])
    assert v.mode == "loads-upfront" and v.verdict is LoadVerdict.LOADED_UP_FRONT
    assert v.setting is not None and v.setting.source == "/h/.claude/settings.json"


def test_json_boolean_false_is_unresolved_not_false() -> None:
    v = verdict(settings=[settings_file({TOOL_SEARCH: False})])
    assert v.mode == "setting-unresolved"
    assert v.setting is not None and v.setting.unresolved == "value-unreadable"
    assert v.verdict is LoadVerdict.CANNOT_BE_SAID


@pytest.mark.parametrize(
    ("value", "share"),
    [("auto", 0.10), ("auto:5", 0.05), ("auto:100", 1.0), ("auto:0", 0.0), (" auto:20 ", 0.20)],
)
def test_auto_thresholds(value: str, share: float) -> None:
    v = verdict({TOOL_SEARCH: value})
    assert v.mode == "threshold" and v.threshold_share == pytest.approx(share)
    assert v.threshold_tokens == round(200_000 * share)


def test_threshold_moves_with_the_context_window() -> None:
    assert verdict({TOOL_SEARCH: "auto"}, context_window=1_000_000).threshold_tokens == 100_000


def test_betas_disabled_loads_upfront_and_beats_tool_search() -> None:
    v = verdict({BETAS: "1", TOOL_SEARCH: "true"})
    assert v.mode == "loads-upfront" and v.setting is not None and v.setting.variable == BETAS


@pytest.mark.parametrize(
    ("url", "mode", "shown"),
    [
        ("https://proxy.corp.example/v1?key=sekrit", "loads-upfront", "proxy.corp.example"),
        ("https://api.anthropic.com", "defers-all", None),
        ("not a url at all", "loads-upfront", "(unreadable URL)"),
    ],
)
def test_base_url_consulted_only_while_tool_search_unset(
    url: str, mode: str, shown: str | None
) -> None:
    v = verdict({BASE_URL: url})
    assert v.mode == mode
    if shown is not None:
        assert v.setting is not None and v.setting.value == shown
        assert "sekrit" not in stringify(v.reference_dict())
    assert verdict({BASE_URL: url, TOOL_SEARCH: "true"}).mode == "defers-all"


@pytest.mark.parametrize("value", ["yes", "TRUE", "auto:101", "auto:x", "auto:1000", "1"])
def test_undocumented_values_claim_nothing(value: str) -> None:
    assert verdict({TOOL_SEARCH: value}).mode == "setting-unrecognized"


@pytest.mark.parametrize("bad", [False, 0, None, ["true"]])
def test_non_string_in_a_settings_env_block_is_unresolved(bad: Any) -> None:
    for var in (BETAS, TOOL_SEARCH):
        v = verdict(settings=[settings_file({var: bad})])
        assert v.mode == "setting-unresolved", var


# --------------------------------------------------------------------- refusals


def test_refusal_two_places_disagree() -> None:
    v = verdict({TOOL_SEARCH: "true"}, [settings_file({TOOL_SEARCH: "false"})])
    assert v.mode == "setting-unresolved" and v.setting is not None
    assert v.setting.unresolved == "sources-disagree"
    assert "different values" in "\n".join(deferral_block(v, 200_000))


def test_agreeing_places_are_not_a_disagreement() -> None:
    v = verdict({TOOL_SEARCH: "false"}, [settings_file({TOOL_SEARCH: "false"})])
    assert v.mode == "loads-upfront"


def test_refusal_settings_file_cannot_be_read() -> None:
    bad = parse_settings("project", "/w/.claude/settings.json", "{ not json")
    assert bad.state == "unreadable"
    v = verdict(settings=[bad])
    assert v.mode == "setting-unresolved" and v.setting is not None
    assert v.setting.unresolved == "source-unreadable"
    assert parse_settings("user", "/x", "[1,2]").state == "unreadable"
    assert parse_settings("user", "/x", '{"env": "nope"}').state == "unreadable"


def test_refusal_in_a_variable_not_consulted_refuses_nothing() -> None:
    # base URL disagreement behind an explicit ENABLE_TOOL_SEARCH
    v = verdict(
        {TOOL_SEARCH: "true", BASE_URL: "https://a.example"},
        [settings_file({BASE_URL: "https://b.example"})],
    )
    assert v.mode == "defers-all"


def test_precedence_first_settings_file_holding_the_variable_wins() -> None:
    managed = settings_file(
        {TOOL_SEARCH: "false"}, "managed", "/etc/claude-code/managed-settings.json"
    )
    user = settings_file({TOOL_SEARCH: "true"}, "user")
    v = verdict(settings=[managed, absent("project", "/w/.claude/settings.json"), user])
    assert v.mode == "loads-upfront" and v.setting is not None
    assert v.setting.source == "/etc/claude-code/managed-settings.json"


# --------------------------------------------------------------------- threshold arithmetic


def test_threshold_estimate_uses_the_published_band() -> None:
    v = verdict({TOOL_SEARCH: "auto"})  # threshold 20,000; wire 32,000 -> 6,400 .. 61,440
    assert v.request is not None
    assert v.request.to_dict() == {"low": 6400, "high": 61440, "exact": 0, "estimated": 2}
    ratio = v.request.ratio
    assert ratio is not None and (ratio.low, ratio.high, ratio.source) == (
        0.20,
        1.92,
        "published",
    )
    assert v.crosses is None and v.verdict is LoadVerdict.CANNOT_BE_SAID  # straddles
    distance = {"low": 6400 - 20000, "high": 61440 - 20000}
    assert v.reference_dict()["distanceTokens"] == distance


def test_threshold_clearly_over_and_clearly_under() -> None:
    big = (DeferralServer(name="a", tokens=200_000),)
    assert verdict({TOOL_SEARCH: "auto"}, servers=big).crosses is True
    small = (DeferralServer(name="a", tokens=1_000),)
    under = verdict({TOOL_SEARCH: "auto"}, servers=small)
    assert under.crosses is False and under.verdict is LoadVerdict.LOADED_UP_FRONT
    assert verdict({TOOL_SEARCH: "auto"}, servers=small, is_floor=True).crosses is None


def test_exact_claude_counts_replace_the_band() -> None:
    servers = (DeferralServer(name="a", tokens=50_000, anthropic_tokens=18_000),)
    v = verdict({TOOL_SEARCH: "auto"}, servers=servers)
    assert v.request is not None
    assert v.request.to_dict() == {"low": 18_000, "high": 18_000, "exact": 1, "estimated": 0}
    assert v.crosses is False


def test_a_supplied_run_recomputes_the_band() -> None:
    run = parse_divergence(
        {
            "model": "m",
            "measuredAt": "2026-08-18",
            "servers": {
                "x": {"o200kFull": 100, "claudeDelta": 50, "capturedSha256": "a" * 64},
                "y": {"o200kFull": 100, "claudeDelta": 150, "capturedSha256": "b" * 64},
                "z": {
                    "o200kFull": 100,
                    "claudeDelta": 900,
                    "capturedSha256": "c" * 64,
                    "error": "x",
                },
            },
        }
    )
    v = verdict({TOOL_SEARCH: "auto"}, divergence=run)
    ratio = v.request.ratio if v.request is not None else None
    assert ratio is not None and (ratio.low, ratio.high, ratio.servers) == (0.5, 1.5, 2)


# --------------------------------------------------------------------- alwaysLoad, other clients


def test_always_load_is_read_from_the_config_and_paid_up_front() -> None:
    servers = (
        DeferralServer(name="pinned", tokens=5_000, always_load=True),
        DeferralServer(name="rest", tokens=9_000),
    )
    v = verdict(servers=servers)
    assert v.mode == "defers-all"
    assert v.always_load.servers == ("pinned",) and v.always_load.tokens == 5_000
    assert v.verdict is LoadVerdict.DEFERRED
    assert "pinned" in "\n".join(deferral_block(v, 200_000))


@pytest.mark.parametrize("client", ["claude-desktop", "windsurf", "gemini", "zed"])
def test_no_deferral_on_record_cannot_be_said_and_names_the_client(client: str) -> None:
    v = verdict({TOOL_SEARCH: "true"}, client=client)
    assert v.mode == "no-deferral-on-record" and v.verdict is LoadVerdict.CANNOT_BE_SAID
    text = "\n".join(deferral_block(v, 200_000))
    assert client_named(client).label in text and "an absence of a record" in text


def test_explicit_config_cannot_be_said() -> None:
    v = verdict(client="explicit")
    assert v.mode == "client-unknown" and v.verdict is LoadVerdict.CANNOT_BE_SAID


# --------------------------------------------------------------------- reading settings files


def test_settings_paths_per_platform() -> None:
    linux = settings_paths(home="/home/u", cwd="/w", platform="linux", environ={})
    assert linux == [
        ("managed", "/etc/claude-code/managed-settings.json"),
        ("project-local", "/w/.claude/settings.local.json"),
        ("project", "/w/.claude/settings.json"),
        ("user", "/home/u/.claude/settings.json"),
    ]
    mac = settings_paths(home="/Users/u", cwd="/w", platform="darwin", environ={})
    assert mac[0][1] == "/Library/Application Support/ClaudeCode/managed-settings.json"
    win = settings_paths(
        home="C:\\Users\\u", cwd="C:\\w", platform="win32", environ={"ProgramData": "D:\\PD"}
    )
    assert win[0][1] == "D:\\PD\\ClaudeCode\\managed-settings.json"


def test_settings_read_from_a_temporary_home(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "proj"
    (cwd / ".claude").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True)
    (cwd / ".claude" / "settings.local.json").write_text(
        '{"env": {"ENABLE_TOOL_SEARCH": "auto:15"}}'
    )
    (home / ".claude" / "settings.json").write_text('{"env": {"ENABLE_TOOL_SEARCH": "true"}}')
    (cwd / ".claude" / "settings.json").write_bytes(b"\xff\xfe not json")

    def read(path: str) -> bytes | None:
        p = Path(path)
        return p.read_bytes() if p.exists() else None

    paths = settings_paths(home=str(home), cwd=str(cwd), platform="linux", environ={})
    paths[0] = ("managed", str(tmp_path / "managed-settings.json"))  # not /etc on the test host
    files = [SettingsFile(layer=layer, path=path) for layer, path in paths]
    sources = deferral_sources(read_settings(files, read))
    assert [s.state for s in sources] == ["absent", "read", "unreadable", "read"]
    assert verdict(settings=list(sources)).mode == "setting-unresolved"
    (cwd / ".claude" / "settings.json").unlink()
    sources = deferral_sources(read_settings(files, read))
    v = verdict(settings=list(sources))
    assert v.mode == "threshold" and v.threshold_share == pytest.approx(0.15)
    text = "\n".join(deferral_block(v, 200_000))
    assert "settings.local.json" in text and "this shell" in text
