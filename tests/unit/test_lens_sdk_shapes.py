"""The lens's projections are what the vendors' own Python SDKs accept as request tool types:
Anthropic's ``ToolParam``, OpenAI's Responses ``FunctionToolParam`` and Google's
``types.FunctionDeclaration`` / ``types.Tool`` (pydantic validation), built from the projected
definitions of a capture with every MCP field a projection has to drop."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter

from mcpcost.audit.deferral import load_inputs
from mcpcost.audit.lens import LensServer, lens
from mcpcost.configs.clients.presentation import ApiShape
from mcpcost.configs.clients.registry import CLIENTS, presentation_of
from tests.helpers.audit_builders import tools as builder_tools
from tests.helpers.lens_fixtures import limits_tools


def capture() -> tuple[dict[str, Any], ...]:
    # the limit fixtures (outputSchema, annotations, title, _meta, $ref/anyOf) and plain tools
    return (*limits_tools(), *builder_tools("b", 3))


def definitions(client: str) -> list[dict[str, Any]]:
    verdict = load_inputs(
        unmeasured=[],
        client=client,
        sources=[],
        servers=[],
        context_window=200_000,
        shell_environ={"ENABLE_TOOL_SEARCH": "false"},
        settings=(),
    )
    view = lens([LensServer(name="srv", tools=capture())], presentation_of(client), verdict)
    assert view.tools
    return [t.definition for t in view.tools]


def clients_with(shape: ApiShape) -> list[str]:
    found = [
        c.name
        for c in CLIENTS
        if c.presentation.projection is not None and c.presentation.projection.shape is shape
    ]
    assert found, f"no client projects onto {shape}"
    return found


@pytest.mark.parametrize("client", clients_with(ApiShape.ANTHROPIC))
def test_anthropic_projection_is_a_tool_param(client: str) -> None:
    from anthropic.types import ToolParam, ToolUnionParam

    adapter = TypeAdapter(ToolParam)
    union = TypeAdapter(ToolUnionParam)
    allowed = set(ToolParam.__annotations__)
    for d in definitions(client):
        assert set(d) <= allowed, set(d) - allowed
        adapter.validate_python(d, strict=True)
        union.validate_python(d)  # what messages.create(tools=[...]) takes
        assert "outputSchema" not in d and "annotations" not in d and "_meta" not in d


@pytest.mark.parametrize("client", clients_with(ApiShape.OPENAI_FUNCTION))
def test_openai_projection_is_a_responses_function_tool(client: str) -> None:
    from openai.types.responses import FunctionTool, FunctionToolParam

    adapter = TypeAdapter(FunctionToolParam)
    allowed = set(FunctionToolParam.__annotations__)
    for d in definitions(client):
        assert set(d) <= allowed, set(d) - allowed
        adapter.validate_python(d, strict=True)
        assert FunctionTool.model_validate(d).type == "function"


@pytest.mark.parametrize("client", clients_with(ApiShape.GEMINI))
def test_gemini_projection_is_a_function_declaration(client: str) -> None:
    types = pytest.importorskip("google.genai.types", reason="google-genai (the test extra)")
    declarations = [types.FunctionDeclaration.model_validate(d) for d in definitions(client)]
    tool = types.Tool(function_declarations=declarations)
    assert [f.name for f in tool.function_declarations or []] == [
        d["name"] for d in definitions(client)
    ]
    assert all(f.parameters_json_schema is not None for f in declarations)


def test_an_unprojected_field_is_refused_by_the_gemini_sdk() -> None:
    """The check above can fail: the SDK forbids fields a declaration does not have."""
    types = pytest.importorskip("google.genai.types", reason="google-genai (the test extra)")
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        types.FunctionDeclaration.model_validate(
            {"name": "a", "parametersJsonSchema": {}, "outputSchema": {}}
        )
