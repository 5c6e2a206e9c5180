"""The three text formats client configs are written in (JSONC, TOML, YAML), read into values
plus the line of each key, and the checks every parser makes on the top-level object.

The TOML and YAML parsers are imported by the functions that read those formats: most configs
are JSON, and an audit should not pay for parsers it does not use.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from mcpcost.configs.jsonc import KeyPath, key_lines_clean, strip_jsonc
from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.suggest import slip_among
from mcpcost.errors import ConfigError, JSONSyntaxError

if TYPE_CHECKING:
    import yaml


class FileFormat(StrEnum):
    JSON = "json"  # JSON with comments and trailing commas allowed
    STRICT_JSON = "strict-json"  # read by a client with JSON.parse: no comments, no trailing commas
    TOML = "toml"
    YAML = "yaml"


class UnusableConfig(ConfigError):
    """The file cannot be used: becomes an ERROR ConfigFile with this one-line message."""


def kind_of(value: object) -> str:
    """How a wrong-typed value is named in a problem line (never its content)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


# A config nests a few levels (file, server block, server, env); anything far deeper is hostile
# (thousands of brackets exhaust the parsers' recursion) and is refused with one line.
MAX_NESTING = 64
# A YAML file whose aliases expand past this many nodes is refused before it is built: a few
# lines of nested aliases (an "alias bomb") otherwise expand to billions of nodes.
MAX_YAML_NODES = 100_000
_TOO_DEEP = f"nested more than {MAX_NESTING} levels deep"


def nesting_depth(data: Any) -> int:
    """How deeply lists and objects nest in ``data`` (iterative: safe on any depth)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        if depth > MAX_NESTING:
            return depth
        stack.extend((child, depth) for child in children)
    return deepest


def _shallow(data: Any, what: str) -> Any:
    if nesting_depth(data) > MAX_NESTING:
        raise UnusableConfig(f"not usable {what}: {_TOO_DEEP}")
    return data


def load_jsonc(text: str) -> tuple[Any, dict[KeyPath, int]]:
    clean = " " + text[1:] if text.startswith("\ufeff") else text
    try:
        try:
            data = parse_json(clean)  # plain JSON (most files, big ~/.claude.json): no stripping
        except JSONSyntaxError:
            clean = strip_jsonc(clean)
            data = parse_json(clean)
    except JSONSyntaxError as exc:
        raise UnusableConfig(f"not valid JSON: {exc}") from None
    except RecursionError:
        raise UnusableConfig(f"not usable JSON: {_TOO_DEEP}") from None
    return _shallow(data, "JSON"), key_lines_clean(clean)


def load_strict_json(text: str) -> tuple[Any, dict[KeyPath, int]]:
    """JSON as ``JSON.parse`` reads it. A file that only a lenient reader accepts (a trailing
    comma, a comment) is unusable, and the message says so rather than reading it as fine."""
    try:
        return parse_json(text), key_lines_clean(text)
    except JSONSyntaxError as exc:
        try:
            load_jsonc(text)
        except UnusableConfig:
            raise UnusableConfig(f"not valid JSON: {exc}") from None
        raise UnusableConfig(
            f"the client reads this file as strict JSON and will reject it ({exc}): remove "
            "the trailing comma or comment there"
        ) from None


def load_toml(text: str) -> tuple[Any, dict[KeyPath, int]]:

    try:
        data = tomllib.loads(text.lstrip("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        raise UnusableConfig(f"not valid TOML: {str(exc).splitlines()[0]}") from None
    except RecursionError:
        raise UnusableConfig(f"not usable TOML: {_TOO_DEEP}") from None
    return _shallow(data, "TOML"), _toml_lines(text, data)


def _toml_lines(text: str, data: Mapping[str, Any]) -> dict[KeyPath, int]:
    """Best effort: the line of ``[mcp_servers.NAME]`` or of ``NAME = {`` in ``[mcp_servers]``."""
    out: dict[KeyPath, int] = {}
    block = data.get("mcp_servers")
    if not isinstance(block, dict):
        return out
    text_lines = text.splitlines()
    for name in block:
        quoted = re.escape(name)
        pattern = re.compile(
            r"^\s*(\[\s*mcp_servers\s*\.\s*(?:"
            + quoted
            + r"|\""
            + quoted
            + r"\"|'"
            + quoted
            + r"')\s*\]"
            r"|(?:mcp_servers\s*\.\s*)?(?:" + quoted + r"|\"" + quoted + r"\")\s*(?:\.|=))"
        )
        for number, line in enumerate(text_lines, 1):
            if pattern.match(line):
                out[("mcp_servers", name)] = number
                break
    return out


def _yaml_error(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or "cannot be parsed"
    if mark is not None:
        return f"not valid YAML: {problem} at line {mark.line + 1} column {mark.column + 1}"
    return f"not valid YAML: {problem}"


def _expanded_size(root: yaml.Node) -> tuple[int, int]:
    """(nodes, depth) of the document with every alias expanded, without expanding it: each
    distinct node is sized once (iteratively), so an alias bomb is measured in linear time."""
    size: dict[int, tuple[int, int]] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    on_path: set[int] = set()
    while stack:
        node, children_done = stack.pop()
        if id(node) in size:
            continue
        kids = _children(node)
        if not children_done:
            if id(node) in on_path:  # a recursive alias: infinite when expanded
                return MAX_YAML_NODES + 1, MAX_NESTING + 1
            on_path.add(id(node))
            stack.append((node, True))
            stack.extend((k, False) for k in kids if id(k) not in size)
            continue
        on_path.discard(id(node))
        nodes = 1 + sum(size[id(k)][0] for k in kids)
        depth = 1 + max((size[id(k)][1] for k in kids), default=0)
        size[id(node)] = (min(nodes, MAX_YAML_NODES + 1), depth)
    return size[id(root)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    import yaml

    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _compose_yaml(text: str) -> tuple[Any, yaml.Node | None]:
    """The document's value and node tree; UnusableConfig for an alias bomb or deep nesting."""
    import yaml

    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, None
        nodes, depth = _expanded_size(node)
        if nodes > MAX_YAML_NODES:
            raise UnusableConfig(
                f"not usable YAML: its aliases expand past {MAX_YAML_NODES:,} nodes"
            )
        if depth > MAX_NESTING + 1:
            raise UnusableConfig(f"not usable YAML: {_TOO_DEEP}")
        return loader.construct_document(node), node
    finally:
        loader.dispose()


def load_yaml(text: str) -> tuple[Any, dict[KeyPath, int]]:
    import yaml

    try:
        data, node = _compose_yaml(text)
    except yaml.YAMLError as exc:  # the message may quote the line: build our own
        raise UnusableConfig(_yaml_error(exc)) from None
    except RecursionError:
        raise UnusableConfig(f"not usable YAML: {_TOO_DEEP}") from None
    lines: dict[KeyPath, int] = {}

    def walk(n: yaml.Node | None, path: KeyPath) -> None:
        if isinstance(n, yaml.MappingNode):
            for key_node, value_node in n.value:
                if isinstance(key_node, yaml.ScalarNode):
                    child = (*path, str(key_node.value))
                    lines[child] = key_node.start_mark.line + 1
                    walk(value_node, child)
        elif isinstance(n, yaml.SequenceNode):
            for i, item in enumerate(n.value):
                lines[(*path, i)] = item.start_mark.line + 1
                walk(item, (*path, i))

    walk(node, ())
    return data, lines


def object_of(data: Any, what: str) -> dict[str, Any]:
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise UnusableConfig(f"{what} is {kind_of(data)}, expected an object")
    return data


def server_block(
    data: Mapping[str, Any], key: str, problems: list[str], where: str = ""
) -> dict[str, Any] | None:
    """The ``key`` server block of ``data``. A wrong-typed block is a problem line and is left
    out (None), so the rest of the file is still read and the user sees why it declares nothing."""
    value = data.get(key)
    if value is None:
        slip = slip_among([key], (k for k in data if isinstance(k, str)))
        if slip is not None:
            problems.append(
                f"{where}no {key!r} block, but {slip[0]!r} is there: did you mean {key!r}? "
                "(keys are case-sensitive; the client ignores it)"
            )
        return None
    if not isinstance(value, dict):
        problems.append(f"{where}{key} is {kind_of(value)}, expected an object (ignored)")
        return None
    return value


def load(text_format: FileFormat, text: str) -> tuple[Any, dict[KeyPath, int]]:
    """``text`` read as ``text_format``; UnusableConfig when it is not."""
    if text_format is FileFormat.TOML:
        return load_toml(text)
    if text_format is FileFormat.YAML:
        return load_yaml(text)
    if text_format is FileFormat.STRICT_JSON:
        return load_strict_json(text)
    return load_jsonc(text)


_BY_SUFFIX = {
    ".toml": FileFormat.TOML,
    ".yaml": FileFormat.YAML,
    ".yml": FileFormat.YAML,
    ".json": FileFormat.JSON,
    ".jsonc": FileFormat.JSON,
}


def sniff(text: str, source: str = "") -> tuple[FileFormat, Any, dict[KeyPath, int]]:
    """A file of unknown client read by its name's suffix (``.toml``, ``.yaml``/``.yml``,
    ``.json``/``.jsonc``), else by its content: JSON, else TOML, else YAML. A TOML file may open
    with ``[table]``, so a ``[`` that is not JSON is tried as TOML before giving up."""
    suffix = source[source.rfind(".") :].lower() if "." in source.rsplit("/", 1)[-1] else ""
    known = _BY_SUFFIX.get(suffix)
    if known is not None:
        data, lines = load(known, text)
        return known, data, lines
    body = text.lstrip("\ufeff \t\r\n")
    if body.startswith(("{", "[", "//", "/*")):
        try:
            data, lines = load_jsonc(text)
            return FileFormat.JSON, data, lines
        except UnusableConfig as json_error:
            if not body.startswith("["):
                raise
            try:
                data, lines = load_toml(text)
            except UnusableConfig:
                raise json_error from None
            return FileFormat.TOML, data, lines
    try:
        data, lines = load_toml(text)
        if isinstance(data, dict) and data:
            return FileFormat.TOML, data, lines
    except UnusableConfig as exc:
        if _TOO_DEEP in str(exc):
            raise
    try:
        data, lines = load_yaml(text)
    except UnusableConfig as exc:
        if _TOO_DEEP in str(exc) or "aliases" in str(exc):
            raise
        raise UnusableConfig(f"not JSON, TOML or YAML ({exc})") from None
    return FileFormat.YAML, data, lines
