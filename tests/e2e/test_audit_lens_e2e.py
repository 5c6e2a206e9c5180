"""The client lens end to end: a home holding configs of six clients (Claude Code, Cursor, VS
Code, Codex, Gemini CLI, Windsurf) that point at two real stdio servers whose tools cross each
limit on record, audited with real launches. Every finding is reported once, in the right
session, in JSON, Markdown, SARIF and text; ``--fail-on-limits`` fails on what breaks; each
session's up-front tokens equal an independent count of what its model gets; ``measure
--client all`` shows the same findings for one server."""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from mcpcost.audit.compose import audit_configs
from mcpcost.audit.model_view import ApiShape, ModelView
from mcpcost.cli import audit_cmd, measure_cmd
from mcpcost.configs.clients import presentation_of
from mcpcost.configs.config_file import ClientName
from mcpcost.core.spec import ServerSpec
from mcpcost.escaping.markdown import code_span
from mcpcost.measuring import MeasureOptions, measure_server
from tests.helpers.lens_homes import CLIENTS, EDGE, EXPECTED, entry_line, populate_home
from tests.helpers.report_schema import SCHEMA
from tests.servers.fixtures import limits_server
from tests.servers.registry import limits_server_argv

# the lens that fills each session's model view (mcpcost/audit/lens.py) comes from its own branch
pytest.importorskip("mcpcost.audit.lens", reason="the client lens is not on this branch yet")
ENVIRON = {"PATH": "/usr/bin:/bin"}


def _measure(spec: ServerSpec) -> Any:
    return measure_server(spec, MeasureOptions(timeout_s=60))


class Home:
    def __init__(self, root: Path) -> None:
        self.home, self.cwd = root / "home", root / "project"
        self.cwd.mkdir(parents=True)
        self.files = populate_home(self.home, self.cwd)

    def audit(self, *argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        code = audit_cmd.run(
            ["--trust-project", *argv],
            out,
            err,
            measure=_measure,
            environ=ENVIRON,
            home=self.home,
            cwd=self.cwd,
            platform="linux",
        )
        return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def lens_home(tmp_path_factory: pytest.TempPathFactory) -> Home:
    return Home(tmp_path_factory.mktemp("lens"))


@pytest.fixture(scope="module")
def report(lens_home: Home) -> dict[str, Any]:
    code, out, err = lens_home.audit("--json", "--sarif", str(lens_home.cwd / "lens.sarif"))
    assert code == 0, err  # the findings fail nothing unless the limits gate is asked for
    data: dict[str, Any] = json.loads(out)
    return data


def _keys(session: dict[str, Any]) -> list[tuple[str, str | None, str | None]]:
    return [(f["kind"], f["server"], f["tool"]) for f in session["modelView"]["findings"]]


def _by_client(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    sessions = {s["client"]: s for s in report["sessions"]}
    assert set(CLIENTS) <= set(sessions)
    return sessions


def test_json_reports_each_finding_once_in_its_own_session(report: dict[str, Any]) -> None:
    import jsonschema

    jsonschema.Draft202012Validator(SCHEMA).validate(report)
    for client, session in _by_client(report).items():
        keys = _keys(session)
        assert len(keys) == len(set(keys)), f"{client}: a finding reported twice"
        missing = EXPECTED[client] - set(keys)
        assert not missing, f"{client} lacks {missing}"
        for f in session["modelView"]["findings"]:
            assert f["source"] and f["date"] and f["rule"] and f["fix"]
    sessions = _by_client(report)
    # a finding of one client is not in another's session: the 60-character combined limit
    # (server name + tool name) is Cursor's, the 100-tool cap Windsurf's
    assert all(f["limit"] != 60 for f in sessions["claude-code"]["modelView"]["findings"])
    assert ("too-many-tools", None, None) not in _keys(sessions["cursor"])


def test_markdown_names_each_finding_once_in_its_session(lens_home: Home) -> None:
    code, md, err = lens_home.audit("--markdown")
    assert code == 0, err
    _, out, _ = lens_home.audit("--json")
    sessions = _by_client(json.loads(out))
    parts = md.split("\n### ")
    for session in sessions.values():
        (section,) = [p for p in parts if p.startswith(session["label"] + "\n")]
        mv = session["modelView"]
        floor = "≥" if mv["unmeasured"] else ""
        ceiling = " if everything loads" if mv["verdict"] == "cannot-be-said" else ""
        assert (
            f"**What the model gets: {floor}{mv['upfrontTokens']:,} tokens up front{ceiling}**"
            in section
        )
        lines = section.splitlines()
        for kind, server, tool in _keys(session):
            subject = " / ".join(code_span(x) for x in (server, tool) if x is not None)
            hits = [x for x in lines if f"`{kind}`" in x and (subject or "session's") in x]
            assert len(hits) == 1, (session["label"], kind, server, tool, hits)


def _location(result: dict[str, Any]) -> tuple[str, int]:
    where = result["locations"][0]["physicalLocation"]
    return where["artifactLocation"]["uri"], where["region"]["startLine"]


def test_sarif_has_a_result_per_finding_at_its_servers_line(
    lens_home: Home, report: dict[str, Any]
) -> None:
    log = json.loads((lens_home.cwd / "lens.sarif").read_text("utf-8"))
    results = [r for r in log["runs"][0]["results"] if r["ruleId"].startswith("mcpcost/lens/")]
    expected = 0
    for client, session in _by_client(report).items():
        path = lens_home.files[client]
        uri = path.as_uri() if not path.is_relative_to(lens_home.cwd) else ".vscode/mcp.json"
        heaviest = session["servers"][0]["name"]
        for f in session["modelView"]["findings"]:
            expected += 1
            mine = [
                r
                for r in results
                if r["ruleId"] == f"mcpcost/lens/{f['kind']}"
                and r["message"]["text"].startswith(session["label"] + " ")
                and (f["tool"] is None or f"tool {f['tool']} of " in r["message"]["text"])
                and (f["server"] is None or f"{f['server']} (" in r["message"]["text"])
            ]
            assert len(mine) == 1, (client, f)
            line = entry_line(path, f["server"] or heaviest)
            assert _location(mine[0]) == (uri, line)
            assert mine[0]["level"] == ("warning" if f["effect"] in BREAKS else "note")
    assert len(results) == expected


BREAKS = ("drops", "rejects", "cuts")


def test_fail_on_limits_fails_on_what_breaks(lens_home: Home, report: dict[str, Any]) -> None:
    code, _, err = lens_home.audit("--fail-on-limits")
    assert code == 1
    lines = [x for x in err.splitlines() if x.startswith("LIMITS FAIL: ")]
    breaking = [
        (s["label"], f)
        for s in report["sessions"]
        for f in s["modelView"]["findings"]
        if f["effect"] in BREAKS
    ]
    assert len(lines) == len(breaking) > 0
    assert any(x.startswith("LIMITS FAIL: Cursor drops tool ") for x in lines)
    assert any(x.startswith("LIMITS FAIL: Windsurf drops the session's tools") for x in lines)
    assert any("Claude Code cuts tool describe_everything" in x for x in lines)


def test_text_names_every_finding(lens_home: Home, report: dict[str, Any]) -> None:
    code, text, err = lens_home.audit()
    assert code == 0, err
    lines = re.sub(r"\n {4,}", " ", text).splitlines()  # a wrapped line's rest joined
    expected: Counter[str] = Counter()
    for session in report["sessions"]:
        for kind, server, tool in _keys(session):
            expected[f"{kind} {'.'.join(x for x in (server, tool) if x) or 'the session'}:"] += 1
    for head, sessions in expected.items():
        named = [x for x in lines if x.strip().startswith(head)]
        assert len(named) == sessions, (head, named)  # once in each session that has it
        assert all("; fix: " in x for x in named), named


def _wire_json(value: Any) -> str:
    """ECMAScript ``JSON.stringify`` of these values (strings, integers, booleans, lists,
    objects: no floats), written here so the count does not go through our canonical form."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _independent_upfront(client: str, servers: list[str], view: ModelView, enc: Any) -> int:
    """o200k_base (tiktoken's own encoder) of what the model gets up front, per server: the
    JSON array of its definitions, a deferred tool reduced to what the client's regime keeps
    (its name, its description), plus the server's instructions, cut as the client cuts them,
    where the client is on record putting them in context."""
    p = presentation_of(ClientName(client))
    keeps = {str(k) for k in p.regime.keeps} if p.regime is not None else set()
    cut = next((t for t in p.text_limits if t.subject == "instructions"), None)
    total = 0
    for server in servers:
        up = []
        for t in view.tools:
            d = t.definition
            if t.server != server or not isinstance(d, dict):
                continue
            if not t.deferred:
                up.append(d)
                continue
            stub = {k: d[k] for k in ("name", "description") if k in d and f"{k}s" in keeps}
            if stub:
                up.append(stub)
        total += len(enc.encode_ordinary(_wire_json(up))) if up else 0
        if cut is not None and server == EDGE:  # the edge server sends instructions
            text = limits_server.INSTRUCTIONS
            if len(text) > cut.max_chars:
                text = text[: cut.max_chars] + cut.marker
            total += len(enc.encode_ordinary(text))
    return total


def _dropped(view: ModelView) -> set[str]:
    return {f.tool for f in view.findings if f.effect == "drops" and f.tool is not None}


def test_upfront_tokens_equal_an_independent_count(lens_home: Home, tiktoken_o200k: Any) -> None:
    audited = audit_configs(
        home=lens_home.home,
        cwd=lens_home.cwd,
        environ=ENVIRON,
        platform="linux",
        measure=_measure,
        trust_project=True,
    )
    wire = {t["name"]: t for t in limits_server.edge_tools() + limits_server.many_tools()}
    checked = 0
    for session in audited.sessions:
        view = session.model_view
        if view is None or session.client not in CLIENTS:
            continue
        names = [e.server.name for e in session.servers]
        count = _independent_upfront(session.client, names, view, tiktoken_o200k)
        assert view.upfront_tokens == count, session.label
        for t in view.tools:
            d = t.definition
            assert isinstance(d, dict) and d["name"] == t.model_name
            source = wire[t.tool]
            if view.api_shape is None:  # the wire definition, with the model's name
                assert {k: v for k, v in d.items() if k != "name"} == {
                    k: v for k, v in source.items() if k not in ("name", "description")
                } | {"description": d["description"]}
            else:
                assert "outputSchema" not in d and "annotations" not in d and "_meta" not in d
            if view.api_shape is ApiShape.ANTHROPIC:  # {name, description, input_schema}
                assert set(d) <= {"name", "description", "input_schema"}
                assert d["input_schema"] == source["inputSchema"]
            if view.api_shape is ApiShape.OPENAI_FUNCTION:  # {type, name, description, ...}
                assert d["type"] == "function" and d["parameters"] == source["inputSchema"]
        hidden = {f.tool for f in view.findings if f.kind == "hidden-from-model"}
        # a tool is left out of what the model gets exactly where a finding says why
        assert {t.tool for t in view.tools} == set(wire) - hidden - _dropped(view), session.label
        checked += 1
    assert checked == len(CLIENTS)


def test_measure_client_all_shows_the_same_findings(report: dict[str, Any]) -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = ["--json", "--client", "all", "--name", EDGE, "--", *limits_server_argv("edge")]
    code = measure_cmd.run(argv, out, err)
    assert code == 0, err.getvalue()
    measured = json.loads(out.getvalue())
    by_client = {c["client"]: c["modelView"] for c in measured["clients"]}
    assert set(CLIENTS) <= set(by_client)
    sessions = _by_client(report)
    for client in CLIENTS:
        alone = {(f["kind"], f["tool"]) for f in by_client[client]["findings"]}
        # the server's own tools get the same findings alone as in a session (counts across
        # the session's servers, such as too-many-tools, are the session's)
        together = {(k, t) for k, s, t in _keys(sessions[client]) if s == EDGE and t is not None}
        assert together <= alone, client
