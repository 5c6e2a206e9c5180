"""The package as users install it: the sdist and wheel the release workflow builds, the wheel
installed into a fresh virtual environment (no editable install, no checkout on ``sys.path``)
and its ``mcpcost`` console script auditing the bundled example.

Tests never reach the network, so the build runs without isolation (this environment's
setuptools, from the ``test`` extra) and the wheel's dependencies are not downloaded: the
distributions its metadata requires, resolved from what this environment has installed, are
copied file by file into the fresh environment, as pip would lay them out. A dependency the
code imports but the metadata does not declare is then missing there: every module of the
package is imported in the fresh environment.
"""

from __future__ import annotations

import importlib.metadata as metadata
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from mcpcost.version import __version__
from tests.helpers.paths import ROOT

SOURCE_FILES = ("pyproject.toml", "README.md", "LICENSE")
WHEEL = f"mcp_context_cost-{__version__}-py3-none-any.whl"
SDIST = f"mcp_context_cost-{__version__}.tar.gz"


def _bin(venv: Path, name: str) -> Path:
    if os.name == "nt":
        return venv / "Scripts" / f"{name}.exe"
    return venv / "bin" / name


def _run(argv: list[str | Path], **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in argv],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        **kwargs,  # type: ignore[call-overload]
    )


def required_distributions(requires: list[str]) -> list[metadata.Distribution]:
    """The installed distributions ``requires`` needs (no extras), and theirs, each once."""
    found: dict[str, metadata.Distribution] = {}
    pending = list(requires)
    while pending:
        req = Requirement(pending.pop())
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        key = canonicalize_name(req.name)
        if key in found:
            continue
        dist = metadata.distribution(req.name)
        assert req.specifier.contains(dist.version, prereleases=True), (req, dist.version)
        found[key] = dist
        pending.extend(dist.requires or [])
    return list(found.values())


def copy_distribution(dist: metadata.Distribution, site: Path) -> int:
    """Copy an installed distribution's files (its RECORD) into ``site``; scripts and caches
    outside the package are left behind. Returns the number of files copied."""
    copied = 0
    for rel in dist.files or []:
        parts = Path(str(rel)).parts
        if not parts or parts[0] == ".." or "__pycache__" in parts:
            continue
        src = Path(str(dist.locate_file(rel)))
        if not src.is_file():
            continue
        dest = site.joinpath(*parts)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)
        copied += 1
    return copied


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``python -m build`` over a copy of what the sdist is made of: the sdist, then the wheel
    built from the unpacked sdist (so the sdist must hold everything the wheel needs)."""
    work = tmp_path_factory.mktemp("build")
    src = work / "src"
    src.mkdir()
    for name in SOURCE_FILES:
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "mcpcost", src / "mcpcost", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    dist = work / "dist"
    proc = _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, src])
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "`project.license` as a TOML table is deprecated" not in proc.stdout + proc.stderr
    return dist


def test_build_makes_one_sdist_and_one_wheel_with_the_package_data(built: Path) -> None:
    assert sorted(p.name for p in built.iterdir()) == sorted([SDIST, WHEEL])
    with zipfile.ZipFile(built / WHEEL) as wheel:
        names = set(wheel.namelist())
        meta = wheel.read(f"mcp_context_cost-{__version__}.dist-info/METADATA").decode()
        entry_points = wheel.read(f"mcp_context_cost-{__version__}.dist-info/entry_points.txt")
    for data in (
        "mcpcost/core/data/o200k_base.ranks",
        "mcpcost/templates/dashboard.html.j2",
        "mcpcost/schemas/audit-report.schema.json",
        "mcpcost/py.typed",
    ):
        assert data in names, data
    assert not any(n.startswith(("tests/", "examples/")) or "__pycache__" in n for n in names)
    assert "Name: mcp-context-cost" in meta and "License-Expression: MIT" in meta
    assert b"mcpcost = mcpcost.cli:entry" in entry_points


@pytest.mark.slow
def test_wheel_in_a_fresh_venv_audits_the_bundled_example(built: Path, tmp_path: Path) -> None:
    venv = tmp_path / "fresh"
    made = _run([sys.executable, "-m", "venv", "--without-pip", venv])
    assert made.returncode == 0, made.stderr
    python = _bin(venv, "python")
    installed = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            python,
            "install",
            "--no-index",
            "--no-deps",
            "--disable-pip-version-check",
            built / WHEEL,
        ]
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    site = Path(
        _run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]
        ).stdout.strip()
    )
    with zipfile.ZipFile(built / WHEEL) as wheel:
        meta = wheel.read(f"mcp_context_cost-{__version__}.dist-info/METADATA").decode()
    requires = re.findall(r"^Requires-Dist: (.+)$", meta, re.M)
    deps = required_distributions(requires)
    for dist in deps:
        assert copy_distribution(dist, site) > 0, dist.metadata["Name"]

    # a user's shell: the fresh environment's bin first, nothing of this checkout importable
    work = tmp_path / "user"
    shutil.copytree(ROOT / "examples", work / "examples")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSTARTUP")
    }
    env.update(
        PATH=f"{python.parent}{os.pathsep}{env.get('PATH', '')}",
        HOME=str(tmp_path / "home"),
        PYTHONNOUSERSITE="1",
    )
    where = _run(
        [python, "-c", "import sys, mcpcost; print(mcpcost.__file__); print(*sys.path, sep='\\n')"],
        cwd=work,
        env=env,
    )
    assert where.returncode == 0, where.stderr
    module, *path = where.stdout.splitlines()
    assert Path(module).is_relative_to(site)
    assert not any(p and Path(p).resolve().is_relative_to(ROOT) for p in path), path

    audit = _run(
        [_bin(venv, "mcpcost"), "audit", "--config", "examples/demo/mcp.json"], cwd=work, env=env
    )
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "Traceback" not in audit.stderr
    # both demo servers measured, with the numbers the README shows
    assert re.search(r"^\s*notes\s+3\s+207\b", audit.stdout, re.M), audit.stdout
    assert re.search(r"^\s*notes-heavy\s+4\s+579\b", audit.stdout, re.M), audit.stdout
    # every module imports with only the declared dependencies beside it
    every = _run(
        [
            python,
            "-c",
            "import pkgutil, importlib, mcpcost\n"
            "names = [m.name for m in pkgutil.walk_packages(mcpcost.__path__, 'mcpcost.')\n"
            "         if m.name != 'mcpcost.__main__']\n"
            "for name in names: importlib.import_module(name)\n"
            "print(len(names))",
        ],
        cwd=work,
        env=env,
    )
    assert every.returncode == 0, every.stderr
    assert int(every.stdout) > 100
    version = _run([_bin(venv, "mcp-context-cost"), "--version"], cwd=work, env=env)
    assert version.returncode == 0 and __version__ in version.stdout
