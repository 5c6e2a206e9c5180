"""Hostile entries of a loopback registry (``serve_loopback_registry``) swept through the offline
``npx``/``uvx`` shims: an entry that names another index, another package or runner options is
recorded ``other`` with the word in its reason and never launched, so is an image whose registry
host is an internal address, and an entry whose name slugs
to a file the published tree keeps is measured under another slug while the sweep publishes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.paths import ROOT
from tests.servers.package_entries import installed_npm, item, npm, pypi, write_shims
from tests.servers.registry import real_server_missing, serve_loopback_registry

MEMORY = "@modelcontextprotocol/server-memory"


def positional(*words: str) -> list[dict[str, Any]]:
    return [{"type": "positional", "value": w} for w in words]


def sweep(
    tmp_path: Path, items: list[dict[str, Any]], *more: str
) -> subprocess.CompletedProcess[str]:
    log = tmp_path / "launches.jsonl"
    write_shims(tmp_path / "bin", log)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env["PATH"] = f"{tmp_path / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    with serve_loopback_registry(0, packages=items) as base:
        argv = [
            sys.executable, "-m", "mcpcost", "sweep", "--registry", base,
            "--out", str(tmp_path / "site"),
            "--concurrency", "2", "--timeout", "30", *more,
        ]  # fmt: skip
        return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)


def records(site: Path) -> dict[str, dict[str, Any]]:
    return {
        d.name: json.loads((d / "measurement.json").read_text())
        for d in (site / "results").iterdir()
        if (d / "measurement.json").is_file()
    }


@pytest.mark.slow
def test_registry_entries_that_choose_their_source_are_refused_and_reserved_slugs_kept_apart(
    tmp_path: Path,
) -> None:
    missing = real_server_missing("memory")
    if missing is not None:
        pytest.skip(missing)
    version = installed_npm(MEMORY)
    hostile = {
        "io.example/other-registry": positional("--registry", "http://127.0.0.1:9/"),
        "io.example/other-package": positional("-p", "evil-pkg"),
        "io.example/dash-dash": positional("--", "evil-pkg"),
        "io.example/userconfig": positional("--userconfig=/tmp/npmrc"),
    }
    items = [
        item(name, packages=[npm(MEMORY, version, runtimeArguments=words)])
        for name, words in hostile.items()
    ]
    items.append(
        item(
            "io.example/other-index",
            packages=[pypi("mcp-server-time", "1.0", runtimeArguments=positional("--with", "x"))],
        )
    )
    # images from this machine or a cloud's metadata service (the sweep's policy: public only)
    images = {
        "io.example/loopback-image": "127.0.0.1/evil/server",
        "io.example/imds": "169.254.169.254/x/y",
    }
    for name, image in images.items():
        items.append(
            item(name, packages=[{"registryType": "oci", "identifier": image, "version": "1"}])
        )
    # the one entry launched also names variables for the launcher, not the server
    launcher_env = [
        "HTTPS_PROXY",
        "NODE_TLS_REJECT_UNAUTHORIZED",
        "SSL_CERT_FILE",
        "XDG_CONFIG_HOME",
    ]
    launcher_env += ["DOCKER_CONTEXT", "CONTAINER_HOST", "npm_config_registry"]
    variables = [{"name": n, "default": "http://127.0.0.1:9/"} for n in launcher_env]
    variables.append({"name": "MEMORY_FILE_PATH", "default": str(tmp_path / "memory.json")})
    items.append(
        item("history.csv", packages=[npm(MEMORY, version, environmentVariables=variables)])
    )
    items.append(item("index", status="deprecated"))
    items.append(item("data.json", status="deprecated"))
    done = sweep(tmp_path, items)
    assert done.returncode == 0, done.stderr
    site = tmp_path / "site"
    by_entry = {r["registryEntry"]["name"]: (slug, r) for slug, r in records(site).items()}
    for name, words in hostile.items():
        _, record = by_entry[name]
        assert record["status"] == "other"
        assert f"runtime argument {words[0]['value']!r}" in record["notes"]
    _, record = by_entry["io.example/other-index"]
    assert record["status"] == "other" and "runtime argument '--with'" in record["notes"]
    for name in images:
        _, record = by_entry[name]
        assert record["status"] == "other"
        assert "address, refused by the address policy" in record["notes"]
    # the one launch is the reserved-name entry's, exactly as its record names it
    launches = [json.loads(line) for line in (tmp_path / "launches.jsonl").read_text().splitlines()]
    assert {tuple(a) for a in launches} == {("npx", "-y", f"{MEMORY}@{version}")}
    slug, record = by_entry["history.csv"]
    assert slug != "history.csv" and record["status"] == "measured"
    assert record["envVarNames"] == ["MEMORY_FILE_PATH"]
    assert by_entry["index"][0] != "index" and by_entry["data.json"][0] != "data.json"
    # the tree's own files were published where they belong
    assert (site / "results" / "history.csv").is_file()
    assert (site / "results" / "data.json").is_file()
    assert (site / "docs" / "servers" / "index.md").is_file()
