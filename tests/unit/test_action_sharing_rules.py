"""The rules that decide whether base and head share a measurement, on values alone: repository
paths per base, which launches depend on the changed files, which need a worktree of the base, and
where moved entries are placed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcpcost.action import repo_configs
from mcpcost.action.sharing import depends_on_changes, needs_worktree, place, repo_paths
from mcpcost.core.spec import ServerSpec


def test_repo_paths_resolve_against_each_base_and_stay_inside() -> None:
    bases = ("/r/sub", "/r", "/r/run")
    assert repo_paths("x.py", bases=bases, repo_root="/r") == {"sub/x.py", "x.py", "run/x.py"}
    assert repo_paths("--config=conf/a.json", bases=("/r",), repo_root="/r") >= {"conf/a.json"}
    assert repo_paths("lib:/r/vendor", bases=("/r",), repo_root="/r") >= {"lib", "vendor"}
    assert repo_paths(".", bases=("/r",), repo_root="/r") == {""}
    assert repo_paths("/etc/passwd", bases=("/r",), repo_root="/r") == frozenset()
    assert repo_paths("../outside", bases=("/r",), repo_root="/r") == frozenset()


@pytest.mark.parametrize(
    ("spec", "changed", "depends"),
    [
        (ServerSpec.stdio("s", ["npx", "-y", "@scope/pkg@1.0.0"]), {"README.md"}, False),
        (ServerSpec.stdio("s", ["python", "server.py"]), {"server.py"}, True),
        (ServerSpec.stdio("s", ["python", "server.py"]), {"other.py"}, False),
        (ServerSpec.stdio("s", ["python", "-m", "pkg"]), {"pkg/mod.py"}, True),  # via run dir
        (ServerSpec.stdio("s", ["uvx", "--from", ".", "srv"]), {"any/file"}, True),
        (ServerSpec.stdio("s", ["node", "/r/dist/index.js"]), {"dist/index.js"}, True),
        (ServerSpec.stdio("s", ["node", "x"], env={"CFG": "conf"}), {"conf/a.json"}, True),
        (ServerSpec.stdio("s", ["node", "x"], cwd="tools"), {"tools/a"}, True),
        (ServerSpec.stdio("s", ["node", "x"]), {"tools/a"}, False),  # cwd not declared
        (ServerSpec.stdio("s", ["python", "server.py"]), set(), False),
        (ServerSpec.remote("s", "https://example.com/mcp"), {"x"}, False),
    ],
)
def test_depends_on_changes(spec: ServerSpec, changed: set[str], depends: bool) -> None:
    got = depends_on_changes(spec, config_dir="/r", run_dir="/r", repo_root="/r", changed=changed)
    assert got is depends


def test_a_launch_head_does_not_have_runs_in_the_worktree() -> None:
    text = json.dumps({"mcpServers": {"gone": {"command": "node", "args": ["x"]}}})
    base = repo_configs.parse_config(".mcp.json", text, environ={}, workspace="/r")
    assert needs_worktree(
        [base], workspace="/r", repo_root="/r", head_keys=set(), changed=set()
    ) == {(".mcp.json", "gone")}


def _vscode(server: dict[str, Any]) -> str:
    return json.dumps({"servers": {"local": {"type": "stdio", **server}}}, indent=2) + "\n"


def test_workspace_folder_path_to_a_changed_file_is_not_shared() -> None:
    text = _vscode({"command": "python", "args": ["${workspaceFolder}/server.py"]})
    base = repo_configs.parse_config(".vscode/mcp.json", text, environ={}, workspace="/r")
    spec = base.entries[0].spec
    assert spec is not None and spec.argv[-1] == "/r/server.py"
    head_keys = {repo_configs.with_cwd(base, "/r").entries[0].spec.launch_key()}  # type: ignore[union-attr]
    decide = lambda changed: needs_worktree(  # noqa: E731
        [base], workspace="/r", repo_root="/r", head_keys=head_keys, changed=changed
    )
    assert decide({"server.py"}) == {(".vscode/mcp.json", "local")}
    assert decide({"README.md"}) == frozenset()


def test_place_takes_moved_entries_from_the_worktree_parse() -> None:
    text = json.dumps(
        {
            "servers": {
                "moved": {
                    "type": "stdio",
                    "command": "python",
                    "args": ["${workspaceFolder}/a.py"],
                },
                "kept": {"type": "stdio", "command": "node", "args": ["${workspaceFolder}/b.js"]},
            }
        }
    )
    here = repo_configs.parse_config(".vscode/mcp.json", text, environ={}, workspace="/r")
    there = repo_configs.parse_config(".vscode/mcp.json", text, environ={}, workspace="/t/tree")
    placed = place(here, there, here="/r", there="/t/tree", moved={(".vscode/mcp.json", "moved")})
    specs = {e.name: e.spec for e in placed.entries}
    assert specs["moved"] is not None and specs["kept"] is not None
    assert specs["moved"].argv[-1] == "/t/tree/a.py" and specs["moved"].cwd == "/t/tree"
    assert specs["kept"].argv[-1] == "/r/b.js" and specs["kept"].cwd == "/r"
    other = repo_configs.parse_config(".vscode/mcp.json", "{}", environ={}, workspace="/t/tree")
    with pytest.raises(ValueError):
        place(here, other, here="/r", there="/t/tree", moved=set())
