"""The client lens: what one client session's model gets, from the session's measured tools
and the client's ``Presentation`` rules. Pure: values in, a ``ModelView`` out.

Order of the rules, per tool: app-only tools are hidden (``HiddenTools``); the client's name is
built (``ModelName``) and its length and character rules applied (``NameLimit``,
``NamePattern``); the description is cut (``TextLimit``); the schema is checked
(``SchemaRule``); the definition is projected onto the client's API shape (``Projection``;
without one, the wire definition with the model's name and description). Per session: names
that collide, the tool count (``ToolCountLimit``), and the session's load verdict
(``audit.deferral.decide``, the one place it is made: every deferral regime is evaluated there).

Counting: per server, the o200k_base count of ``JSON.stringify`` of the list of definitions the
model gets up front (a deferred tool contributes only what its regime keeps: its name, or its
name and description), plus, where the client is on record putting a server's instructions in
context (an instructions ``TextLimit``), the count of the (cut) instructions. ``deferred_tokens``
is the same count of the full definitions kept back. With no rule changing anything, a server's
up-front count is its wire number.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcpcost.audit.deferral import LoadInputs, decide
from mcpcost.audit.model_view import LensFinding, ModelTool, ModelView, ServerLoad
from mcpcost.configs.clients.presentation import (
    ApiShape,
    Confidence,
    Effect,
    FindingKind,
    Kept,
    LoadVerdict,
    ModelName,
    Presentation,
    Projection,
    Provenance,
    TextLimit,
)
from mcpcost.core.jsonvalue import JSONValue, stringify
from mcpcost.core.tokenizer import count_tokens
from mcpcost.escaping.terminal import has_invisible, terminal_line

__all__ = ["LensServer", "lens", "project", "schema_keywords"]


@dataclass(frozen=True, slots=True, kw_only=True)
class LensServer:
    """One measured server of a session: its name in the config, its ``tools/list`` tools as
    captured, its instructions (None: none sent or not captured) and ``alwaysLoad``."""

    name: str
    tools: tuple[JSONValue, ...]
    instructions: str | None = None
    always_load: bool = False
    wire_tokens: int | None = None  # the count of exactly ``tools`` (the measurement's number)
    # a measured server whose capture was withheld (it repeated a secret): its wire number,
    # counted where the regime puts its tools, since no rule can be checked on tools unseen
    unseen_tokens: int | None = None
    measured_tokens: int | None = None  # the measurement's wire number (the server's, whole)

    @property
    def wire(self) -> int:
        """The server's wire number, as measured."""
        for n in (self.measured_tokens, self.wire_tokens, self.unseen_tokens):
            if n is not None:
                return n
        return 0


def project(
    tool: Mapping[str, Any], name: str, description: str | None, projection: Projection | None
) -> dict[str, Any]:
    """One tool's definition as the model gets it. No projection on record: the wire definition
    with the model's name and description."""
    if projection is None:
        out = dict(tool)
        out["name"] = name
        if description is not None:
            out["description"] = description
        return out
    out = {"type": "function"} if projection.shape is ApiShape.OPENAI_FUNCTION else {}
    out["name"] = name
    if description is not None:
        out["description"] = description
    out.update(projection.adds)
    schema = tool.get("inputSchema")
    if schema is not None:
        out[projection.schema_key] = schema
    return out


def schema_keywords(schema: JSONValue, keywords: Sequence[str]) -> list[str]:
    """The ``keywords`` used as keys anywhere in ``schema`` (sorted, once each). Keys under
    ``properties`` (and ``$defs``/``definitions``) are names, not keywords, and are skipped."""
    wanted = set(keywords)
    found: set[str] = set()
    stack: list[tuple[JSONValue, bool]] = [(schema, False)]
    while stack:
        value, names = stack.pop()
        if isinstance(value, dict):
            for key, child in value.items():
                if not names and key in wanted:
                    found.add(key)
                is_map = not names and key in (
                    "properties",
                    "$defs",
                    "definitions",
                    "patternProperties",
                )
                stack.append((child, is_map))
        elif isinstance(value, list):
            stack.extend((v, False) for v in value)
    return sorted(found)


def _app_only(tool: Mapping[str, Any]) -> bool:
    """MCP Apps: ``_meta.ui.visibility`` lists who sees the tool; without ``"model"`` it is the
    app's alone."""
    meta = tool.get("_meta")
    ui = meta.get("ui") if isinstance(meta, dict) else None
    seen_by = ui.get("visibility") if isinstance(ui, dict) else None
    return isinstance(seen_by, list) and "model" not in seen_by


def _cut(text: str, limit: TextLimit) -> str:
    return text if len(text) <= limit.max_chars else text[: limit.max_chars] + limit.marker


def _finding(
    kind: FindingKind,
    effect: Effect,
    server: str | None,
    tool: str | None,
    limit: int | str | None,
    actual: int | str | None,
    rule: str,
    fix: str,
    provenance: Provenance,
) -> LensFinding:
    return LensFinding(
        kind=kind,
        effect=effect,
        server=server,
        tool=tool,
        limit=limit,
        actual=actual,
        rule=rule,
        fix=fix,
        source=provenance.source,
        date=provenance.date,
        confidence=provenance.confidence,
    )


def _renamed(server: str, pairs: Sequence[tuple[str, str]], rule: ModelName) -> LensFinding:
    """One finding per server whose names the client's character rewriting changes (no loss:
    the client maps them back), with the first as an example; ``tool`` set when it is one."""
    first_tool, first_name = pairs[0]
    more = f" ({len(pairs)} tools; e.g. {first_tool!r} -> {first_name!r})" if len(pairs) > 1 else ""
    return _finding(
        FindingKind.NAME_INVALID,
        Effect.RENAMES,
        server,
        first_tool if len(pairs) == 1 else None,
        rule.template,
        first_name if len(pairs) == 1 else len(pairs),
        f"{rule.rewrite}{more}",
        "none needed; to keep the names as written, use only letters, digits, '_' and '-' in "
        "the server and tool names",
        rule.provenance,
    )


# Unicode's own definition of the characters a renderer shows as nothing (UAX #44), the same the
# terminal, Markdown and HTML boundaries escape: a property of the name, whatever the client.
INVISIBLE_SOURCE = Provenance(
    source="https://www.unicode.org/reports/tr44/#Default_Ignorable_Code_Point",
    date="2026-12-05",
    confidence=Confidence.DOCUMENTED,
)


def _invisible(server: str, tool: str) -> LensFinding:
    """A tool name that holds characters a person does not see (its escaped form as ``actual``)."""
    return _finding(
        FindingKind.NAME_INVISIBLE,
        Effect.DISGUISES,
        server,
        tool,
        "no zero-width, tag, default-ignorable or bidi characters",
        terminal_line(tool),
        "the name holds characters that display as nothing or reorder text: a person reading it "
        "sees another name than the one the client and its model use",
        "rename the tool with visible characters only; do not approve it as the name it looks like",
        INVISIBLE_SOURCE,
    )


def _stub(definition: Mapping[str, Any], keeps: Sequence[Kept]) -> dict[str, Any] | None:
    """What a deferred tool leaves in context (None: nothing per tool)."""
    out: dict[str, Any] = {}
    if Kept.NAMES in keeps:
        out["name"] = definition["name"]
    if Kept.DESCRIPTIONS in keeps and "description" in definition:
        out["description"] = definition["description"]
    return out or None


def _count(values: Sequence[JSONValue], server: LensServer) -> int:
    """The o200k_base count of ``JSON.stringify(values)``; the server's own number when the
    values are its tools unchanged (most clients change nothing: no need to count again)."""
    if not values:
        return 0
    if server.wire_tokens is not None and list(values) == list(server.tools):
        return server.wire_tokens
    return count_tokens(stringify(list(values)))


def lens(
    servers: Sequence[LensServer],
    presentation: Presentation,
    inputs: LoadInputs,
) -> ModelView:
    """What the session's model gets under ``presentation`` (see the module's docstring)."""
    p = presentation
    shape = p.projection.shape if p.projection is not None else None
    desc_limit = next((t for t in p.text_limits if t.subject == "description"), None)
    instr_limit = next((t for t in p.text_limits if t.subject == "instructions"), None)
    pattern = re.compile(p.name_pattern.pattern) if p.name_pattern is not None else None
    findings: list[LensFinding] = []

    visible: list[tuple[LensServer, dict[str, Any]]] = []
    for server in servers:
        for tool in server.tools:
            if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
                continue
            if p.hidden is not None and _app_only(tool):
                findings.append(
                    _finding(
                        FindingKind.HIDDEN_FROM_MODEL,
                        Effect.HIDES,
                        server.name,
                        tool["name"],
                        'visibility includes "model"',
                        "app only",
                        p.hidden.rule,
                        "none needed: the tool is meant for the app, not the model",
                        p.hidden.provenance,
                    )
                )
                continue
            visible.append((server, tool))
    loading = decide(inputs, p, len(visible))
    deferring = loading.verdict is LoadVerdict.DEFERRED

    kept: list[ModelTool] = []
    renamed: dict[str, list[tuple[str, str]]] = {}  # server -> (tool, model name) rewritten
    for server, tool in visible:
        tool_name: str = tool["name"]
        deferred = deferring and not server.always_load
        name = tool_name
        dropped = False
        if has_invisible(tool_name):
            findings.append(_invisible(server.name, tool_name))
        if p.name is not None:
            name = p.name.build(server.name, tool_name)
            plain = p.name.template.format(server=server.name, tool=tool_name)
            if name != plain:
                renamed.setdefault(server.name, []).append((tool_name, name))
        for limit in p.name_limits:
            if limit.deferred_only and not deferred:
                continue
            length = (
                len(name) if limit.subject == "model-name" else len(server.name) + len(tool_name)
            )
            if length <= limit.max_length:
                continue
            if limit.effect is Effect.RENAMES and limit.shorten is not None:
                name = limit.shorten(name)
            if limit.effect is Effect.DROPS:
                dropped = True
            findings.append(
                _finding(
                    FindingKind.NAME_TOO_LONG,
                    limit.effect,
                    server.name,
                    tool_name,
                    limit.max_length,
                    length,
                    limit.rule,
                    limit.fix,
                    limit.provenance,
                )
            )
        if (
            not dropped
            and p.name_pattern is not None
            and pattern is not None
            and not pattern.fullmatch(name)
        ):
            if p.name_pattern.effect is Effect.DROPS:
                dropped = True
            findings.append(
                _finding(
                    FindingKind.NAME_INVALID,
                    p.name_pattern.effect,
                    server.name,
                    tool_name,
                    p.name_pattern.pattern,
                    name,
                    p.name_pattern.rule,
                    p.name_pattern.fix,
                    p.name_pattern.provenance,
                )
            )
        raw_desc = tool.get("description")
        description = raw_desc if isinstance(raw_desc, str) else None
        if description is not None and desc_limit is not None:
            cut = _cut(description, desc_limit)
            if cut != description:
                findings.append(
                    _finding(
                        FindingKind.DESCRIPTION_TRUNCATED,
                        Effect.CUTS,
                        server.name,
                        tool_name,
                        desc_limit.max_chars,
                        len(description),
                        f"tool descriptions are cut at {desc_limit.max_chars:,} characters",
                        "trim the description: put what the model needs first, move reference "
                        "material to a resource",
                        desc_limit.provenance,
                    )
                )
            description = cut
        for rule in p.schema_rules:
            used = schema_keywords(tool.get("inputSchema"), rule.keywords)
            if used:
                findings.append(
                    _finding(
                        FindingKind.SCHEMA_UNSUPPORTED,
                        rule.effect,
                        server.name,
                        tool_name,
                        ", ".join(rule.keywords),
                        ", ".join(used),
                        rule.rule,
                        rule.fix,
                        rule.provenance,
                    )
                )
        if dropped:
            continue
        kept.append(
            ModelTool(
                server=server.name,
                tool=tool_name,
                model_name=name,
                deferred=deferred,
                definition=project(tool, name, description, p.projection),
            )
        )

    if p.name is not None:
        for server_name, pairs in renamed.items():
            findings.append(_renamed(server_name, pairs, p.name))

    if p.name is not None and not p.name.dedupes:
        first: dict[str, ModelTool] = {}
        for t in kept:
            earlier = first.setdefault(t.model_name, t)
            if earlier is not t and earlier.server != t.server:
                findings.append(
                    _finding(
                        FindingKind.NAME_COLLISION,
                        Effect.DROPS,
                        t.server,
                        t.tool,
                        1,
                        f"{earlier.server}, {t.server}",
                        f"two tools end up named {t.model_name!r}: the model can reach only one",
                        "rename one of the two servers in the config",
                        p.name.provenance,
                    )
                )

    for cap in p.tool_limits:
        if len(kept) > cap.max_tools:
            fix = cap.fix
            if p.tool_filter is not None and p.tool_filter.removes_definition:
                fix = f"{fix}; or switch single tools off ({p.tool_filter.how})"
            findings.append(
                _finding(
                    FindingKind.TOO_MANY_TOOLS,
                    cap.effect,
                    None,
                    None,
                    cap.max_tools,
                    len(kept),
                    cap.rule,
                    fix,
                    cap.provenance,
                )
            )

    keeps = p.regime.keeps if p.regime is not None else ()
    loads: list[ServerLoad] = []
    for server in servers:
        mine = [t for t in kept if t.server == server.name]
        up: list[JSONValue] = []
        back: list[JSONValue] = []
        for t in mine:
            if t.deferred:
                back.append(t.definition)
                stub = _stub(t.definition, keeps)
                if stub is not None:
                    up.append(stub)
            else:
                up.append(t.definition)
        upfront = _count(up, server)
        deferred_total = _count(back, server)
        if server.unseen_tokens is not None and not server.tools:
            if deferring and not server.always_load:
                deferred_total += server.unseen_tokens
            else:
                upfront += server.unseen_tokens
        if instr_limit is not None and server.instructions:
            cut = _cut(server.instructions, instr_limit)
            upfront += count_tokens(cut)
            if cut != server.instructions:
                findings.append(
                    _finding(
                        FindingKind.INSTRUCTIONS_TRUNCATED,
                        Effect.CUTS,
                        server.name,
                        None,
                        instr_limit.max_chars,
                        len(server.instructions),
                        f"server instructions are cut at {instr_limit.max_chars:,} characters",
                        "trim the server's instructions: say first when the model should use "
                        "the server",
                        instr_limit.provenance,
                    )
                )
        loads.append(
            ServerLoad(
                name=server.name,
                upfront_tokens=upfront,
                deferred_tokens=deferred_total,
                wire_tokens=server.wire,
                always_load=server.always_load,
            )
        )

    findings.sort(key=lambda f: (f.server or "", f.tool or "", f.kind, f.rule))
    return ModelView(
        api_shape=shape,
        loading=loading,
        upfront_tokens=sum(x.upfront_tokens for x in loads),
        deferred_tokens=sum(x.deferred_tokens for x in loads),
        wire_tokens=sum(x.wire_tokens for x in loads),
        servers=tuple(loads),
        unmeasured=inputs.unmeasured,
        findings=tuple(findings),
        rules_on_record=p.on_record,
        tools=tuple(kept),
    )
