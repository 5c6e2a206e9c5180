"""How Claude Code presents MCP tools to its model: the name it gives them, the Anthropic
projection, the 2,048-character cuts, its name limits, tool search's regime and how a user
switches a single tool off. One entry per rule, each with its source."""

from __future__ import annotations

from mcpcost.configs.clients.api_rules import (
    ANTHROPIC_TOOL_DOCS,
    anthropic_projection,
    underscore_all_but_word_or_dash,
)
from mcpcost.configs.clients.claude_code.tool_search import DEFERRAL
from mcpcost.configs.clients.presentation import (
    Confidence,
    DeferralRegime,
    Effect,
    Kept,
    ModelName,
    NameLimit,
    NamePattern,
    NotedRule,
    Presentation,
    Provenance,
    TextLimit,
    ToolFilter,
    Trigger,
)

MCP_DOCS = "https://code.claude.com/docs/en/mcp"
TRUNCATION_MARKER = "… [truncated]"
TEXT_LIMIT = 2048

_AUTHORS = Provenance(
    source=f"{MCP_DOCS} (For MCP server authors)",
    date="2026-04-03",
    confidence=Confidence.DOCUMENTED,
)


def model_name(server: str, tool: str) -> str:
    return f"mcp__{underscore_all_but_word_or_dash(server)}__{tool}"


FIX_NAME = (
    "shorten the server's name in the config (it is part of mcp__<server>__<tool>) or ask the "
    "server's author for a shorter tool name"
)

PRESENTATION = Presentation(
    deferral=DEFERRAL,
    name=ModelName(
        template="mcp__{server}__{tool}",
        build=model_name,
        rewrite="characters outside A-Z a-z 0-9 _ - in the server's name become '_'",
        provenance=Provenance(
            source=(
                f"{MCP_DOCS} (the mcp__<server>__<tool> name); the character rewriting is "
                "reported in the xsyetopz/claudetto wiki"
            ),
            date="2026-10-19",
            confidence=Confidence.REPORTED,
        ),
    ),
    name_limits=(
        NameLimit(
            subject="model-name",
            max_length=64,
            effect=Effect.DROPS,
            deferred_only=True,
            rule=(
                "tool search loads a deferred tool by a tool_reference whose name the API caps "
                "at 64 characters: a longer mcp__<server>__<tool> name cannot be loaded"
            ),
            fix=FIX_NAME,
            provenance=Provenance(
                source="https://github.com/anthropics/claude-code/issues/19882",
                date="2026-01",
                confidence=Confidence.REPORTED,
            ),
        ),
        NameLimit(
            subject="model-name",
            max_length=128,
            effect=Effect.DROPS,
            rule="a tool whose mcp__<server>__<tool> name passes 128 characters is left out",
            fix=FIX_NAME,
            provenance=Provenance(
                source=(
                    "https://github.com/anthropics/claude-code/issues/16425 (the API's 128); "
                    "left out, per the xsyetopz/claudetto wiki"
                ),
                date="2026-10-19",
                confidence=Confidence.REPORTED,
            ),
        ),
    ),
    name_pattern=NamePattern(
        pattern=r"[a-zA-Z0-9_-]+",
        effect=Effect.REJECTS,
        rule=(
            "Claude Code passes the tool's part of the name as the server writes it, and the "
            "API refuses the request when a name has a character outside A-Z a-z 0-9 _ - (400 "
            "invalid_request_error on tools.N.custom.name; the length is the 128 rule)"
        ),
        fix="ask the server's author to use only letters, digits, '_' and '-' in tool names",
        provenance=Provenance(
            source="https://github.com/microsoft/wassette/issues/56",
            date="2025-08-03",
            confidence=Confidence.REPORTED,
        ),
    ),
    projection=anthropic_projection(
        Provenance(source=ANTHROPIC_TOOL_DOCS, date="2026-12", confidence=Confidence.DOCUMENTED)
    ),
    text_limits=(
        TextLimit(
            subject="description",
            max_chars=TEXT_LIMIT,
            marker=TRUNCATION_MARKER,
            provenance=_AUTHORS,
        ),
        TextLimit(
            subject="instructions",
            max_chars=TEXT_LIMIT,
            marker=TRUNCATION_MARKER,
            provenance=_AUTHORS,
        ),
    ),
    regime=DeferralRegime(
        mechanism=DEFERRAL.mechanism,
        trigger=Trigger.VERDICT,
        keeps=(Kept.NAMES, Kept.INSTRUCTIONS),
        provenance=DEFERRAL.provenance,
        note="the audit's deferral verdict decides; alwaysLoad servers stay up front",
    ),
    tool_filter=ToolFilter(
        how=(
            'a "deny" permission rule naming mcp__<server>__<tool> blocks its calls; the '
            "definition is reported to stay in context, and .mcp.json has no per-tool filter"
        ),
        removes_definition=False,
        provenance=Provenance(
            source="https://github.com/anthropics/claude-code/issues/30839 (and #6320, #20617)",
            date="2026-03-04",
            confidence=Confidence.REPORTED,
        ),
    ),
    noted=(
        NotedRule(
            topic="alwaysLoad",
            says=(
                'a server\'s own "alwaysLoad": true keeps its tools up front while tool search '
                "defers the rest (Claude Code 2.1.120 on); the audit counts such a server up "
                "front"
            ),
            then="loads up front",
            provenance=Provenance(
                source=f"{MCP_DOCS} (alwaysLoad; added in 2.1.120)",
                date="2026-04-28",
                confidence=Confidence.DOCUMENTED,
            ),
        ),
        NotedRule(
            topic="alwaysLoad elsewhere",
            says=(
                "the key is reported ignored in the Desktop app's Claude Code sessions and for "
                "servers a plugin provides, which are deferred like the rest; the audit reads "
                "the CLI's files and counts a pinned server up front"
            ),
            then="ignores the key",
            provenance=Provenance(
                source=(
                    "https://github.com/anthropics/claude-code/issues/86284 (Desktop app); "
                    "#56551 (plugin servers, 2026-05-06)"
                ),
                date="2026-08-13",
                confidence=Confidence.REPORTED,
            ),
        ),
        NotedRule(
            topic="tool-level alwaysLoad",
            says=(
                "a tool's own _meta[\"anthropic/alwaysLoad\"] has no effect: only the server's "
                "key pins, and the audit reads only that"
            ),
            then="ignores the key",
            provenance=Provenance(
                source="https://github.com/anthropics/claude-code/issues/82900",
                date="2026-07-31",
                confidence=Confidence.REPORTED,
            ),
        ),
        NotedRule(
            topic="disabled servers",
            says=(
                "the tool names of servers switched off stay listed for tool search (142 names, "
                "about 1,500 tokens, in the report); names only, and the audit, which launches "
                "no disabled server, does not count them"
            ),
            then="keeps names",
            provenance=Provenance(
                source="https://github.com/anthropics/claude-code/issues/41809",
                date="2026-04-01",
                confidence=Confidence.REPORTED,
            ),
        ),
    ),
)
