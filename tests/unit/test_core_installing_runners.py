"""Which launches go through a package runner that installs the server on first use: the rule
that makes a measurement start its second capture only once the first has the server up."""

from __future__ import annotations

import pytest

from mcpcost.core.spec import ServerSpec, installs_on_first_use, launcher_name


@pytest.mark.parametrize(
    "argv",
    [
        ["npx", "-y", "@scope/server@1.2.3"],
        ["/usr/local/bin/npx", "-y", "pkg@1"],
        ["C:\\Program Files\\nodejs\\npx.cmd", "-y", "pkg@1"],
        ["uvx", "mcp-server-time==0.6.2"],
        ["pnpx", "pkg"],
        ["bunx", "pkg"],
        ["pnpm", "dlx", "pkg"],
        ["pnpm", "--silent", "dlx", "pkg"],
        ["yarn", "dlx", "pkg"],
        ["npm", "exec", "--yes", "pkg"],
        ["bun", "x", "pkg"],
        ["pipx", "run", "pkg"],
        ["uv", "tool", "run", "pkg"],
    ],
)
def test_runners_that_install_on_first_use(argv: list[str]) -> None:
    assert installs_on_first_use(argv)
    assert ServerSpec.stdio("s", argv).installs_on_first_use


@pytest.mark.parametrize(
    "argv",
    [
        ["node", "server.js"],
        ["python3", "-m", "server"],
        ["sh", "-lc", "npx -y pkg"],  # a shell is not the launcher; callers pass the real argv
        ["pnpm", "run", "serve"],
        ["yarn", "start"],
        ["npm", "start"],
        ["uv", "run", "server.py"],
        ["docker", "run", "-i", "--rm", "image"],
        ["my-npx-wrapper"],
    ],
)
def test_plain_commands_do_not(argv: list[str]) -> None:
    assert not installs_on_first_use(argv)


def test_remote_servers_do_not() -> None:
    assert not ServerSpec.remote("r", "https://example.com/npx").installs_on_first_use


def test_launcher_name() -> None:
    assert launcher_name(["/opt/bin/UVX.EXE"]) == "uvx"
    assert launcher_name([]) == ""
