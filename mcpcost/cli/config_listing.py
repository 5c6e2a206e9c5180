"""What `mcpcost audit --list-configs` prints (text and JSON), and the message when no config is
found: the configs discovery read, without launching anything."""

from __future__ import annotations

from typing import Any

from mcpcost.configs.config_file import ConfigFile, ConfigState
from mcpcost.configs.discovery import UNTRUSTED_PROJECT, config_listing
from mcpcost.core.jsonvalue import stringify_pretty
from mcpcost.escaping.terminal import terminal_line


def listing_text(files: list[ConfigFile]) -> str:
    if not files:
        return "no MCP config found\n"
    lines: list[str] = []
    for item in config_listing(files):
        lines.append(f"{item.client}  {item.source}  ({item.state})")
        if item.error:
            lines.append(f"  error: {item.error}")
        for s in item.servers:
            tags = []
            if s.disabled:
                tags.append("disabled")
            if s.note == UNTRUSTED_PROJECT:  # says itself that it is not launched
                tags.append(s.note)
            elif not s.launchable:
                tags.append(f"not launchable: {s.note}" if s.note else "not launchable")
            lines.append(f"  {s.name}" + (f"  [{'; '.join(tags)}]" if tags else ""))
        lines += [f"  problem: {p}" for p in item.problems]
    return "".join(terminal_line(line) + "\n" for line in lines)


def listing_json(files: list[ConfigFile]) -> str:
    data: list[dict[str, Any]] = [
        {
            "client": i.client,
            "source": i.source,
            "scope": i.scope,
            "state": i.state,
            "error": i.error,
            "problems": list(i.problems),
            "servers": [
                {
                    "name": s.name,
                    "disabled": s.disabled,
                    "launchable": s.launchable,
                    "note": s.note,
                    "line": s.line,
                }
                for s in i.servers
            ],
        }
        for i in config_listing(files)
    ]
    return stringify_pretty({"configs": data}) + "\n"


def nothing_found(files: list[ConfigFile], explicit: bool) -> str:
    if not files:
        where = (
            "in the files given" if explicit else "in the standard locations of the known clients"
        )
        return f"no MCP config found {where}; pass --config PATH to audit a file directly\n"
    lines = ["no server to audit:"]
    for f in files:
        if f.state == ConfigState.ERROR:
            lines.append(f"  {f.client}: {f.source} could not be read: {f.error}")
        elif f.entries and not f.live_entries:
            lines.append(
                f"  {f.client}: {f.source}: every one of them is switched off: "
                f"{', '.join(f.disabled_names)}"
            )
        else:
            lines.append(f"  {f.client}: {f.source} was read and declares no server")
        lines += [f"    {p}" for p in f.problems]
    return "".join(terminal_line(line) + "\n" for line in lines)
