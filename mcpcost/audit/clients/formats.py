"""The three text formats client configs are written in (JSONC, TOML, YAML), read into values
plus the line of each key, and the checks every parser makes on the top-level object."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

import yaml

from mcpcost.audit.jsonc import KeyPath, key_lines_clean, strip_jsonc
from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.suggest import slip_among
from mcpcost.errors import ConfigError, JSONSyntaxError


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


def load_jsonc(text: str) -> tuple[Any, dict[KeyPath, int]]:
    clean = " " + text[1:] if text.startswith("\ufeff") else text
    try:
        data = parse_json(clean)  # plain JSON (most files, and big ~/.claude.json): no stripping
    except JSONSyntaxError:
        try:
            clean = strip_jsonc(clean)
            data = parse_json(clean)
        except JSONSyntaxError as exc:
            raise UnusableConfig(f"not valid JSON: {exc}") from None
    return data, key_lines_clean(clean)


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
    return data, _toml_lines(text, data)


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


def load_yaml(text: str) -> tuple[Any, dict[KeyPath, int]]:
    try:
        data = yaml.safe_load(text)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:  # the message may quote the line: build our own
        raise UnusableConfig(_yaml_error(exc)) from None
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


def sniff(text: str) -> tuple[FileFormat, Any, dict[KeyPath, int]]:
    """A file of unknown format read by its content: JSON, else TOML, else YAML."""
    body = text.lstrip("\ufeff \t\r\n")
    if body.startswith(("{", "[", "//", "/*")):
        data, lines = load_jsonc(text)
        return FileFormat.JSON, data, lines
    try:
        data, lines = load_toml(text)
        if isinstance(data, dict) and data:
            return FileFormat.TOML, data, lines
    except UnusableConfig:
        pass
    try:
        data, lines = load_yaml(text)
    except UnusableConfig as exc:
        raise UnusableConfig(f"not JSON, TOML or YAML ({exc})") from None
    return FileFormat.YAML, data, lines
