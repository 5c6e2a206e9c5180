"""``docs/CLIENTS.md``, generated from the clients' ``Presentation`` rules (pure).

``rule_rows`` lists one client's lens rules as rows (what the rule is, what the client then does,
its source, date and confidence), ``noted_rows`` the rules on record that the lens does not apply
(what its settings files do to its servers, what it is noted doing with tool names and prompts);
``clients_doc`` is the whole page, one table per client in the registry's order.
``scripts/render-clients-doc.py`` writes it, and a test fails when the file in the repository
differs from what the rules say.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from mcpcost.configs.clients.client import Client, ServerPolicy, SettingsEnv
from mcpcost.configs.clients.presentation import (
    DeferralRegime,
    HiddenTools,
    ModelName,
    NameLimit,
    NamePattern,
    NotedRule,
    Presentation,
    Projection,
    Provenance,
    SchemaRule,
    TextLimit,
    ToolCountLimit,
    ToolFilter,
    Trigger,
)
from mcpcost.configs.clients.registry import CLIENTS
from mcpcost.core.jsonvalue import stringify
from mcpcost.escaping.markdown import md_text

Rule = (
    ModelName
    | NameLimit
    | NamePattern
    | Projection
    | TextLimit
    | ToolCountLimit
    | SchemaRule
    | HiddenTools
    | DeferralRegime
    | ToolFilter
    | NotedRule
    | SettingsEnv
    | ServerPolicy
)


class RuleKind(StrEnum):
    """A rule's type, in the page's words (its first column)."""

    MODEL_VISIBLE_NAME = "model-visible name"
    NAME_LENGTH = "name length"
    NAME_CHARACTERS = "name characters"
    API_SHAPE = "API shape"
    DESCRIPTION_LENGTH = "description length"
    INSTRUCTIONS_LENGTH = "instructions length"
    TOOL_COUNT = "tool count"
    SCHEMA = "schema"
    HIDDEN_TOOLS = "hidden tools"
    DEFERRAL = "deferral"
    TOOL_FILTER = "tool filter"
    NOTED = "noted"  # a ``NotedRule``: its own topic is shown
    SETTINGS_ENV = "settings env"
    SERVER_POLICY = "server policy"


TEXT_LENGTH = {
    "description": RuleKind.DESCRIPTION_LENGTH,
    "instructions": RuleKind.INSTRUCTIONS_LENGTH,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class RuleRow:
    """One rule as the page shows it; ``rule`` is the value it was made from."""

    kind: RuleKind
    topic: str  # the first column: the kind's words, or a noted rule's own topic
    says: str
    then: str
    provenance: Provenance
    rule: Rule


def _row(kind: RuleKind, says: str, then: str, rule: Rule, topic: str | None = None) -> RuleRow:
    return RuleRow(
        kind=kind,
        topic=topic or str(kind),
        says=says,
        then=then,
        provenance=rule.provenance,
        rule=rule,
    )


def _deferral(r: DeferralRegime) -> str:
    when = {
        Trigger.VERDICT: "as the audit's deferral verdict for the session says",
        Trigger.ALWAYS: "always",
        Trigger.TOOL_COUNT: f"from {r.min_tools} MCP tools in the session",
        Trigger.MODEL_DEPENDENT: "with some models only (counted up front here)",
    }[r.trigger]
    keeps = ", ".join(r.keeps) if r.keeps else "nothing per tool on record"
    note = f"; {r.note}" if r.note else ""
    return f"{r.mechanism}: defers {when}; keeps {keeps}{note}"


def rule_rows(p: Presentation) -> list[RuleRow]:
    """Every lens rule of one client, in a fixed order."""
    rows: list[RuleRow] = []
    if p.name is not None:
        rows.append(
            _row(
                RuleKind.MODEL_VISIBLE_NAME,
                f"`{p.name.template}`; {p.name.rewrite}",
                "renames" + (" (colliding names made unique)" if p.name.dedupes else ""),
                p.name,
            )
        )
    for limit in p.name_limits:
        subject = "server + tool name" if limit.subject == "server-and-tool" else "name"
        when = " (deferred tools only)" if limit.deferred_only else ""
        rows.append(
            _row(
                RuleKind.NAME_LENGTH,
                f"{subject} at most {limit.max_length} characters{when}: {limit.rule}",
                limit.effect,
                limit,
            )
        )
    if p.name_pattern is not None:
        rows.append(
            _row(
                RuleKind.NAME_CHARACTERS,
                f"`{p.name_pattern.pattern}`: {p.name_pattern.rule}",
                p.name_pattern.effect,
                p.name_pattern,
            )
        )
    if p.projection is not None:
        rows.append(
            _row(
                RuleKind.API_SHAPE,
                f"{p.projection.shape}, the schema under `{p.projection.schema_key}`",
                "drops "
                + ", ".join(f"`{d}`" for d in p.projection.drops)
                + "".join(f"; adds `{k}: {stringify(v)}`" for k, v in p.projection.adds)
                + (f"; {p.projection.note}" if p.projection.note else ""),
                p.projection,
            )
        )
    for text in p.text_limits:
        rows.append(
            _row(
                TEXT_LENGTH[text.subject],
                f"at most {text.max_chars:,} characters, then `{text.marker}`",
                "cuts",
                text,
            )
        )
    for cap in p.tool_limits:
        rows.append(
            _row(
                RuleKind.TOOL_COUNT,
                f"at most {cap.max_tools} tools per {cap.scope}: {cap.rule}",
                cap.effect,
                cap,
            )
        )
    for schema in p.schema_rules:
        rows.append(
            _row(
                RuleKind.SCHEMA,
                f"{', '.join(schema.keywords)}: {schema.rule}",
                schema.effect,
                schema,
            )
        )
    if p.hidden is not None:
        rows.append(_row(RuleKind.HIDDEN_TOOLS, p.hidden.rule, "hides", p.hidden))
    if p.regime is not None:
        rows.append(_row(RuleKind.DEFERRAL, _deferral(p.regime), "defers", p.regime))
    if p.tool_filter is not None:
        rows.append(
            _row(
                RuleKind.TOOL_FILTER,
                p.tool_filter.how,
                "(the remedy names it)"
                if p.tool_filter.removes_definition
                else "(saves no tokens: the remedy does not offer it)",
                p.tool_filter,
            )
        )
    return rows


def noted_rows(c: Client) -> list[RuleRow]:
    """The rules on record about ``c`` that the lens does not apply: what its settings files do
    to the servers it starts (applied when its configs are read), then what it is noted doing."""
    rows: list[RuleRow] = []
    if c.settings_env is not None:
        env = c.settings_env
        rows.append(_row(RuleKind.SETTINGS_ENV, env.rule, "sets variables", env))
    if c.server_policy is not None:
        policy = c.server_policy
        rows.append(_row(RuleKind.SERVER_POLICY, policy.rule, "starts fewer servers", policy))
    for n in c.presentation.noted:
        rows.append(_row(RuleKind.NOTED, n.says, n.then, n, topic=n.topic))
    return rows


INTRO = """\
# What each client's model gets: the rules the client lens applies

Generated by `scripts/render-clients-doc.py` from the rules in `mcpcost/configs/clients/`
(`Presentation`, one entry per rule in each client's module); a test fails when this page and
the rules differ. The client lens (`mcpcost.audit.lens`) applies them to every client session
of `mcpcost audit` (`modelView` in `--json`) and to `mcpcost measure --client`.

These rules are models of other products' documented or reported behaviour, each with where it
comes from and when it was checked. mcpcost measures none of these products. Confidence:

- **documented**: the product's (or its API's) own documentation says so;
- **source-code**: read in the product's published source at the commit linked;
- **reported**: users report it (issues, forums) and the vendor has not confirmed it; the
  behaviour may differ by version, and the report says so beside each such finding.

A client with no table rows has nothing on record: its sessions read "no rule on record", their
up-front count is the wire number, and nothing is guessed.

Up-front tokens are the o200k_base count of `JSON.stringify` of the definitions as projected,
per server; a deferred tool counts only what its regime keeps. Where a client is on record
putting server instructions in context (an instructions length rule), they are counted too.
"""


CHECKED_NOT_RULED = """
## Checked, and not a rule

- **Schema shape** (`schema-unsupported`): no client here is on record refusing `$ref`, `anyOf`
  or a nesting depth with a number. Gemini CLI sends JSON Schema as `parametersJsonSchema`
  (its source, 2026-12-02), and the Gemini API accepts unions and references there since late
  2025 (typia's Gemini schema notes); the nesting-depth and "too many states for serving"
  refusals are reported (gemini-cli #5923, ghidra-mcp #440) with no limit to test against. The
  rule type exists (`SchemaRule`) for when one is on record.
- **Cursor's ~40 active tools**: reported long ago and not confirmed as current; no rule.
- **The OpenAI API's 128 functions per request**: on record for Chat Completions; Codex uses the
  Responses API, where it is not on record.
- **Claude Code's 128-character name**: from a wiki and an issue, so `reported`.
- **Codex's schema conversion** into its own JSON Schema type is not modelled: the schema is
  counted as the server sends it.
- **Gemini CLI's name rewriting** (the `mcp_` prefix, characters outside its set made `_`, a
  leading `_` where a name would start with something else, the middle cut past 63) is read
  from its source; a later third-party summary (Jamkris/everything-gemini-code PR #35,
  2026-04-22) says the same.
- **Zed and OpenCode** were read in the index's copies of their source at the commits named
  (both repositories are larger than a whole copy can bring here); what a newer commit does may
  differ, and the date says when it was read.

## mcpcost's own rules (not a client's)

- **A project config is held back.** A config that comes with a repository (`.mcp.json`,
  `.vscode/mcp.json`, ...) holds commands someone else wrote, so mcpcost starts its servers
  only where the client would start them unasked (Claude Code's recorded approvals, counted
  once its trust dialog was accepted for the folder); `--trust-project` starts every one. The
  report says `held back by mcpcost`: no client is claimed to have refused them.
- **A project's own Claude Code settings files** (`.claude/settings.json`,
  `.claude/settings.local.json`) count for the settings env and the server policy above only
  once the folder's trust dialog was accepted, as they do for approvals: until then a cloned
  repository could point a user's server, and the credentials in its headers, elsewhere.
"""


def clients_doc() -> str:
    """The whole of ``docs/CLIENTS.md``."""
    parts = [INTRO]
    for client in CLIENTS:
        parts.append(f"\n## {md_text(client.label)} (`{client.name}`)\n")
        rows = [*rule_rows(client.presentation), *noted_rows(client)]
        if not rows:
            parts.append("\nNo rule on record.\n")
            continue
        parts.append(
            "\n| rule | what it says | what the client does | source | date | confidence |\n"
            "|---|---|---|---|---|---|\n"
        )
        for r in rows:
            cells = (r.topic, r.says, r.then)
            shown = " | ".join(_cell(c) for c in cells)
            source = _source(r.provenance.source)
            date, confidence = r.provenance.date, r.provenance.confidence
            parts.append(f"| {shown} | {source} | {date} | {confidence} |\n")
    parts.append(CHECKED_NOT_RULED)
    return "".join(parts)


def _source(source: str) -> str:
    """A source: its URL (our own constant) as a link, what follows it as text."""
    if not source.startswith("https://"):
        return _cell(source)
    url, _, rest = source.partition(" ")
    return f"<{url}>" + (" " + _cell(rest) if rest else "")


def _cell(text: str) -> str:
    """Our own rule text for a table cell: inline code kept, the rest escaped."""
    pieces = text.split("`")
    out = []
    for i, piece in enumerate(pieces):
        if i % 2:
            out.append("`" + piece.replace("|", "\\|") + "`")
        elif piece.strip():
            lead = " " if piece[0].isspace() else ""
            trail = " " if piece[-1].isspace() else ""
            out.append(lead + md_text(piece, mentions=False) + trail)
        else:
            out.append(" " if piece else "")
    return "".join(out)
