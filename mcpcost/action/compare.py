"""Base against head, per config and per server, from configs and measurements (pure).

Configs pair by their repo-relative path; servers by name within a config. A server that has a
number on one side only is never reported as a saving or a cost: it is ``unmeasured`` or
``newly-measured`` and the config's delta is marked inexact.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from mcpcost.action.outcome import ConfigDiff, Kind, ServerRow, ToolChange
from mcpcost.audit.model import ConfigEntry, ConfigFile, ConfigState
from mcpcost.core.model import Measurement

MeasurementOf = Callable[[ConfigEntry], Measurement | None]
NOTE_LIMIT = 200


def first_line(text: str | None, limit: int = NOTE_LIMIT) -> str | None:
    if not text:
        return None
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _side(
    entry: ConfigEntry | None, m: Measurement | None
) -> tuple[int | None, str | None, str | None]:
    """(tokens, status, note) of one side of one server."""
    if entry is None:
        return None, None, None
    if entry.spec is None:
        return None, "not-launchable", first_line(entry.problem) or "cannot be launched as written"
    if m is None:
        return None, "not-yet-run", "not measured"
    if m.has_number:
        return m.total_tokens, str(m.status), None
    return None, str(m.status), first_line(m.notes) or str(m.status)


def tool_changes(
    name: str, base: Measurement | None, head: Measurement | None
) -> tuple[ToolChange, ...]:
    before = {t.name: t.tokens for t in base.tools} if base is not None and base.has_number else {}
    after = {t.name: t.tokens for t in head.tools} if head is not None and head.has_number else {}
    changes = [
        ToolChange(
            server=name, tool=tool, base_tokens=before.get(tool), head_tokens=after.get(tool)
        )
        for tool in sorted(set(before) | set(after))
        if before.get(tool) != after.get(tool)
    ]
    return tuple(sorted(changes, key=lambda t: (-abs(t.delta), t.tool)))


def compare_server(
    name: str,
    base_entry: ConfigEntry | None,
    head_entry: ConfigEntry | None,
    base_m: Measurement | None,
    head_m: Measurement | None,
) -> ServerRow:
    b_tokens, b_status, b_note = _side(base_entry, base_m)
    h_tokens, h_status, h_note = _side(head_entry, head_m)
    line = head_entry.line if head_entry is not None else None
    if head_entry is None:
        kind = Kind.REMOVED
    elif base_entry is None:
        kind = Kind.ADDED if h_tokens is not None else Kind.UNMEASURED
    elif h_tokens is None:
        kind = Kind.UNMEASURED
    elif b_tokens is None:
        kind = Kind.NEWLY_MEASURED
    else:
        kind = Kind.UNCHANGED if b_tokens == h_tokens else Kind.CHANGED
    note = h_note if h_note is not None else b_note
    tools = tool_changes(name, base_m, head_m) if kind is Kind.CHANGED else ()
    return ServerRow(
        name=name,
        kind=kind,
        base_tokens=b_tokens,
        head_tokens=h_tokens,
        base_status=b_status,
        head_status=h_status,
        note=note,
        line=line,
        tool_changes=tools,
    )


def _entries(config: ConfigFile | None) -> dict[str, ConfigEntry]:
    if config is None or config.state is not ConfigState.OK:
        return {}
    return {e.name: e for e in config.live_entries}


def _total(rows: Sequence[ServerRow], side: str, present: bool) -> int | None:
    if not present:
        return None
    return sum((getattr(r, f"{side}_tokens") or 0) for r in rows)


def compare_config(
    source: str,
    base: ConfigFile | None,
    head: ConfigFile | None,
    measurement_of: MeasurementOf,
) -> ConfigDiff:
    before, after = _entries(base), _entries(head)
    names = list(after) + [n for n in before if n not in after]
    rows = [
        compare_server(
            n,
            before.get(n),
            after.get(n),
            measurement_of(before[n]) if n in before else None,
            measurement_of(after[n]) if n in after else None,
        )
        for n in names
    ]
    rows.sort(key=lambda r: (-(abs(r.delta) if r.delta is not None else -1), r.name))
    client = (head or base).client if (head or base) is not None else "unknown"  # type: ignore[union-attr]
    problem = head.error if head is not None and head.state is ConfigState.ERROR else None
    return ConfigDiff(
        source=source,
        client=client,
        base_total=_total(rows, "base", base is not None),
        head_total=_total(rows, "head", head is not None),
        servers=tuple(rows),
        problem=problem,
    )


def compare_all(
    base: Mapping[str, ConfigFile] | None,
    head: Mapping[str, ConfigFile],
    measurement_of: MeasurementOf,
) -> tuple[ConfigDiff, ...]:
    """Every config on either side; ``base`` None means there is no base (push, schedule)."""
    sources = list(head) + [s for s in (base or {}) if s not in head]
    diffs = [compare_config(s, (base or {}).get(s), head.get(s), measurement_of) for s in sources]
    return tuple(sorted(diffs, key=lambda d: d.source))
