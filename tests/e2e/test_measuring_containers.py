"""Real containers for ``measure --docker`` and ``audit --docker``, run through podman's
Docker-compatible API (marked ``podman``; skipped without podman), and the one-line error without
an engine (the plans on values alone: tests/unit/test_measuring_container_plans.py)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.spec import ServerSpec
from mcpcost.core.status import Status
from mcpcost.measuring.containers import BASE_NOTE, SELF_DOCKER_NOTE
from tests.helpers.paths import ROOT
from tests.servers.conftest_plugin import (
    docker_host_fixture,  # noqa: F401  (the fixture, without registering the plugin)
)
from tests.servers.podman import containers_of_this_process

DEMO = ROOT / "examples" / "demo" / "demo_server.py"

# -- real containers --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def engine(docker_host: str) -> Iterator[Any]:
    import docker

    client = docker.DockerClient(base_url=docker_host)
    try:
        yield client
    finally:
        client.close()


def _ours(client: Any) -> list[str]:
    return [c.attrs["Names"][0].lstrip("/") for c in containers_of_this_process(client)]


@pytest.mark.slow
@pytest.mark.podman
def test_measure_docker_of_a_mounted_repo_script_equals_the_host_measurement(
    docker_host: str, engine: Any
) -> None:
    from mcpcost.cli import measure_cmd
    from tests.servers.podman import BASE_IMAGE

    host_out = io.StringIO()
    argv = ["--json", "--timeout", "30", "--command", f"python3 {DEMO}"]
    assert measure_cmd.run(argv, host_out, io.StringIO(), environ={}) == 0
    host = parse_json(host_out.getvalue())
    out, err = io.StringIO(), io.StringIO()
    env = {"DOCKER_HOST": docker_host, "HOME": str(Path.home())}
    code = measure_cmd.run(["--docker", "--image", BASE_IMAGE, *argv], out, err, environ=env)
    boxed = parse_json(out.getvalue())
    assert isinstance(boxed, dict) and isinstance(host, dict)
    assert code == 0 and boxed["status"] == "measured", (boxed.get("notes"), err.getvalue())
    assert boxed["canonicalSha256"] == host["canonicalSha256"]
    assert boxed["totalTokens"] == host["totalTokens"] and boxed["toolCount"] == 3
    assert boxed["launchCommand"] == f"python3 {DEMO}" == host["launchCommand"]
    assert boxed["isolation"] == {
        "docker": True,
        "image": BASE_IMAGE,
        "network": "bridge",
        "note": f"{BASE_NOTE}, 1 host path mounted read-only",
    }
    assert host["isolation"] == {"docker": False}
    assert _ours(engine) == []


ENV_PROBE = r"""
import hashlib, json, os, sys
def probe():
    value = os.environ.get("PROBE_TOKEN")
    said = "PROBE_TOKEN is set" if value else "PROBE_TOKEN is not set"
    digest = hashlib.sha256(value.encode()).hexdigest() if value else "-"
    return "%s; sha256 %s; home %s; cwd %s" % (said, digest, os.environ.get("HOME"), os.getcwd())
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m.get("method") == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "env-probe", "version": "1.0"}}
    elif m.get("method") == "tools/list":
        sys.stderr.write("probe starting\n")
        r = {"tools": [{"name": "env_probe", "description": probe(), "inputSchema": {"type": "object"}}]}
    else:
        out = {"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "no"}}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n")
    sys.stdout.flush()
"""

SECRET = "tok-Zq81-very-secret-value-4711"


@pytest.mark.slow
@pytest.mark.podman
def test_audit_docker_puts_config_env_into_the_container_and_never_prints_it(
    docker_host: str, engine: Any, tmp_path: Path
) -> None:
    from mcpcost.cli import audit_cmd
    from tests.servers.podman import BASE_IMAGE

    home = tmp_path / "home"
    project = home / "proj"
    project.mkdir(parents=True)
    (project / "probe_server.py").write_text(ENV_PROBE)
    config = project / ".mcp.json"
    # a command that is itself `docker run` runs on the host as written (here a stand-in
    # `docker` that insists on the engine address, then runs the probe on the host)
    fake_docker = project / "bin" / "docker"
    fake_docker.parent.mkdir()
    fake_docker.write_text(
        f"#!{sys.executable}\nimport os, sys\n"
        f"if os.environ.get('DOCKER_HOST') != {docker_host!r}: sys.exit('no engine address')\n"
        f"os.execv({sys.executable!r}, [{sys.executable!r}, {str(project / 'probe_server.py')!r}])\n"
    )
    fake_docker.chmod(0o755)
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "probe": {
                        "command": "python3",
                        "args": ["probe_server.py"],
                        "cwd": str(project),
                        "env": {"PROBE_TOKEN": SECRET},
                    },
                    "own-docker": {
                        "command": str(fake_docker),
                        "args": ["run", "-i", "--rm", "img"],
                        "env": {"PROBE_TOKEN": SECRET},
                    },
                }
            }
        )
    )
    environ = {"DOCKER_HOST": docker_host, "PATH": os.environ.get("PATH", ""), "HOME": str(home)}
    outputs: list[str] = []
    docs: list[dict[str, Any]] = []
    for fmt in ("--json", "--markdown", None):
        out, err = io.StringIO(), io.StringIO()
        argv = [
            "--config",
            str(config),
            "--docker",
            "--image",
            BASE_IMAGE,
            "--timeout",
            "60",
            *([fmt] if fmt else []),
        ]
        code = audit_cmd.run(argv, out, err, environ=environ, home=home, cwd=project)
        outputs += [out.getvalue(), err.getvalue()]
        assert code == 0, (out.getvalue(), err.getvalue())
        if fmt == "--json":
            docs.append(json.loads(out.getvalue()))
    for text in outputs:
        assert SECRET not in text and SECRET[4:20] not in text
    summary = (
        "--docker: 1 launch(es) in containers, 1 as their own docker run on the host, "
        "0 on the host (remote)"
    )
    assert all(summary in err for err in outputs[1::2])
    from tests.helpers.report_schema import SCHEMA

    jsonschema.Draft202012Validator(SCHEMA).validate(docs[0])
    servers = {s["name"]: s for s in docs[0]["configs"][0]["servers"]}
    assert set(servers) == {"probe", "own-docker"}
    own = servers["own-docker"]
    assert own["status"] == "measured", own.get("notes")
    assert own["isolation"] == {
        "docker": True,
        "note": f"{SELF_DOCKER_NOTE}; engine DOCKER_HOST={docker_host}",
    }
    server = servers["probe"]
    assert server["status"] == "measured" and server["envVarNames"] == ["PROBE_TOKEN"]
    assert server["isolation"] == {
        "docker": True,
        "image": BASE_IMAGE,
        "network": "bridge",
        "note": f"{BASE_NOTE}, env values passed (PROBE_TOKEN), 1 host path mounted read-only",
    }
    # the value reached the container: the report's hash is that of the probe's tool saying
    # the variable is set, with the value's sha256 (the server never says the value itself)
    from mcpcost.core.canonical import canonicalize
    from mcpcost.measuring import MeasureOptions, measure_server

    digest = hashlib.sha256(SECRET.encode()).hexdigest()
    said = f"PROBE_TOKEN is set; sha256 {digest}; home /tmp; cwd {project}"
    tools = [{"name": "env_probe", "description": said, "inputSchema": {"type": "object"}}]
    assert server["canonicalSha256"] == canonicalize(tools).sha256
    # and without the config's env the same server says otherwise (the probe can tell)
    spec = ServerSpec.stdio("probe", ["python3", str(project / "probe_server.py")])
    unset = measure_server(spec, MeasureOptions(timeout_s=30))
    assert unset.status is Status.MEASURED and isinstance(unset.raw_tools_capture, list)
    assert unset.raw_tools_capture[0]["description"].startswith("PROBE_TOKEN is not set; sha256 -")
    assert _ours(engine) == []


def test_audit_docker_without_an_engine_is_one_line_and_exit_2(tmp_path: Path) -> None:
    from mcpcost.cli import audit_cmd

    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"a": {"command": sys.executable}}}))
    missing = f"unix://{tmp_path}/no-engine.sock"
    err = io.StringIO()
    argv = ["--config", str(config), "--docker", "--docker-host", missing]
    assert audit_cmd.run(argv, io.StringIO(), err, environ={}, home=tmp_path, cwd=tmp_path) == 2
    (line,) = err.getvalue().splitlines()
    assert line.startswith(f"mcpcost audit: cannot reach a container engine at {missing} (")
