"""Container isolation for sweeps on values alone: plans that follow the launcher and record what
was done, the frame demultiplexer, the cold-cache retry, and host trust (the CA bundle and proxy
settings a container gets, and the one-line errors when they are wrong)."""

from __future__ import annotations

import os
import socket
import struct
import threading
from pathlib import Path
from typing import Any

import pytest

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
    HostTrust,
    demultiplex,
    host_proxy,
    resolve_ca_bundle,
)
from mcpcost.sweep.catalog import load_catalog
from mcpcost.sweep.isolation import plan_container
from mcpcost.sweep.runner import (
    COLD_RETRY_PREFIX,
    NOTES_MAX,
    Job,
    SweepOptions,
    measure_entry,
    plan_job,
)
from tests.helpers.container_catalog import NOW, E


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


def test_cold_cache_retry_that_fails_the_same_way_keeps_the_first_with_both_notes() -> None:
    measure, seen = _fake([Status.STARTUP_FAILURE, Status.STARTUP_FAILURE])
    m = measure_entry(E["npx-thing"], measure, SweepOptions(docker=True), lambda: NOW)
    assert len(seen) == 2
    assert m.notes == COLD_RETRY_PREFIX + "first attempt: attempt 1; retry: attempt 2"
    assert m.isolation is not None and m.isolation.note is not None
    assert "bypassed" not in m.isolation.note
    assert m.timeout_ms == int(seen[0].timeout_s * 1000)  # the first attempt's record


def test_cold_cache_retry_notes_carry_both_long_failures_masked_within_the_limit() -> None:
    """Each attempt's stderr (the retry's echoing the proxy's credentials) reaches the notes:
    the start of each, masked, and the whole within NOTES_MAX."""
    trust = HostTrust(proxy=host_proxy(PROXY_ENV))
    said = [
        "npm error code ENOTEMPTY rename /cache/_npx/1 " + "a" * 900 + " FIRST-END",
        f"npm error code ECOMPROMISED via {PROXY_ENV['HTTPS_PROXY']} " + "b" * 900,
    ]
    seen: list[Job] = []

    def measure(job: Job) -> Measurement:
        seen.append(job)
        return Measurement(
            status=Status.STARTUP_FAILURE,
            server_name=job.entry.name,
            launch_command="wrapped",
            measured_at="2026-09-01T12:00:00.000Z",
            timeout_ms=int(job.timeout_s * 1000),
            isolation=job.isolation,
            notes=said[len(seen) - 1],
        )

    options = SweepOptions(docker=True, trust=trust)
    m = measure_entry(E["npx-thing"], measure, options, lambda: NOW)
    assert len(seen) == 2 and m.notes is not None and len(m.notes) <= NOTES_MAX
    assert m.notes.startswith(COLD_RETRY_PREFIX + "first attempt: npm error code ENOTEMPTY")
    assert "; retry: npm error code ECOMPROMISED via " in m.notes
    assert m.notes.count("…") == 2 and "FIRST-END" not in m.notes
    assert "a" * 200 in m.notes and "b" * 200 in m.notes  # room shared, not all to one
    for secret in trust.secret_values:
        assert secret not in m.notes
    short = measure_entry(
        E["npx-thing"],
        _fake([Status.STARTUP_FAILURE, Status.STARTUP_FAILURE])[0],
        options,
        lambda: NOW,
    )
    assert short.notes is not None and short.notes.endswith("; retry: attempt 2")


@pytest.mark.parametrize("name,docker", [("npx-thing", False), ("self-docker", True)])
def test_no_cold_cache_retry_on_host_or_self_docker(name: str, docker: bool) -> None:
    measure, seen = _fake([Status.STARTUP_FAILURE, Status.MEASURED])
    m = measure_entry(E[name], measure, SweepOptions(docker=docker), lambda: NOW)
    assert len(seen) == 1 and m.status is Status.STARTUP_FAILURE and m.notes == "attempt 1"


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
