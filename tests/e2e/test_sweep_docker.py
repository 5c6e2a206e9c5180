"""Container isolation with real containers run through podman's Docker-compatible API (marked
``podman``; skipped without podman): sweeps, limits, the CA bundle and proxy inside a container,
interrupts, and the one-line error without an engine (the plans on values alone:
tests/unit/test_sweep_container_plans.py)."""

from __future__ import annotations

import os
import shlex
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
    SELF_DOCKER_NOTE,
    ContainerLauncher,
    ContainerPlan,
    HostTrust,
    resolve_ca_bundle,
)
from mcpcost.sweep.catalog import load_catalog
from mcpcost.sweep.isolation import plan_container
from mcpcost.sweep.runner import COLD_RETRY_PREFIX, Job, SweepOptions, measure_entry
from tests.helpers.container_catalog import CATALOG, NOW, TINY_SERVER, E
from tests.helpers.first_answers import FirstAnswers
from tests.servers.podman import containers_of_this_process

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
    return containers_of_this_process(client)


@pytest.mark.slow
@pytest.mark.podman
def test_sweep_in_real_containers_through_the_docker_api(
    engine: tuple[Any, str, str], tmp_path: Path
) -> None:
    from mcpcost.core.jsonvalue import parse_json
    from mcpcost.measuring import MeasureOptions
    from mcpcost.sweep.measure_adapter import make_measure
    from mcpcost.sweep.runner import run_sweep

    client, image, _ = engine
    lines: list[str] = []
    selected = [E["boxed"], E["broken-box"], E["self-docker"]]
    outcome = run_sweep(
        CATALOG,
        selected,
        tmp_path,
        make_measure(ContainerLauncher(client), MeasureOptions(now=lambda: NOW)),
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
    from mcpcost.measuring import MeasureOptions
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
        make_measure(ContainerLauncher(client), MeasureOptions(now=lambda: NOW)),
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
        container.reload()
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

    from mcpcost.measuring import MeasureOptions
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
        entry,
        make_measure(ContainerLauncher(client), MeasureOptions(now=lambda: NOW)),
        options,
        lambda: NOW,
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
    from mcpcost.measuring import MeasureOptions
    from mcpcost.sweep.measure_adapter import make_measure

    client, image, _ = engine
    entry = load_catalog("servers:\n  - name: t\n    command: uvx mcp-server-time\n").entries[0]
    real = make_measure(ContainerLauncher(client), MeasureOptions(now=lambda: NOW))
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
    from mcpcost.measuring import MeasureOptions, measure_server
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
    host = measure_server(
        ServerSpec.stdio("memory", host_server.argv), MeasureOptions(timeout_s=60)
    )
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


@pytest.mark.slow
@pytest.mark.podman
def test_npx_server_on_a_cold_shared_cache_volume_measures(
    engine: tuple[Any, str, str], tmp_path: Path
) -> None:
    """Both captures of an ``npx -y pkg@version`` entry share one npm cache volume, fresh and
    empty here: the second starts once the first has the server up, so the two never install
    the package into the same ``_npx`` folder at once (npm's ENOTEMPTY / ECOMPROMISED) and the
    entry measures on its first attempt, without the cold-cache retry."""
    from dataclasses import replace

    from mcpcost.measuring import MeasureOptions
    from mcpcost.measuring.containers.plans import NPM_CACHE_VOLUME
    from mcpcost.sweep.measure_adapter import make_measure
    from mcpcost.sweep.runner import run_sweep

    client, image, _ = engine
    ca_bundle = resolve_ca_bundle("auto", os.environ)
    if ca_bundle is None:
        pytest.skip("no host CA bundle to mount")
    reason = _npm_registry_unreachable()
    if reason is not None:
        pytest.skip(reason)
    entry = load_catalog(
        "servers:\n  - name: memory\n"
        "    command: npx -y @modelcontextprotocol/server-memory@2026.8.31\n"
    ).entries[0]
    fresh = f"{NPM_CACHE_VOLUME}-cold-{os.getpid()}-{time.monotonic_ns()}"
    answers = FirstAnswers()

    class Noting(ContainerLauncher):
        def open(self, plan: ContainerPlan) -> Any:
            return answers.around(lambda: super(Noting, self).open(plan))

    base = make_measure(Noting(client), MeasureOptions(now=lambda: NOW))
    seen: list[Job] = []

    def measure(job: Job) -> Measurement:
        # the sweep's own plan, its npm cache volume swapped for a fresh one of this test's
        seen.append(job)
        plan = job.container
        assert plan is not None
        volumes = {(fresh if n == NPM_CACHE_VOLUME else n): p for n, p in plan.volumes.items()}
        return base(replace(job, container=replace(plan, volumes=volumes)))

    lines: list[str] = []
    try:
        outcome = run_sweep(
            None,
            [entry],
            tmp_path,
            measure,
            SweepOptions(
                docker=True,
                concurrency=1,
                default_timeout_s=120,
                image_override=image,
                trust=HostTrust(ca_bundle=ca_bundle),
            ),
            clock=lambda: NOW,
            progress=lines.append,
            publish_pages=False,
        )
        assert outcome.statuses == {"memory": Status.MEASURED}, (
            lines,
            (tmp_path / "results" / "memory" / "measurement.json").read_text(),
        )
        assert len(seen) == 1 and seen[0].container is not None
        assert NPM_CACHE_VOLUME in seen[0].container.volumes  # the shared cache, not the retry
        # npm's install does not always race when both start together: the order is the check
        first_answer = answers.answered_ns[0]
        assert len(answers.opened_ns) == 2 and first_answer is not None
        assert answers.opened_ns[0] < first_answer < answers.opened_ns[1]
        assert _ours(client) == []
    finally:
        for volume in client.volumes.list(filters={"name": fresh}):
            volume.remove(force=True)


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
