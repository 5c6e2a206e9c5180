"""docs/CLIENTS.md is what the rules say, and every rule in it bites: for each row of each
client's table, a capture made to cross that rule gets the finding (or the renamed, projected,
deferred definition) the rule describes."""

from __future__ import annotations

from typing import Any

import pytest

from mcpcost.audit.deferral import load_inputs
from mcpcost.audit.lens import LensServer, lens
from mcpcost.audit.model_view import LoadVerdict, ModelView
from mcpcost.configs.clients.presentation import (
    ApiShape,
    Confidence,
    DeferralMode,
    DeferralRegime,
    Effect,
    FindingKind,
    HiddenTools,
    ModelName,
    NameLimit,
    NamePattern,
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
from mcpcost.configs.clients.rules_doc import RuleKind, RuleRow, clients_doc, noted_rows, rule_rows
from tests.helpers.paths import ROOT

ROWS = [(c.name, row) for c in CLIENTS for row in rule_rows(c.presentation)]
SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}}


VENDOR_GATED = DeferralMode.VENDOR_GATED


def tool(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "description": "Does one thing.", "inputSchema": SCHEMA, **extra}


def seen(client: str, p: Presentation, *servers: LensServer) -> ModelView:
    verdict = load_inputs(
        unmeasured=[],
        client=client,
        sources=[],
        servers=[],
        context_window=200_000,
        shell_environ={},
        settings=(),
    )
    return lens(list(servers), p, verdict)


def test_the_page_is_current() -> None:
    page = (ROOT / "docs" / "CLIENTS.md").read_text(encoding="utf-8")
    assert page == clients_doc(), "docs/CLIENTS.md is stale: run scripts/render-clients-doc.py"


def test_every_client_has_a_table_or_says_nothing_is_on_record() -> None:
    page = clients_doc()
    for c in CLIENTS:
        section = page.split(f"(`{c.name}`)\n", 1)[1].split("\n## ", 1)[0]
        has_rules = bool(rule_rows(c.presentation) or noted_rows(c))
        assert ("| rule |" in section) is has_rules
        assert ("No rule on record." in section) is (not has_rules)
        assert c.presentation.on_record is has_rules or c.presentation.deferral is not None


def test_every_rule_has_a_source_a_date_and_a_confidence() -> None:
    for _, row in ROWS:
        assert row.provenance.source and row.provenance.date[:4] in ("2025", "2026")
        assert row.provenance.confidence in tuple(Confidence)


def _crosses(client: str, p: Presentation, row: RuleRow) -> None:
    rule = row.rule
    if isinstance(rule, ModelName) and rule.build("My.Server X", "t") == "t":
        # the name as written: a clash of two servers' names is the client's to settle
        a, b = (LensServer(name=n, tools=(tool("t"),)) for n in ("a", "b"))
        v = seen(client, p, a, b)
        assert rule.dedupes and [t.model_name for t in v.tools] == ["t", "t"]
        assert not any(f.kind is FindingKind.NAME_COLLISION for f in v.findings)
    elif isinstance(rule, ModelName):
        v = seen(client, p, LensServer(name="My.Server X", tools=(tool("t"),)))
        assert (FindingKind.NAME_INVALID, Effect.RENAMES) in [
            (f.kind, f.effect) for f in v.findings
        ]
        assert v.tools[0].model_name == rule.build("My.Server X", "t")
    elif isinstance(rule, NameLimit):
        name = "a" * (rule.max_length + 5)
        v = seen(client, p, LensServer(name="s", tools=(tool(name),)))
        hits = [f for f in v.findings if f.kind is FindingKind.NAME_TOO_LONG]
        assert any(f.effect is rule.effect and f.limit == rule.max_length for f in hits)
        if rule.effect is Effect.DROPS:
            assert v.tools == ()
    elif isinstance(rule, NamePattern):
        v = seen(client, p, LensServer(name="s", tools=(tool("get.item"),)))
        assert any(
            f.kind is FindingKind.NAME_INVALID and f.effect is rule.effect for f in v.findings
        )
    elif isinstance(rule, Projection):
        v = seen(client, p, LensServer(name="s", tools=(tool("t", outputSchema=SCHEMA),)))
        keys = {"name", "description", rule.schema_key, *(k for k, _ in rule.adds)}
        if rule.shape is ApiShape.OPENAI_FUNCTION:
            keys.add("type")
        assert set(v.tools[0].definition) == keys and v.api_shape is rule.shape
    elif isinstance(rule, TextLimit):
        text = "x" * (rule.max_chars + 1)
        if rule.subject == "description":
            server = LensServer(name="s", tools=(tool("t", description=text),))
            kind = FindingKind.DESCRIPTION_TRUNCATED
        else:
            server = LensServer(name="s", tools=(tool("t"),), instructions=text)
            kind = FindingKind.INSTRUCTIONS_TRUNCATED
        v = seen(client, p, server)
        assert [(f.kind, f.limit) for f in v.findings] == [(kind, rule.max_chars)]
    elif isinstance(rule, ToolCountLimit):
        tools = tuple(tool(f"t{i}") for i in range(rule.max_tools + 1))
        v = seen(client, p, LensServer(name="s", tools=tools))
        assert [(f.kind, f.effect, f.actual) for f in v.findings] == [
            (FindingKind.TOO_MANY_TOOLS, rule.effect, rule.max_tools + 1)
        ]
    elif isinstance(rule, SchemaRule):
        schema = {"type": "object", "properties": {k: {"type": "string"} for k in rule.keywords}}
        schema.update({k: {} for k in rule.keywords})
        v = seen(client, p, LensServer(name="s", tools=(tool("t", inputSchema=schema),)))
        assert any(f.kind is FindingKind.SCHEMA_UNSUPPORTED for f in v.findings)
    elif isinstance(rule, HiddenTools):
        app = tool("t", _meta={"ui": {"visibility": ["app"]}})
        v = seen(client, p, LensServer(name="s", tools=(app,)))
        assert [f.kind for f in v.findings] == [FindingKind.HIDDEN_FROM_MODEL] and v.tools == ()
    elif isinstance(rule, DeferralRegime):
        count = rule.min_tools or 1
        tools = tuple(tool(f"t{i}") for i in range(count))
        v = seen(client, p, LensServer(name="s", tools=tools))
        gated = p.deferral is not None and p.deferral.resolve({}, None).mode is VENDOR_GATED
        if rule.trigger is Trigger.MODEL_DEPENDENT:
            assert v.verdict is LoadVerdict.CANNOT_BE_SAID and v.deferred_tokens == 0
        elif gated:  # the vendor decides: nothing is claimed deferred
            assert v.verdict is LoadVerdict.CANNOT_BE_SAID and not any(t.deferred for t in v.tools)
        else:  # Claude Code's default posture defers everything
            assert v.verdict is LoadVerdict.DEFERRED and all(t.deferred for t in v.tools)
        assert v.regime == rule.mechanism
        if rule.trigger is Trigger.TOOL_COUNT:
            fewer = seen(client, p, LensServer(name="s", tools=tools[:-1]))
            assert fewer.verdict is LoadVerdict.LOADED_UP_FRONT
    elif isinstance(rule, ToolFilter):
        cap = ToolCountLimit(
            max_tools=1,
            scope="request",
            effect=Effect.REJECTS,
            rule="r",
            fix="drop a server",
            provenance=Provenance(source="s", date="2026-12", confidence=Confidence.REPORTED),
        )
        with_cap = Presentation(tool_limits=(cap,), tool_filter=rule)
        v = seen(client, with_cap, LensServer(name="s", tools=(tool("a"), tool("b"))))
        assert (rule.how in v.findings[0].fix) is rule.removes_definition
    else:  # pragma: no cover - a rule type without a crossing here is a test to write
        raise AssertionError(f"no crossing for {type(rule).__name__}")


@pytest.mark.parametrize(
    ("client", "row"), ROWS, ids=[f"{c}-{i}-{r.kind}" for i, (c, r) in enumerate(ROWS)]
)
def test_each_rule_in_the_page_bites_on_a_capture_that_crosses_it(
    client: str, row: RuleRow
) -> None:
    presentation = next(c.presentation for c in CLIENTS if c.name == client)
    _crosses(client, presentation, row)


def test_every_rows_kind_is_a_rule_kind() -> None:
    from mcpcost.configs.clients.rules_doc import RuleKind

    kinds = {row.kind for _, row in ROWS}
    assert all(isinstance(k, RuleKind) for k in kinds)
    assert {RuleKind.DEFERRAL, RuleKind.TOOL_FILTER} <= kinds


def test_the_rules_applied_when_configs_are_read_are_on_the_page_with_their_sources() -> None:
    """Claude Code's settings env and server policy, and each noted rule, are rows of its
    table made from the very values discovery and the docs use, each with its source."""
    page = clients_doc()
    claude = next(c for c in CLIENTS if c.name == "claude-code")
    rows = noted_rows(claude)
    kinds = [r.kind for r in rows]
    assert kinds[:2] == [RuleKind.SETTINGS_ENV, RuleKind.SERVER_POLICY]
    assert rows[0].rule is claude.settings_env and rows[1].rule is claude.server_policy
    assert {r.topic for r in rows if r.kind is RuleKind.NOTED} >= {
        "alwaysLoad",
        "tool-level alwaysLoad",
        "disabled servers",
    }
    section = page.split("(`claude-code`)\n", 1)[1].split("\n## ", 1)[0]
    for r in rows:
        assert f"| {r.topic} |" in section
        assert r.provenance.source.split(" ")[0] in section
    for name in ("zed", "opencode", "goose", "github-app"):
        section = page.split(f"(`{name}`)\n", 1)[1].split("\n## ", 1)[0]
        assert "| rule |" in section and "No rule on record." not in section
    assert "source-code" in page.split("(`zed`)\n", 1)[1].split("\n## ", 1)[0]
