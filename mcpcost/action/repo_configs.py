"""The repository's MCP configs as the Action reads them from git, and where their servers run.

The paths are every client's repository-level config files (``project_config_paths``, from the
client registry); each file is read from a git blob at a commit and parsed like a discovered
project config (``parse_config``). Servers run with their working directory in the tree of the
side they belong to (``with_cwd``): head's in the workspace; a base launch that is the same as a
head launch and names nothing the pull request changed shares head's measurement
(``mcpcost.action.sharing``), every other base launch runs in a detached worktree of the base
commit.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace

from mcpcost.action.untrusted_launches import config_environ
from mcpcost.configs.clients import ParseContext
from mcpcost.configs.config_file import ConfigFile
from mcpcost.configs.discovery import PROJECT_CONFIG_PATHS, parse_project_config
from mcpcost.core.spec import ServerSpec
from mcpcost.runtime.world_files import MAX_ENV_FILE_BYTES, Links, read_world_file


def project_config_paths() -> tuple[str, ...]:
    """The repository-level config paths of every supported client (globs allowed)."""
    return tuple(PROJECT_CONFIG_PATHS)


def parse_config(
    relative_path: str,
    text: str,
    *,
    environ: Mapping[str, str],
    workspace: str,
    tree: str | None = None,
) -> ConfigFile:
    """One config read from a git blob, parsed as a project config of its client.

    Its variable references see the step's environment without the Action's and the runner's
    own variables (``untrusted_launches.config_environ``), and an ``envFile`` is read only when it is a
    regular file inside ``tree`` (the checkout it belongs to, default ``workspace``): never
    ``/proc/self/environ`` nor a runner file.
    """
    root = tree or workspace

    def read_env_file(path: str) -> str:
        data = read_world_file(path, max_bytes=MAX_ENV_FILE_BYTES, links=Links.WITHIN, root=root)
        return data.decode("utf-8-sig")

    visible = config_environ(environ)
    context = ParseContext(
        environ=visible,
        home=visible.get("HOME", "/github/home"),
        cwd=workspace,
        project_key=workspace,
        read_text=read_env_file,
    )
    return parse_project_config(relative_path, text, context)


def with_cwd(config: ConfigFile, root: str) -> ConfigFile:
    """Every local launch of ``config`` run from ``root`` (a relative ``cwd`` resolved in it).

    An absolute ``cwd`` is kept; remote servers have none.
    """

    def moved(spec: ServerSpec | None) -> ServerSpec | None:
        if spec is None or spec.is_remote:
            return spec
        if spec.cwd is not None and os.path.isabs(spec.cwd):
            return spec
        return replace(spec, cwd=os.path.normpath(os.path.join(root, spec.cwd or ".")))

    entries = tuple(replace(e, spec=moved(e.spec)) for e in config.entries)
    return replace(config, entries=entries)
