"""The Action masks the secrets a config reaches, never the words it spells out."""

from __future__ import annotations

import json

from mcpcost.action.measure_sides import runner_masks
from mcpcost.configs.clients import ParseContext
from mcpcost.configs.discovery import parse_project_config
from mcpcost.core.spec import ServerSpec

SECRET = "s3cr3t-value-1f9a"
FILE_SECRET = "from-the-env-file-77c1"


def specs(env_file_text: str | None = None) -> list[ServerSpec]:
    ctx = ParseContext(
        environ={"MY_SECRET": SECRET},
        home="/home/u",
        cwd="/w",
        platform="linux",
        read_text=(lambda _path: env_file_text or ""),
    )
    server = {
        "command": "srv",
        "args": ["--mode", "FAIL"],
        "env": {"LEVEL": "error", "KEY": "${env:MY_SECRET}"},
        "envFile": "/w/.env",
    }
    text = json.dumps({"mcpServers": {"a": server}})
    cf = parse_project_config(".cursor/mcp.json", text, ctx)
    return [e.spec for e in cf.entries if e.spec is not None]


def test_literal_config_values_are_not_masked_but_referenced_ones_are() -> None:
    lines = runner_masks(specs(f"FROM_FILE={FILE_SECRET}\n"))
    assert f"::add-mask::{SECRET}" in lines
    assert f"::add-mask::{FILE_SECRET}" in lines
    assert not any(line.endswith(("::FAIL", "::error", "::srv")) for line in lines), lines
