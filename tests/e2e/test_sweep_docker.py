"""Container isolation: plans, the frame demultiplexer, the cold-cache retry, and real containers
run through podman's Docker-compatible API (marked ``podman``; skipped without podman)."""

from __future__ import annotations

import datetime as dt
import os
import shlex
import socket
import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from mcpcost.core.model import Measurement
from mcpcost.core.status import Status
from mcpcost.measuring.containers import (
    CA_MOUNT_PATH,
    CA_NOTE,
    HOST_CA_FILE,
    NODE_IMAGE,
    SELF_DOCKER_NOTE,
    UV_IMAGE,
    CABundleError,
    ContainerLauncher,
    ContainerPlan,
    HostTrust,
    demultiplex,
    host_proxy,
    resolve_ca_bundle,
)
from mcpcost.sweep.catalog import load_catalog
from mcpcost.sweep.isolation import plan_container
from mcpcost.sweep.runner import COLD_RETRY_PREFIX, Job, SweepOptions, measure_entry, plan_job

NOW = dt.datetime(2026, 9, 1, 12, 0, tzinfo=dt.UTC)

TINY_SERVER = r"""
import json, os, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m.get("method") == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "box", "version": "1.0"}}
    elif m.get("method") == "tools/list":
        d = "key=%s url=%s home=%s" % (os.environ.get("EXAMPLE_API_KEY"), os.environ.get("EXAMPLE_URL"), os.environ["HOME"])
        r = {"tools": [{"name": "env_probe", "description": d, "inputSchema": {"type": "object"}}]}
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "no"}}) + "\n")
        sys.stdout.flush()
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n")
    sys.stdout.flush()
"""

CATALOG = load_catalog(
    yaml.safe_dump(
        {
            "servers": [
                {
                    "name": "boxed",
                    "command": "python3 -u -c " + shlex.quote(TINY_SERVER),
                    "env": ["EXAMPLE_API_KEY", "EXAMPLE_URL"],
                    "envValues": {"EXAMPLE_URL": "http://localhost:9200"},
                },
                {"name": "broken-box", "command": "echo cannot start >&2; exit 3"},
                {"name": "npx-thing", "command": "npx -y some-server", "needsGit": True},
                {"name": "uvx-thing", "command": "uvx some-server", "dockerImage": "example/own:1"},
                {
                    "name": "self-docker",
                    "command": "docker run -i --rm -e TOKEN=dummy example/server",
                },
            ]
        },
        sort_keys=False,
    )
)
E = CATALOG.by_name()


def test_container_plans_follow_the_launcher_and_record_what_was_done() -> None:
    npx = plan_container(E["npx-thing"])
    assert npx.image == NODE_IMAGE and npx.memory == "1g" and npx.pids_limit == 512
    assert npx.security_opt == ("no-new-privileges",) and npx.environment["HOME"] == "/tmp"
    assert set(npx.volumes) == {"mcp-ctx-npm-cache", "mcp-ctx-uv-cache"}
    assert npx.shell_command.endswith("npx -y some-server") and "apt-get" in npx.shell_command
    assert npx.isolation.note is not None and npx.isolation.note.endswith(", git installed")
    assert npx.isolation.network == "bridge" and npx.isolation.image == NODE_IMAGE
    cold = plan_container(E["npx-thing"], shared_cache=False)
    assert cold.volumes == {} and "npm_config_cache" not in cold.environment
    assert cold.isolation.note is not None and cold.isolation.note.endswith(
        "shared package cache bypassed"
    )
    assert plan_container(E["uvx-thing"]).image == "example/own:1"
    assert plan_container(E["uvx-thing"], image_override="x").image == "example/own:1"
    uvx = load_catalog("servers:\n  - name: u\n    command: uvx tool\n").entries[0]
    assert plan_container(uvx).image == UV_IMAGE
    assert plan_container(uvx, image_override="local/img").image == "local/img"
    boxed = plan_container(E["boxed"])
    assert boxed.environment["EXAMPLE_API_KEY"] == "dummy"
    assert boxed.environment["EXAMPLE_URL"] == "http://localhost:9200"
    job = plan_job(E["self-docker"], SweepOptions(docker=True))
    assert job.container is None and job.isolation.docker and job.isolation.note == SELF_DOCKER_NOTE
    assert plan_job(E["boxed"], SweepOptions(docker=False)).isolation.docker is False


def test_docker_run_entries_get_the_engine_address_and_record_it() -> None:
    host = "unix:///run/user/0/podman/podman.sock"
    job = plan_job(E["self-docker"], SweepOptions(docker=True, docker_host=host))
    assert dict(job.spec.env)["DOCKER_HOST"] == host
    assert job.isolation.note == f"{SELF_DOCKER_NOTE}; engine DOCKER_HOST={host}"
    secret = "tcp://admin:hunter2@engine.example:2376"
    masked = plan_job(E["self-docker"], SweepOptions(docker=True, docker_host=secret))
    assert dict(masked.spec.env)["DOCKER_HOST"] == secret  # the CLI needs the real address
    assert masked.isolation.note is not None and "hunter2" not in masked.isolation.note
    # host mode passes the address too (the stdio transport drops DOCKER_HOST otherwise)
    hosted = plan_job(E["self-docker"], SweepOptions(docker=False, docker_host=host))
    assert dict(hosted.spec.env)["DOCKER_HOST"] == host and not hosted.isolation.docker
    # only docker run commands get it; the default engine changes nothing
    assert "DOCKER_HOST" not in dict(plan_job(E["boxed"], SweepOptions(docker_host=host)).spec.env)
    plain = plan_job(E["self-docker"], SweepOptions(docker=True))
    assert "DOCKER_HOST" not in dict(plain.spec.env) and plain.isolation.note == SELF_DOCKER_NOTE


def test_recorded_env_names_are_the_catalogs_not_docker_host() -> None:
    def measure(job: Job) -> Measurement:
        return Measurement(
            status=Status.MEASURED,
            server_name="s",
            launch_command="x",
            measured_at="2026-09-01T12:00:00.000Z",
            timeout_ms=1000,
            env_var_names=job.spec.env_names,
            total_tokens=5,
            tool_count=1,
            raw_tools_capture=[],
        )

    entry = load_catalog(
        "servers:\n  - name: d\n    command: docker run -i --rm -e TOKEN img\n    env: [TOKEN]\n"
    ).entries[0]
    options = SweepOptions(docker=True, docker_host="unix:///tmp/x.sock")
    m = measure_entry(entry, measure, options, lambda: NOW)
    assert m.env_var_names == ("TOKEN",)


def test_demultiplex_splits_frames_into_stdout_and_stderr() -> None:
    a, b = socket.socketpair()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    t = threading.Thread(target=demultiplex, args=(b, out_w, err_w))
    t.start()

    def frame(kind: int, data: bytes) -> bytes:
        return bytes([kind, 0, 0, 0]) + struct.pack(">I", len(data)) + data

    payload = (
        frame(1, b'{"a":1}\n') + frame(2, b"warn\n") + frame(1, b"x" * 70000) + frame(1, b"\n")
    )
    a.sendall(payload[:5])
    a.sendall(payload[5:])
    a.close()
    with os.fdopen(out_r, "rb") as out, os.fdopen(err_r, "rb") as err:
        assert out.read() == b'{"a":1}\n' + b"x" * 70000 + b"\n"
        assert err.read() == b"warn\n"
    t.join(5)
    b.close()


def _fake(results: list[Status]) -> tuple[Any, list[Job]]:
    seen: list[Job] = []

    def measure(job: Job) -> Measurement:
        seen.append(job)
        status = results[len(seen) - 1]
        return Measurement(
            status=status,
            server_name=job.entry.name,
            launch_command="wrapped",
            measured_at="2026-09-01T12:00:00.000Z",
            timeout_ms=int(job.timeout_s * 1000),
            isolation=job.isolation,
            notes=f"attempt {len(seen)}",
        )

    return measure, seen


def test_cold_cache_retry_publishes_a_changed_outcome() -> None:
    measure, seen = _fake([Status.STARTUP_FAILURE, Status.TIMEOUT])
    m = measure_entry(E["npx-thing"], measure, SweepOptions(docker=True), lambda: NOW)
    assert [j.container is not None and bool(j.container.volumes) for j in seen] == [True, False]
    assert seen[1].timeout_s == 240 and m.status is Status.TIMEOUT and m.timeout_ms == 240000
    assert m.launch_command == "npx -y some-server"


def test_cold_cache_retry_that_fails_the_same_way_keeps_the_first_with_a_prefix() -> None:
    measure, seen = _fake([Status.STARTUP_FAILURE, Status.STARTUP_FAILURE])
    m = measure_entry(E["npx-thing"], measure, SweepOptions(docker=True), lambda: NOW)
    assert len(seen) == 2 and m.notes == COLD_RETRY_PREFIX + "attempt 1"
    assert m.isolation is not None and m.isolation.note is not None
    assert "bypassed" not in m.isolation.note


@pytest.mark.parametrize("name,docker", [("npx-thing", False), ("self-docker", True)])
def test_no_cold_cache_retry_on_host_or_self_docker(name: str, docker: bool) -> None:
    measure, seen = _fake([Status.STARTUP_FAILURE, Status.MEASURED])
    m = measure_entry(E[name], measure, SweepOptions(docker=docker), lambda: NOW)
    assert len(seen) == 1 and m.status is Status.STARTUP_FAILURE and m.notes == "attempt 1"


# -- real containers -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def engine() -> Iterator[tuple[Any, str, str]]:
    from tests.servers.podman import BASE_IMAGE, podman_service, podman_unavailable

    reason = podman_unavailable()
    if reason is not None:
        pytest.skip(reason)
    import docker

    with podman_service() as url:
        client = docker.DockerClient(base_url=url)
        try:
            yield client, BASE_IMAGE, url
        finally:
            client.close()


def _ours(client: Any) -> list[Any]:
    """Containers this test process made (names carry our PID; other sweeps may be running)."""
    mine = f"-{os.getpid()}-"
    return [
        c
        for c in client.containers.list(all=True)
        if c.name.startswith("mcp-ctx-") and mine in c.name
    ]


@pytest.mark.slow
@pytest.mark.podman
def test_sweep_in_real_containers_through_the_docker_api(
    engine: tuple[Any, str, str], tmp_path: Path
) -> None:
    from mcpcost.core.jsonvalue import parse_json
    from mcpcost.sweep.measure_adapter import make_measure
    from mcpcost.sweep.runner import run_sweep

    client, image, _ = engine
    lines: list[str] = []
    selected = [E["boxed"], E["broken-box"], E["self-docker"]]
    outcome = run_sweep(
        CATALOG,
        selected,
        tmp_path,
        make_measure(ContainerLauncher(client), lambda: NOW),
        SweepOptions(docker=True, concurrency=2, default_timeout_s=60, image_override=image),
        clock=lambda: NOW,
        progress=lines.append,
    )
    assert outcome.exit_code == 0, lines

    def load(name: str) -> dict[str, Any]:
        doc = parse_json((tmp_path / "results" / name / "measurement.json").read_bytes())
        assert isinstance(doc, dict)
        return doc

    boxed = load("boxed")
    assert boxed["status"] == "measured", boxed.get("notes")
    assert (
        boxed["rawToolsCapture"][0]["description"]
        == "key=dummy url=http://localhost:9200 home=/tmp"
    )
    assert boxed["isolation"] == {
        "docker": True,
        "image": image,
        "network": "bridge",
        "note": "network enabled for package fetch; clean FS, no host credentials",
    }
    assert boxed["launchCommand"] == E["boxed"].command
    broken = load("broken-box")
    assert broken["status"] == "startup-failure"
    assert broken["notes"].startswith(COLD_RETRY_PREFIX) and "cannot start" in broken["notes"]
    selfdocker = load("self-docker")
    assert selfdocker["isolation"] == {"docker": True, "note": SELF_DOCKER_NOTE}
    assert _ours(client) == []  # every capture's container was removed


@pytest.mark.slow
@pytest.mark.podman
def test_docker_run_entry_reaches_the_engine_given_by_docker_host(
    engine: tuple[Any, str, str], tmp_path: Path
) -> None:
    """A host-spawned ``docker run`` reaches podman only through the DOCKER_HOST we pass on."""
    import shutil

    from mcpcost.core.jsonvalue import parse_json
    from mcpcost.sweep.measure_adapter import make_measure
    from mcpcost.sweep.runner import run_sweep

    if shutil.which("docker") is None:
        pytest.skip("no docker CLI on PATH to spawn the entry's own docker run")
    client, image, address = engine
    command = f"docker run -i --rm {image} python3 -u -c " + shlex.quote(TINY_SERVER)
    catalog = load_catalog(
        yaml.safe_dump({"servers": [{"name": "own-docker", "command": command}]})
    )
    lines: list[str] = []
    outcome = run_sweep(
        catalog,
        list(catalog.entries),
        tmp_path,
        make_measure(ContainerLauncher(client), lambda: NOW),
        SweepOptions(docker=True, default_timeout_s=120, docker_host=address),
        clock=lambda: NOW,
        progress=lines.append,
        publish_pages=False,
    )
    assert outcome.exit_code == 0, lines
    doc = parse_json((tmp_path / "results" / "own-docker" / "measurement.json").read_bytes())
    assert isinstance(doc, dict)
    assert doc["status"] == "measured", doc.get("notes")
    assert doc["isolation"] == {
        "docker": True,
        "note": f"{SELF_DOCKER_NOTE}; engine DOCKER_HOST={address}",
    }
    assert doc["launchCommand"] == command and doc["envVarNames"] == []
    # run as written: no dummy environment or HOME from a container plan of ours
    assert doc["rawToolsCapture"][0]["description"].startswith("key=None url=None home=")


@pytest.mark.slow
@pytest.mark.podman
def test_container_limits_are_applied(engine: tuple[Any, str, str]) -> None:
    client, image, _ = engine
    plan = plan_container(E["boxed"], image_override=image)
    transport = ContainerLauncher(client).open(plan)
    try:
        (container,) = _ours(client)
        host = container.attrs["HostConfig"]
        assert host["Memory"] == 1024**3 and host["PidsLimit"] == 512
        assert any("no-new-privileges" in opt for opt in host.get("SecurityOpt") or [])
    finally:
        transport.close()
    assert _ours(client) == []


def test_sweep_without_a_reachable_engine_is_a_one_line_usage_error(tmp_path: Path) -> None:
    import io

    from mcpcost.cli import sweep_cmd

    catalog = tmp_path / "servers.yaml"
    catalog.write_text("servers:\n  - name: a\n    command: npx -y a\n")
    err = io.StringIO()
    missing = f"unix://{tmp_path}/no-engine.sock"
    argv = ["--servers", str(catalog), "--docker", "--docker-host", missing, "--out", str(tmp_path)]
    assert sweep_cmd.run(argv, io.StringIO(), err, environ={}) == 2
    (line,) = err.getvalue().splitlines()
    assert line.startswith(f"mcpcost sweep: cannot reach a container engine at {missing} (")
    assert not (tmp_path / "results").exists()


# -- host trust: CA bundle and proxy for containers behind a TLS-intercepting proxy -------------

PROXY_ENV = {
    "HTTPS_PROXY": "http://alice:s3cretpass@proxy.corp.example:3128",
    "http_proxy": "http://proxy.corp.example:3128",
    "NO_PROXY": "localhost,127.0.0.1",
    "HTTP_PROXY": "",  # set but empty: not passed
    "PATH": "/usr/bin",
}


def test_ca_bundle_auto_takes_the_first_existing_host_bundle(tmp_path: Path) -> None:
    real = tmp_path / "bundle.pem"
    real.write_text("PEM")
    link = tmp_path / "link.pem"
    link.symlink_to(real)
    missing = str(tmp_path / "missing.pem")
    assert resolve_ca_bundle(None, {"SSL_CERT_FILE": str(real)}) is None
    env = {"SSL_CERT_FILE": missing, "REQUESTS_CA_BUNDLE": str(link)}
    assert resolve_ca_bundle("auto", env) == str(real)  # resolved: the engine mounts a file
    assert resolve_ca_bundle("auto", {"SSL_CERT_FILE": str(real)}) == str(real)
    seen: list[str] = []

    def host_file_only(path: str) -> bool:
        seen.append(path)
        return path == HOST_CA_FILE

    assert resolve_ca_bundle("auto", {"SSL_CERT_FILE": missing}, host_file_only) == HOST_CA_FILE
    assert seen == [missing, HOST_CA_FILE]
    assert resolve_ca_bundle("auto", {}, lambda _: False) is None
    assert resolve_ca_bundle(str(link), {}) == str(real)
    with pytest.raises(CABundleError, match=r"missing\.pem: not a file"):
        resolve_ca_bundle(missing, {})
    with pytest.raises(CABundleError):
        resolve_ca_bundle(str(tmp_path), {})  # a directory is not a bundle


def test_host_trust_reaches_the_container_plan_and_only_names_are_recorded() -> None:
    proxy = host_proxy(PROXY_ENV)
    assert [n for n, _ in proxy] == ["HTTPS_PROXY", "NO_PROXY", "http_proxy"]
    trust = HostTrust(ca_bundle="/etc/ssl/certs/ca-certificates.crt", proxy=proxy)
    plan = plan_container(E["npx-thing"], trust=trust)
    assert plan.binds == {"/etc/ssl/certs/ca-certificates.crt": CA_MOUNT_PATH}
    for name in ("NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "PIP_CERT"):
        assert plan.environment[name] == CA_MOUNT_PATH
    assert plan.environment["UV_NATIVE_TLS"] == "1"
    assert plan.environment["HTTPS_PROXY"] == PROXY_ENV["HTTPS_PROXY"]  # the proxy needs it
    assert plan.environment["NO_PROXY"] == "localhost,127.0.0.1" and "HTTP_PROXY" not in (
        plan.environment
    )
    assert set(plan.volumes) == {"mcp-ctx-npm-cache", "mcp-ctx-uv-cache"}  # caches unchanged
    note = plan.isolation.note
    assert note == (
        "network enabled for package fetch; clean FS, no host credentials, git installed, "
        f"{CA_NOTE}, host proxy variables passed (HTTPS_PROXY, NO_PROXY, http_proxy)"
    )
    assert "alice" not in note and "proxy.corp" not in note
    assert set(trust.secret_values) >= {PROXY_ENV["HTTPS_PROXY"], "alice:s3cretpass", "s3cretpass"}
    assert HostTrust(proxy=host_proxy({"https_proxy": "proxy:3128"})).secret_values == ()
    only_ca = plan_container(E["boxed"], trust=HostTrust(ca_bundle="/x.pem"), shared_cache=False)
    assert only_ca.isolation.note is not None
    assert only_ca.isolation.note.endswith(f"shared package cache bypassed, {CA_NOTE}")
    assert plan_container(E["boxed"], trust=HostTrust()) == plan_container(E["boxed"])
    # docker run entries are host-spawned: nothing of ours is mounted into them
    job = plan_job(E["self-docker"], SweepOptions(docker=True, trust=trust))
    assert job.container is None and job.isolation.note == SELF_DOCKER_NOTE


def test_proxy_credentials_echoed_by_a_server_are_masked_in_notes() -> None:
    trust = HostTrust(proxy=host_proxy(PROXY_ENV))

    def measure(job: Job) -> Measurement:
        assert job.container is not None
        said = job.container.environment["HTTPS_PROXY"]
        return Measurement(
            status=Status.TIMEOUT,
            server_name="s",
            launch_command="x",
            measured_at="2026-09-01T12:00:00.000Z",
            timeout_ms=1000,
            notes=f"npm ERR! connect via {said} failed (user alice:s3cretpass)",
        )

    m = measure_entry(E["npx-thing"], measure, SweepOptions(docker=True, trust=trust), lambda: NOW)
    assert m.notes is not None and "s3cretpass" not in m.notes and "alice" not in m.notes
    assert "npm ERR! connect via" in m.notes


def test_cli_ca_bundle_errors_are_one_line_usage_errors(tmp_path: Path) -> None:
    import io

    from mcpcost.cli import main

    catalog = tmp_path / "servers.yaml"
    catalog.write_text("servers:\n  - name: a\n    command: npx -y a\n")
    base = ["sweep", "--servers", str(catalog), "--out", str(tmp_path)]
    missing = str(tmp_path / "nope.pem")
    for argv, says in (
        ([*base, "--ca-bundle", "auto"], "--ca-bundle applies only with --docker"),
        ([*base, "--docker", f"--ca-bundle={missing}"], f"--ca-bundle {missing}: not a file"),
    ):
        err = io.StringIO()
        assert main(argv, io.StringIO(), err) == 2
        (line,) = err.getvalue().splitlines()
        assert says in line
    assert not (tmp_path / "results").exists()


TRUST_PROBE = r"""
import hashlib, json, os, sys
def probe():
    path = os.environ.get("SSL_CERT_FILE", "")
    try:
        digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
    except OSError as exc:
        digest = "unreadable:" + type(exc).__name__
    try:
        open(path, "ab").close()
        writable = "writable"
    except OSError:
        writable = "read-only"
    names = ",".join(n for n in ("NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "PIP_CERT") if os.environ.get(n) == path)
    return "%s %s %s %s proxy=%s" % (path, digest, writable, names, os.environ.get("HTTPS_PROXY"))
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    if m.get("method") == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "trust", "version": "1.0"}}
    else:
        r = {"tools": [{"name": "trust_probe", "description": probe(), "inputSchema": {"type": "object"}}]}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n")
    sys.stdout.flush()
"""


@pytest.mark.slow
@pytest.mark.podman
def test_ca_bundle_is_mounted_read_only_and_named_inside_a_real_container(
    engine: tuple[Any, str, str], tmp_path: Path
) -> None:
    import hashlib

    from mcpcost.sweep.measure_adapter import make_measure

    client, image, _ = engine
    bundle = tmp_path / "corp-bundle.pem"
    bundle.write_bytes(b"-----BEGIN CERTIFICATE-----\nnot really a certificate\n")
    entry = load_catalog(
        yaml.safe_dump(
            {"servers": [{"name": "trust", "command": "python3 -u -c " + shlex.quote(TRUST_PROBE)}]}
        )
    ).entries[0]
    proxy = (("HTTPS_PROXY", "http://proxy.invalid:3128"),)
    options = SweepOptions(
        docker=True,
        default_timeout_s=60,
        image_override=image,
        trust=HostTrust(ca_bundle=str(bundle), proxy=proxy),
    )
    m = measure_entry(
        entry, make_measure(ContainerLauncher(client), lambda: NOW), options, lambda: NOW
    )
    assert m.status is Status.MEASURED, m.notes
    assert isinstance(m.raw_tools_capture, list)
    said = m.raw_tools_capture[0]["description"]
    digest = hashlib.sha256(bundle.read_bytes()).hexdigest()
    assert said == (
        f"{CA_MOUNT_PATH} {digest} read-only NODE_EXTRA_CA_CERTS,REQUESTS_CA_BUNDLE,PIP_CERT "
        "proxy=http://proxy.invalid:3128"
    )
    assert m.isolation is not None and m.isolation.note is not None
    assert m.isolation.note.endswith(f"{CA_NOTE}, host proxy variables passed (HTTPS_PROXY)")
    assert _ours(client) == []


@pytest.mark.slow
@pytest.mark.podman
def test_a_launcher_missing_from_the_image_is_named_and_not_retried(
    engine: tuple[Any, str, str],
) -> None:
    from mcpcost.sweep.measure_adapter import make_measure

    client, image, _ = engine
    entry = load_catalog("servers:\n  - name: t\n    command: uvx mcp-server-time\n").entries[0]
    real = make_measure(ContainerLauncher(client), lambda: NOW)
    jobs: list[Job] = []

    def counting(job: Job) -> Measurement:
        jobs.append(job)
        return real(job)

    options = SweepOptions(docker=True, default_timeout_s=60, image_override=image)
    m = measure_entry(entry, counting, options, lambda: NOW)
    assert m.status is Status.STARTUP_FAILURE and len(jobs) == 1  # no cold-cache retry
    assert m.notes is not None and m.notes.startswith(
        f"uvx is not on PATH in image {image}: use an image that has it "
        "(the entry's dockerImage or --image); "
    )
    assert "uvx: not found" in m.notes and not m.notes.startswith(COLD_RETRY_PREFIX)


NPM_PACKAGE_URL = "https://registry.npmjs.org/@modelcontextprotocol%2fserver-memory"


def _npm_registry_unreachable() -> str | None:
    import requests

    try:
        with requests.get(NPM_PACKAGE_URL, timeout=60, stream=True) as resp:
            if resp.status_code != 200:
                return f"npm registry answered HTTP {resp.status_code}"
    except requests.RequestException as exc:
        return f"npm registry not reachable within 60 s ({type(exc).__name__})"
    return None


@pytest.mark.slow
@pytest.mark.podman
def test_npx_server_fetched_in_a_container_behind_the_proxy_matches_the_host_measurement(
    engine: tuple[Any, str, str], tmp_path: Path
) -> None:
    """``sweep --docker --ca-bundle auto``: npx fetches the pinned server from the npm registry
    inside the container (through this machine's TLS-intercepting proxy, if it has one) and the
    number equals the host measurement of the same pinned server."""
    import io

    from mcpcost.cli import sweep_cmd
    from mcpcost.core.jsonvalue import parse_json
    from mcpcost.core.spec import ServerSpec
    from mcpcost.measuring import measure_server
    from tests.servers.registry import real_server

    _, image, address = engine
    host_server = real_server("memory")
    if host_server is None:
        pytest.skip("pinned server-memory not installed (run scripts/setup-test-env.sh)")
    if resolve_ca_bundle("auto", os.environ) is None:
        pytest.skip("no host CA bundle to mount")
    reason = _npm_registry_unreachable()
    if reason is not None:
        pytest.skip(reason)
    host = measure_server(ServerSpec.stdio("memory", host_server.argv), timeout_s=60)
    assert host.status is Status.MEASURED, host.notes
    catalog = tmp_path / "servers.yaml"
    # npm's cache is pointed away from the shared volume: a warm cache would let npm fall back
    # to cached metadata after its network retries fail, hiding a missing CA bundle
    catalog.write_text(
        "servers:\n  - name: memory\n"
        "    command: npx -y @modelcontextprotocol/server-memory@2026.8.31\n"
        "    env: [npm_config_cache]\n"
        "    envValues: {npm_config_cache: /tmp/cold-npm-cache}\n"
    )
    argv = [
        "--servers",
        str(catalog),
        "--docker",
        "--docker-host",
        address,
        "--image",
        image,
        "--ca-bundle",
        "auto",
        "--timeout",
        "120",
        "--out",
        str(tmp_path / "out"),
        "--no-publish",
    ]
    err = io.StringIO()
    code = sweep_cmd.run(argv, io.StringIO(), err, environ=dict(os.environ))
    doc = parse_json((tmp_path / "out" / "results" / "memory" / "measurement.json").read_bytes())
    assert isinstance(doc, dict)
    assert code == 0 and doc["status"] == "measured", (doc.get("notes"), err.getvalue())
    assert doc["canonicalSha256"] == host.canonical_sha256
    assert doc["totalTokens"] == host.total_tokens and doc["toolCount"] == host.tool_count
    assert doc["isolation"]["docker"] is True and CA_NOTE in doc["isolation"]["note"]
    assert "containers trust the CA bundle" in err.getvalue()


NPM_TLS_FAILURE = (
    "server exited (code 1); stderr tail: npm ERR! code SELF_SIGNED_CERT_IN_CHAIN\n"
    "npm ERR! request to https://registry.npmjs.org/@modelcontextprotocol%2fserver-memory "
    "failed, reason: self-signed certificate in certificate chain"
)  # what npx said in a container on this machine without --ca-bundle


@pytest.mark.parametrize(
    "options,advised",
    [
        (SweepOptions(docker=True), True),
        (SweepOptions(docker=True, trust=HostTrust(proxy=(("HTTPS_PROXY", "http://p:1"),))), True),
        (SweepOptions(docker=True, trust=HostTrust(ca_bundle="/b.pem")), False),
    ],
)
def test_an_untrusted_certificate_chain_points_at_ca_bundle_and_is_not_retried(
    options: SweepOptions, advised: bool
) -> None:
    seen: list[Job] = []

    def measure(job: Job) -> Measurement:
        seen.append(job)
        return Measurement(
            status=Status.STARTUP_FAILURE,
            server_name="m",
            launch_command="x",
            measured_at="2026-09-01T12:00:00.000Z",
            timeout_ms=1000,
            notes=NPM_TLS_FAILURE,
        )

    m = measure_entry(E["npx-thing"], measure, options, lambda: NOW)
    assert len(seen) == 1  # a cold package cache cannot fix a certificate chain
    assert m.notes is not None and m.notes.endswith(NPM_TLS_FAILURE)
    assert m.notes.startswith("the container does not trust the TLS certificate chain") is advised
    assert ("--ca-bundle auto" in m.notes) is advised
    host = measure_entry(E["npx-thing"], measure, SweepOptions(docker=False), lambda: NOW)
    assert host.notes == NPM_TLS_FAILURE  # the host's own trust store is not ours to fix


def _no_container_of_ours(client: Any, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while _ours(client):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.mark.slow
@pytest.mark.podman
@pytest.mark.parametrize("end", ["stop", "kill"])
def test_an_interrupt_ends_the_containers_of_open_captures(
    engine: tuple[Any, str, str], end: str
) -> None:
    from mcpcost.runtime.processes import LiveTrees, kill_every_tree, stop_every_tree
    from mcpcost.transports.failures import SpawnFailed

    client, image, _ = engine
    registry = LiveTrees()
    launcher = ContainerLauncher(client, registry)
    plan = ContainerPlan(image=image, shell_command="exec sleep 300", environment={})
    transport = launcher.open(plan)
    try:
        assert len(_ours(client)) == 1 and len(registry.others()) == 1
        ended = (
            stop_every_tree(0.5, registry=registry) if end == "stop" else kill_every_tree(registry)
        )
        assert ended == 1
        # the kill or stop request reached the engine before the call returned; on a busy
        # machine the removal itself can finish after the call's bound
        assert _no_container_of_ours(client, within_s=20.0)
        with pytest.raises(SpawnFailed, match="being interrupted"):
            launcher.open(plan)  # and nothing new starts once interrupted
        assert _ours(client) == []
    finally:
        transport.close()
    assert registry.others() == [] and _ours(client) == []


@pytest.mark.slow
@pytest.mark.podman
def test_a_closed_capture_leaves_the_registry(engine: tuple[Any, str, str]) -> None:
    from mcpcost.runtime.processes import LiveTrees

    client, image, _ = engine
    registry = LiveTrees()
    transport = ContainerLauncher(client, registry).open(
        ContainerPlan(image=image, shell_command="exec sleep 300", environment={})
    )
    assert len(registry.others()) == 1
    transport.close()
    assert registry.others() == [] and _ours(client) == []
