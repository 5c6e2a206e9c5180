"""``servers.yaml``: the catalog of servers a sweep measures, validated with line numbers.

Schema (reference fields, camelCase): ``name`` (slug, required), ``command`` (launch line;
required unless ``url`` is given), ``package``, ``env`` (names of variables given dummy values),
``envValues`` (name -> placeholder replacing ``dummy``), ``metric`` (``{value, unit}``; a bare
number is legacy input whose unit comes from ``metricSource``: see ``sweep/metric.py``),
``metricSource``,
``category``, ``repo``, ``remote`` (true = OAuth-walled remote: listed, never measured),
``dockerImage``, ``timeoutSeconds``, ``needsGit``; and ours: ``transport`` + ``url`` for remote
servers measured over HTTP/SSE, and ``version``, a pin that must appear in the command.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from mcpcost.core.names import name_key, name_problem
from mcpcost.core.redact import DUMMY_VALUE
from mcpcost.core.spec import REMOTE_TRANSPORTS, ServerSpec, TransportName
from mcpcost.core.suggest import did_you_mean
from mcpcost.errors import InputError
from mcpcost.sweep.metric import Metric, parse_metric

CATEGORIES = ("official-reference", "vendor-official", "community", "registry")
ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
KNOWN_KEYS = (
    "name",
    "command",
    "package",
    "env",
    "envValues",
    "metric",
    "metricSource",
    "category",
    "repo",
    "remote",
    "dockerImage",
    "timeoutSeconds",
    "needsGit",
    "transport",
    "url",
    "version",
)


class CatalogError(InputError):
    """A servers.yaml that cannot be used; ``problems`` holds every ``file:line: message``."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = tuple(problems)
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(problems[0] + more)


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogEntry:
    """One server of the catalog."""

    name: str
    command: str
    package: str | None = None
    env: tuple[str, ...] = ()
    env_values: Mapping[str, str] = field(default_factory=dict)
    metric: Metric | None = None
    metric_source: str | None = None
    category: str | None = None
    repo: str | None = None
    remote: bool = False
    docker_image: str | None = None
    timeout_seconds: float | None = None
    needs_git: bool = False
    transport: TransportName | None = None
    url: str | None = None
    version: str | None = None
    registry_name: str | None = None  # the registry entry's name, for entries a registry lists
    # what the registry says of that entry (status, statusMessage, statusChangedAt,
    # postInstallInstructions): registryEntry's other keys
    registry_details: Mapping[str, Any] = field(default_factory=dict)
    line: int = 0

    @property
    def sweepable(self) -> bool:
        """``remote: true`` entries are OAuth-walled: listed on the leaderboard, never swept."""
        return not self.remote

    @property
    def argv(self) -> tuple[str, ...]:
        return tuple(shlex.split(self.command)) if self.url is None else ()

    @property
    def is_self_docker(self) -> bool:
        """A command that is itself a ``docker run``: run on the host as written."""
        argv = self.argv
        return len(argv) >= 2 and argv[0] == "docker" and argv[1] == "run"

    def dummy_env(self) -> dict[str, str]:
        """``NAME=dummy`` for each env name, unless envValues gives a placeholder."""
        return {n: self.env_values.get(n, DUMMY_VALUE) for n in self.env}

    def spec(self) -> ServerSpec:
        """How to reach the server, with the dummy environment (published values, not secrets:
        a server may repeat them and its capture is still published)."""
        if self.url is not None:
            transport = self.transport or TransportName.AUTO
            return ServerSpec.remote(self.name, self.url, transport=transport)
        env = self.dummy_env()
        return ServerSpec.stdio(
            self.name, self.argv, env=env, launch_command=self.command, public_env=tuple(env)
        )


@dataclass(frozen=True, slots=True)
class Catalog:
    """The validated list, in file order."""

    entries: tuple[CatalogEntry, ...]
    source: str = "servers.yaml"

    def names(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.entries)

    def by_name(self) -> dict[str, CatalogEntry]:
        return {e.name: e for e in self.entries}

    def only(self, names: list[str]) -> Catalog:
        """The entries named (file order kept); unknown names are a usage error."""
        known = set(self.names())
        unknown = [n for n in names if n not in known]
        if unknown:
            raise InputError(f"{self.source}: no entry named {', '.join(unknown)}")
        wanted = set(names)
        return Catalog(tuple(e for e in self.entries if e.name in wanted), self.source)


def load_catalog(text: str, source: str = "servers.yaml") -> Catalog:
    """Parse and validate catalog text; every problem is reported as ``source:line: message``."""
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "not valid YAML"
        raise CatalogError([f"{source}{line}: {problem}"]) from None
    finally:
        loader.dispose()
    if root is None:
        raise CatalogError([f"{source}:1: empty file; expected a top-level 'servers:' list"])
    servers = _top_level_servers(root, source)
    problems: list[str] = []
    entries: list[CatalogEntry] = []
    seen: dict[str, tuple[str, int]] = {}
    for index, node in enumerate(servers.value):
        entry = _entry(node, index, source, problems, loader)
        if entry is None:
            continue
        key = name_key(entry.name)
        if key in seen:
            first, first_line = seen[key]
            case = ""
            if first != entry.name:
                case = f", as {first!r}: names differing only in case share a directory on some "
                case += "file systems"
            problems.append(
                f"{source}:{entry.line}: servers[{index}] ({entry.name}): duplicate name "
                f"{entry.name!r} (first on line {first_line}{case})"
            )
            continue
        seen[key] = (entry.name, entry.line)
        entries.append(entry)
    if problems:
        raise CatalogError(problems)
    return Catalog(tuple(entries), source)


def read_catalog(path: str) -> Catalog:
    """Read and validate a catalog file."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None
    return load_catalog(text, path)


def _top_level_servers(root: yaml.Node, source: str) -> yaml.SequenceNode:
    line = root.start_mark.line + 1
    if not isinstance(root, yaml.MappingNode):
        raise CatalogError([f"{source}:{line}: expected a mapping with a 'servers:' list"])
    for key, value in root.value:
        if isinstance(key, yaml.ScalarNode) and key.value == "servers":
            if not isinstance(value, yaml.SequenceNode):
                raise CatalogError(
                    [f"{source}:{value.start_mark.line + 1}: 'servers' must be a list"]
                )
            return value
    raise CatalogError([f"{source}:{line}: missing top-level 'servers:' list"])


def _entry(
    node: yaml.Node, index: int, source: str, problems: list[str], loader: yaml.SafeLoader
) -> CatalogEntry | None:
    line = node.start_mark.line + 1
    where = f"servers[{index}]"
    if not isinstance(node, yaml.MappingNode):
        problems.append(f"{source}:{line}: {where} must be a mapping")
        return None
    values: dict[str, Any] = {}
    lines: dict[str, int] = {}
    before = len(problems)
    for key_node, value_node in node.value:
        key_line = key_node.start_mark.line + 1
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        if key not in KNOWN_KEYS:
            meant = did_you_mean(key, KNOWN_KEYS) if isinstance(key, str) else None
            hint = f" (did you mean {meant!r}?)" if meant else ""
            problems.append(f"{source}:{key_line}: {where}: unknown field {key!r}{hint}")
            continue
        try:
            values[key] = loader.construct_object(value_node, deep=True)
        except yaml.YAMLError as exc:
            problems.append(f"{source}:{key_line}: {where}.{key}: {exc}")
            continue
        lines[key] = value_node.start_mark.line + 1

    def bad(key: str, message: str) -> None:
        problems.append(f"{source}:{lines.get(key, line)}: {where}.{key} {message}")

    def opt_str(key: str) -> str | None:
        value = values.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            bad(key, "must be a non-empty string")
            return None
        return value

    def opt_bool(key: str) -> bool:
        value = values.get(key, False)
        if not isinstance(value, bool):
            bad(key, "must be true or false")
            return False
        return value

    name = values.get("name")
    if "name" not in values:
        problems.append(f"{source}:{line}: {where}: missing required field 'name'")
        name = f"#{index}"
    elif not isinstance(name, str) or name_problem(name) is not None:
        why = name_problem(name) if isinstance(name, str) else "is not a string"
        bad("name", f"{name!r} cannot name a results directory: it {why}")
        name = f"#{index}"
    where = f"servers[{index}] ({name})"
    url = opt_str("url")
    command = opt_str("command")
    remote = opt_bool("remote")
    written = opt_str("transport")
    transport = TransportName(written) if written in REMOTE_TRANSPORTS else None
    if command is None and url is None and "command" not in values:
        problems.append(f"{source}:{line}: {where}: missing required field 'command' (or 'url')")
    if url is not None:
        if not url.startswith(("http://", "https://")):
            bad("url", "must be an http(s) URL")
        if written is None:
            transport = TransportName.AUTO
    if written is not None and transport is None:
        bad("transport", f"must be one of {', '.join(REMOTE_TRANSPORTS)}")
    if written is not None and url is None and not remote:
        bad("transport", "is only meaningful with 'url'")
    if command is not None and url is None and not remote:
        try:
            if not shlex.split(command):
                bad("command", "is empty")
        except ValueError as exc:
            bad("command", f"cannot be split into arguments ({exc})")
    env_raw = values.get("env", [])
    env: list[str] = []
    if env_raw is None:
        env_raw = []
    if not isinstance(env_raw, list):
        bad("env", "must be a list of variable names")
    else:
        for item in env_raw:
            if not isinstance(item, str) or not ENV_NAME_RE.match(item):
                bad("env", f"has an invalid variable name {item!r}")
            elif item not in env:
                env.append(item)
    env_values_raw = values.get("envValues") or {}
    env_values: dict[str, str] = {}
    if not isinstance(env_values_raw, dict):
        bad("envValues", "must be a mapping of name to placeholder")
    else:
        for k, v in env_values_raw.items():
            if not isinstance(k, str) or k not in env:
                bad("envValues", f"names {k!r}, which is not in 'env'")
            elif not isinstance(v, str | int | float) or isinstance(v, bool):
                bad("envValues", f"value for {k} must be a string")
            else:
                env_values[k] = str(v)
    metric_source = opt_str("metricSource")
    metric: Metric | None = None
    if values.get("metric") is not None:
        parsed = parse_metric(values["metric"], metric_source)
        if isinstance(parsed, str):
            bad("metric", parsed)
        else:
            metric = parsed
    timeout = values.get("timeoutSeconds")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
    ):
        bad("timeoutSeconds", "must be a positive number")
        timeout = None
    category = opt_str("category")
    if category is not None and category not in CATEGORIES:
        bad("category", f"must be one of {', '.join(CATEGORIES)}")
    version = values.get("version")
    if version is not None:
        if isinstance(version, int | float) and not isinstance(version, bool):
            version = str(version)
        if not isinstance(version, str) or not version:
            bad("version", "must be a string")
            version = None
        elif command is not None and url is None and version not in command:
            bad("version", f"pin {version!r} does not appear in the command")
    package = opt_str("package")
    repo = opt_str("repo")
    docker_image = opt_str("dockerImage")
    needs_git = opt_bool("needsGit")
    if len(problems) > before:
        return None
    return CatalogEntry(
        name=str(name),
        command=command if command is not None else (url or ""),
        package=package,
        env=tuple(env),
        env_values=env_values,
        metric=metric,
        metric_source=metric_source,
        category=category,
        repo=repo,
        remote=remote,
        docker_image=docker_image,
        timeout_seconds=float(timeout) if timeout is not None else None,
        needs_git=needs_git,
        transport=transport,
        url=url,
        version=version,
        line=line,
    )
