"""Which base-side launches may reuse head's measurement (pure).

On a pull request the base side runs in a detached worktree of the base commit, so its local
launches differ from head's in working directory and would be measured twice. A base entry
shares head's measurement when, run from the workspace, its launch is the same as a head launch
(argv, env, cwd, url, headers: the launch key) and nothing it names can differ between the
commits: none of its argv, env values or declared cwd names a path inside the repository that
the pull request changed. A value names a path when, taken as written, after a ``--flag=`` prefix,
or split at ``:`` (PATH-style lists), it resolves, relative to the config's directory, the
repository root or the launch's working directory (or as an absolute path), to a changed file or
to a directory holding one. Everything else runs in the worktree, from base's files.

The decision reads the base configs as parsed against the workspace, so a path an editor
variable builds (``${workspaceFolder}/server.py``) is judged as the workspace path it expands
to. A launch that moves takes its spec from the same text parsed against the worktree instead
(``place``), so that path names base's copy there.

The check reads what the launch names, not what it imports: a server file that did not change
but loads a changed module beside it is shared unless the launch names that module's directory.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Collection, Iterator, Sequence
from dataclasses import replace

from mcpcost.action.repo_configs import with_cwd
from mcpcost.configs.config_file import ConfigEntry, ConfigFile
from mcpcost.core.spec import ServerSpec

EntryKey = tuple[str, str]  # (config source, server name)


def _pieces(value: str) -> Iterator[str]:
    """The ways ``value`` may name a path: as written, after ``--flag=``, each ``:`` part."""
    forms = {value}
    if "=" in value:
        forms.add(value.split("=", 1)[1])
    for form in list(forms):
        forms.update(form.split(":"))
    yield from (f for f in forms if f.strip())


def repo_paths(value: str, *, bases: Sequence[str], repo_root: str) -> frozenset[str]:
    """Repository-relative paths (posix, ``""`` for the root) ``value`` may name."""
    root = os.path.normpath(repo_root)
    out: set[str] = set()
    for piece in _pieces(value):
        if piece.startswith("~"):
            continue
        fulls = [piece] if os.path.isabs(piece) else [os.path.join(b, piece) for b in bases]
        for full in fulls:
            rel = os.path.relpath(os.path.normpath(full), root)
            if rel == ".":
                out.add("")
            elif rel != ".." and not rel.startswith(".." + os.sep):
                out.add(rel.replace(os.sep, "/"))
    return frozenset(out)


def touches(path: str, changed: Collection[str]) -> bool:
    """True when ``path`` is a changed file or a directory (``""`` the root) holding one."""
    return any(path == "" or c == path or c.startswith(path + "/") for c in changed)


def depends_on_changes(
    declared: ServerSpec,
    *,
    config_dir: str,
    run_dir: str,
    repo_root: str,
    changed: Collection[str],
) -> bool:
    """Whether any argv, env value or declared cwd of ``declared`` names a changed path.

    ``declared`` is the spec as the config wrote it (its ``cwd`` only when the config set one);
    ``config_dir`` and ``run_dir`` are absolute (the config's directory and where it runs).
    """
    if declared.is_remote or not changed:
        return False
    values = [*declared.argv, *(v for _, v in declared.env)]
    if declared.cwd is not None:
        values.append(declared.cwd)
    bases = (config_dir, repo_root, run_dir)
    return any(
        touches(p, changed) for v in values for p in repo_paths(v, bases=bases, repo_root=repo_root)
    )


def _placed(
    configs: Sequence[ConfigFile], workspace: str, repo_root: str
) -> Iterator[tuple[ConfigFile, str, ConfigEntry, ConfigEntry]]:
    """(config, its absolute directory, each entry as parsed, the same entry run from
    ``workspace``) for every entry of ``configs``."""
    for config in configs:
        here = with_cwd(config, workspace)
        config_dir = os.path.join(repo_root, posixpath.dirname(config.source))
        for declared, placed in zip(config.entries, here.entries, strict=True):
            yield config, config_dir, declared, placed


def touched_entries(
    configs: Sequence[ConfigFile], *, workspace: str, repo_root: str, changed: Collection[str]
) -> frozenset[EntryKey]:
    """Head entries whose launch names a file the pull request changed (the same test as
    ``depends_on_changes``): however the launch is written, what it runs may differ between the
    commits, so an unknown it leaves is never carried over as one the change did not cause.

    ``configs`` as parsed (before any ``with_cwd``). An entry with no launch to run (an unset
    variable, for one) is judged by its launch as written (``DeclaredLaunch``): a path built
    from an editor variable there is not seen.
    """
    out: set[EntryKey] = set()
    for config, config_dir, declared, placed in _placed(configs, workspace, repo_root):
        spec = declared.spec
        if spec is None and declared.declared is not None and declared.declared.command:
            written = declared.declared
            spec = ServerSpec.stdio(
                declared.name, [written.command or "", *written.args], cwd=written.cwd
            )
        if spec is None:
            continue
        run_dir = placed.spec.cwd if placed.spec is not None else None
        if depends_on_changes(
            spec,
            config_dir=config_dir,
            run_dir=run_dir or workspace,
            repo_root=repo_root,
            changed=changed,
        ):
            out.add((config.source, declared.name))
    return frozenset(out)


def needs_worktree(
    base: Sequence[ConfigFile],
    *,
    workspace: str,
    repo_root: str,
    head_keys: Collection[str],
    changed: Collection[str],
) -> frozenset[EntryKey]:
    """Base entries that must run from base's files: the rest share head's measurement.

    ``base`` holds the configs as parsed (before any ``with_cwd``), ``workspace`` is where head's
    launches run from (the repository root joined with the working directory).
    """
    out: set[EntryKey] = set()
    for config, config_dir, declared, placed in _placed(base, workspace, repo_root):
        spec = placed.spec
        if declared.spec is None or spec is None or spec.is_remote:
            continue
        same = spec.launch_key() in head_keys
        if not same or depends_on_changes(
            declared.spec,
            config_dir=config_dir,
            run_dir=spec.cwd or workspace,
            repo_root=repo_root,
            changed=changed,
        ):
            out.add((config.source, declared.name))
    return frozenset(out)


def place(
    config: ConfigFile,
    base_tree: ConfigFile,
    *,
    here: str,
    there: str,
    moved: Collection[EntryKey],
) -> ConfigFile:
    """One base config whose ``moved`` entries run from ``there``, the rest from ``here``.

    ``config`` is the base config parsed against the workspace (``here``), ``base_tree`` the
    same text parsed against the worktree (``there``): a moved entry takes the worktree parse, so
    a path built from ``${workspaceFolder}`` names base's copy, not head's. Raises
    ``ValueError`` when the two parses do not list the same entries.
    """
    names = [e.name for e in config.entries]
    if names != [e.name for e in base_tree.entries]:
        raise ValueError(
            f"{config.source}: parsing it for the base worktree gave different servers"
        )
    at_here, at_there = with_cwd(config, here), with_cwd(base_tree, there)
    entries = tuple(
        b if (config.source, a.name) in moved else a
        for a, b in zip(at_here.entries, at_there.entries, strict=True)
    )
    return replace(config, entries=entries)
