"""Rules of the model APIs and of MCP itself that several clients share: the projections onto
each API's tool shape, and MCP Apps' app-only tools. A client's module names the ones that apply
to it (with its own provenance where the client, not the API, is the source)."""

from __future__ import annotations

import re

from mcpcost.configs.clients.presentation import (
    ApiShape,
    Confidence,
    HiddenTools,
    Projection,
    Provenance,
)

CHECKED = "2026-12-02"  # the day the sources below marked with it were read

ANTHROPIC_TOOL_DOCS = (
    "https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use"
)


def anthropic_projection(provenance: Provenance) -> Projection:
    """``{name, description, input_schema}``: the Messages API's client tool."""
    return Projection(shape=ApiShape.ANTHROPIC, schema_key="input_schema", provenance=provenance)


def openai_function_projection(provenance: Provenance, *, strict: bool | None = None) -> Projection:
    """``{type: "function", name, description, [strict,] parameters}``: a Responses API
    function tool (``strict``: the value the client always sends, None: it sends none)."""
    adds = (("strict", strict),) if strict is not None else ()
    return Projection(
        shape=ApiShape.OPENAI_FUNCTION, schema_key="parameters", provenance=provenance, adds=adds
    )


def gemini_json_schema_projection(provenance: Provenance, *, note: str = "") -> Projection:
    """``{name, description, parametersJsonSchema}``: a Gemini function declaration whose
    parameters are given as JSON Schema (not the OpenAPI-subset ``parameters`` field)."""
    return Projection(
        shape=ApiShape.GEMINI, schema_key="parametersJsonSchema", provenance=provenance, note=note
    )


MCP_APPS = Provenance(
    source="https://github.com/modelcontextprotocol/ext-apps (specification 2026-01-26)",
    date="2026-01-26",
    confidence=Confidence.DOCUMENTED,
)


def app_only_hidden(provenance: Provenance = MCP_APPS) -> HiddenTools:
    return HiddenTools(
        rule=(
            'an MCP Apps host keeps tools whose _meta.ui.visibility leaves out "model" from '
            "the model (they serve the app's UI)"
        ),
        provenance=provenance,
    )


_NOT_WORD = re.compile(r"[^A-Za-z0-9_]")
_NOT_WORD_OR_DASH = re.compile(r"[^A-Za-z0-9_-]")


def underscore_all_but_word(text: str) -> str:
    """Every character outside A-Z a-z 0-9 _ replaced by ``_``."""
    return _NOT_WORD.sub("_", text) or "_"


def underscore_all_but_word_or_dash(text: str) -> str:
    """Every character outside A-Z a-z 0-9 _ - replaced by ``_``."""
    return _NOT_WORD_OR_DASH.sub("_", text) or "_"
