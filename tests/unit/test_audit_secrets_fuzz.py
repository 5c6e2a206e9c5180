"""Fuzz: generated configs with secret-looking values in env, headers, args and URLs; none of
them may appear in the text, JSON or Markdown report (with a diff and gates), even when a
server's failure notes echo them back."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpcost.audit.compose import AuditInputs, AuditOptions, run_audit
from mcpcost.audit.diff import diff_reports
from mcpcost.audit.gates import evaluate_gates
from mcpcost.cli import audit_cmd
from mcpcost.configs.config_file import ConfigEntry, ConfigFile, ConfigState
from mcpcost.core.jsonvalue import stringify
from mcpcost.core.model import Measurement
from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status
from mcpcost.render.json_report import render_json
from mcpcost.render.markdown_report import render_markdown
from mcpcost.render.text_report import render_text
from tests.helpers.audit_builders import as_baseline, measured, tools

TOKEN = st.from_regex(r"[A-Za-z0-9]{20,32}", fullmatch=True).map(lambda s: "S3cr" + s)
NAME = st.from_regex(r"[a-z][a-z0-9-]{0,10}", fullmatch=True)
ENV_NAME = st.from_regex(r"[A-Z][A-Z0-9_]{0,12}", fullmatch=True)
PREFIX = st.sampled_from(["ghp_", "sk-", "xoxb-", "glpat-", "github_pat_", "npm_", "hf_"])


@st.composite
def secret_arg(draw: st.DrawFn) -> tuple[list[str], str]:
    """Args carrying a secret in one of the shapes people write them."""
    s = draw(TOKEN)
    form = draw(st.integers(0, 6))
    flag = draw(st.sampled_from(["token", "api-key", "apikey", "password", "secret", "auth"]))
    if form == 0:
        return [f"--{flag}={s}"], s
    if form == 1:
        return [f"--{flag}", s], s
    if form == 2:
        return [f"{flag.upper().replace('-', '_')}={s}"], s
    if form == 3:
        p = draw(PREFIX)
        return [p + s], p + s
    if form == 4:
        return [f"Authorization: Bearer {s}"], s
    if form == 5:
        return [f"https://user:{s}@example.test/x"], s
    return [f"https://example.test/mcp?access_token={s}"], s


@st.composite
def server(draw: st.DrawFn, name: str) -> tuple[ConfigEntry, list[str]]:
    secrets: list[str] = []
    env = {draw(ENV_NAME): draw(TOKEN) for _ in range(draw(st.integers(0, 3)))}
    secrets += env.values()
    if draw(st.booleans()):
        args: list[str] = ["serve"]
        for _ in range(draw(st.integers(1, 3))):
            a, s = draw(secret_arg())
            args += a
            secrets.append(s)
        spec = ServerSpec.stdio(name, ["srv", *args], env=env)
    else:
        s = draw(TOKEN)
        headers = {"Authorization": f"Bearer {s}", draw(ENV_NAME): draw(TOKEN)}
        secrets += [s, *headers.values()]
        q = draw(TOKEN)
        secrets.append(q)
        url = draw(
            st.sampled_from(
                [
                    f"https://u:{q}@mcp.example.test/sse",
                    f"https://mcp.example.test/mcp?api_key={q}",
                    f"https://mcp.example.test/mcp?token={q}&x=1",
                ]
            )
        )
        spec = ServerSpec.remote(name, url, headers=headers)
    return ConfigEntry(name=name, spec=spec), secrets


@st.composite
def configs(draw: st.DrawFn) -> tuple[list[ConfigFile], list[str]]:
    names = draw(st.lists(NAME, min_size=1, max_size=5, unique=True))
    entries: list[ConfigEntry] = []
    secrets: list[str] = []
    for n in names:
        e, s = draw(server(n))
        entries.append(e)
        secrets += s
    client = draw(st.sampled_from(["claude-code", "cursor", "explicit", "vscode"]))
    split = draw(st.integers(0, len(entries)))
    files = [
        ConfigFile(
            client=client, source="/h/a.json", state=ConfigState.OK, entries=tuple(entries[:split])
        ),
        ConfigFile(
            client="cursor",
            source="/h/b.json",
            state=ConfigState.OK,
            entries=tuple(entries[split:]),
        ),
    ]
    return files, secrets


def leaky_measure(spec: ServerSpec) -> Measurement:
    """Every other server fails with notes that echo its argv, URL and secret values."""
    if len(spec.name) % 2:
        echo = " ".join([*spec.argv, spec.url or "", *spec.secret_values])
        return Measurement(
            status=Status.AUTH_REQUIRED,
            server_name=spec.name,
            launch_command=spec.display(),
            measured_at="",
            timeout_ms=1,
            notes=f"401 for {echo}",
        )
    return measured(spec, tools(spec.name.replace("-", "_"), 2))


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_no_secret_reaches_any_output(data: tuple[list[ConfigFile], list[str]]) -> None:
    files, secrets = data
    options = AuditOptions(concurrency=2, generated_at="t")
    report = run_audit(AuditInputs(configs=tuple(files)), measure=leaky_measure, options=options)
    report = report.report
    diff = diff_reports(as_baseline(report), report)
    gates = evaluate_gates(report, diff, budget=1, max_increase=0)
    outputs: dict[str, Any] = {
        "text": render_text(report, diff, gates),
        "json": render_json(report, diff, gates),
        "markdown": render_markdown(report, diff, gates),
    }
    # not vacuous: every server is in the report (the measured ones and the ones whose failure
    # notes echoed their secrets; one launch shared by two names takes one of the two outcomes)
    shown = [
        srv["name"]
        for c in json.loads(outputs["json"])["configs"]
        for srv in c["servers"] + c["skipped"]
    ]
    assert sorted(shown) == sorted(e.name for f in files for e in f.entries)
    assert secrets
    for kind, text in outputs.items():
        for s in secrets:
            assert s not in text, f"{kind} output leaks {s!r}"


# --------------------------------------------------------------------- --list-configs


@st.composite
def config_text(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A JSON config (any of the map-shaped clients' spellings) whose servers carry secrets in
    env, headers, args and URLs, some also with unresolved references or wrong-typed fields."""
    servers: dict[str, Any] = {}
    secrets: list[str] = []
    for n in draw(st.lists(NAME, min_size=1, max_size=4, unique=True)):
        env = {draw(ENV_NAME): draw(TOKEN) for _ in range(draw(st.integers(0, 2)))}
        secrets += env.values()
        extra = draw(st.sampled_from([{}, {"cwd": 5}, {"disabled": "yes"}, {"args": [1]}]))
        if draw(st.booleans()):
            args = ["serve", draw(st.sampled_from(["${UNSET_VAR}", "${input:pat}", "plain"]))]
            for _ in range(draw(st.integers(1, 3))):
                a, s = draw(secret_arg())
                args += a
                secrets.append(s)
            servers[n] = {"command": "srv", "args": args, "env": env, **extra}
        else:
            q, h = draw(TOKEN), draw(TOKEN)
            secrets += [q, h]
            url = draw(
                st.sampled_from(
                    [
                        f"https://u:{q}@mcp.example.test/sse",
                        f"https://mcp.example.test/mcp?api_key={q}",
                        f"ftp://mcp.example.test/mcp?token={q}",
                        f"https://mcp.example.test/${{UNSET_VAR}}?token={q}",
                    ]
                )
            )
            key = draw(st.sampled_from(["url", "serverUrl", "httpUrl"]))
            servers[n] = {key: url, "headers": {"Authorization": f"Bearer {h}", "X-N": 1}, **extra}
    block = draw(st.sampled_from(["mcpServers", "servers"]))
    return stringify({block: servers}), secrets


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config_text())
def test_list_configs_shows_no_secret(data: tuple[str, list[str]]) -> None:
    text, secrets = data
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mcp.json"
        path.write_text(text, "utf-8")
        for extra in ([], ["--json"]):
            out, err = io.StringIO(), io.StringIO()
            code = audit_cmd.run(
                ["--config", str(path), "--list-configs", *extra],
                out,
                err,
                environ={},
                home=Path(tmp),
                cwd=Path(tmp),
            )
            assert code == 0
            shown = out.getvalue() + err.getvalue()
            for s in secrets:
                assert s not in shown, f"--list-configs {extra} leaks {s!r}"
