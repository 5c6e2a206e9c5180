"""Podman for tests: is it usable, and a Docker-compatible API socket that tests can point at.

``scripts/setup-podman.sh`` installs podman and builds ``BASE_IMAGE`` and the prebuilt Action
runtime ``prebuilt_image()`` (Dockerfile.base on the base, tagged with a key of the files its
build reads). ``podman_unavailable()`` says why containers cannot run (``None`` when they can).
``ensure_prebuilt_image()`` returns the prebuilt tag, running the setup script (without
installing packages) when the image is missing, so a dependency change is picked up.
``podman_service(sock)`` starts ``podman system service --time=0 unix://<sock>``, yields the
``DOCKER_HOST`` value and stops the service by its PID. ``docker_host`` in
``conftest_plugin.py`` wraps it as a session fixture that skips cleanly without podman.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
BASE_IMAGE = "localhost/mcpcost-base:bookworm"
PREBUILT_REPO = "localhost/mcpcost-prebuilt"
SETUP_SCRIPT = ROOT / "scripts" / "setup-podman.sh"
SETUP_HINT = "run scripts/setup-podman.sh"
# What Dockerfile.base's build reads, in the order setup-podman.sh hashes them.
PREBUILT_INPUTS = ("pyproject.toml", "Dockerfile.base", "scripts/image-deps.sh")


def prebuilt_image(root: Path = ROOT) -> str:
    """The prebuilt runtime's tag for this checkout (same key as ``setup-podman.sh``)."""
    digest = hashlib.sha256(b"".join((root / name).read_bytes() for name in PREBUILT_INPUTS))
    return f"{PREBUILT_REPO}:{digest.hexdigest()[:12]}"


def image_exists(image: str) -> bool:
    exe = shutil.which("podman")
    if exe is None:
        return False
    done = subprocess.run([exe, "image", "exists", image], capture_output=True, timeout=60)
    return done.returncode == 0


_BUILD_FAILURES: dict[str, str] = {}


def ensure_prebuilt_image(timeout: float = 1200.0) -> str:
    """The prebuilt tag, built by ``setup-podman.sh --no-install`` first when it is missing.

    Raises ``RuntimeError`` with the script's last lines when it cannot be built (once per
    session: a second caller gets the same error without another attempt).
    """
    image = prebuilt_image()
    if image in _BUILD_FAILURES:
        raise RuntimeError(_BUILD_FAILURES[image])
    if image_exists(image):
        return image
    done = subprocess.run(
        ["bash", str(SETUP_SCRIPT), "--no-install"],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if not image_exists(image):
        tail = "\n".join((done.stderr + done.stdout).strip().splitlines()[-15:])
        _BUILD_FAILURES[image] = f"{image} could not be built:\n{tail}"
        raise RuntimeError(_BUILD_FAILURES[image])
    return image


@cache
def podman_unavailable() -> str | None:
    """Why podman containers cannot run here, or ``None`` when podman and the base image work."""
    exe = shutil.which("podman")
    if exe is None:
        return f"podman is not installed ({SETUP_HINT})"
    try:
        info = subprocess.run([exe, "info"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"podman info failed: {exc}"
    if info.returncode != 0:
        lines = (info.stderr or info.stdout).strip().splitlines()
        return f"podman info failed: {lines[-1] if lines else info.returncode}"
    exists = subprocess.run([exe, "image", "exists", BASE_IMAGE], capture_output=True, timeout=60)
    if exists.returncode != 0:
        return f"base image {BASE_IMAGE} is missing ({SETUP_HINT})"
    return None


def _socket_answers(path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(1.0)
        try:
            s.connect(str(path))
            s.sendall(b"GET /_ping HTTP/1.0\r\nHost: d\r\n\r\n")
            return s.recv(12).startswith(b"HTTP/1.")
        except OSError:
            return False


@contextlib.contextmanager
def podman_service(sock: Path | None = None, timeout: float = 30.0) -> Iterator[str]:
    """Run the Docker-compatible podman API on a unix socket; yields ``unix://<path>``.

    The service is started in its own process group and stopped by PID (SIGTERM, then SIGKILL)
    when the block exits. Raises ``RuntimeError`` when it does not come up within ``timeout``.
    """
    exe = shutil.which("podman")
    if exe is None:
        raise RuntimeError(f"podman is not installed ({SETUP_HINT})")
    tmpdir: str | None = None
    if sock is None:
        tmpdir = tempfile.mkdtemp(prefix="mcpcost-podman-")
        sock = Path(tmpdir) / "podman.sock"
    url = f"unix://{sock}"
    proc = subprocess.Popen(
        [exe, "system", "service", "--time=0", url],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + timeout
        while not (sock.exists() and _socket_answers(sock)):
            if proc.poll() is not None:
                err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
                raise RuntimeError(f"podman system service exited {proc.returncode}: {err[-500:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"podman system service did not answer on {sock} in {timeout}s")
            time.sleep(0.05)
        yield url
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        if proc.stderr is not None:
            proc.stderr.close()
        with contextlib.suppress(FileNotFoundError):
            sock.unlink()
        if tmpdir is not None:
            with contextlib.suppress(OSError):
                os.rmdir(tmpdir)


def containers_of_this_process(client: Any) -> list[Any]:
    """The containers this test process made (their names carry our PID; other sweeps may be
    running), listed sparse: a full listing inspects every container, and podman answers 500 for
    one removed between the list and its inspection, which a test about containers ending meets.
    ``reload()`` one before reading its full attributes."""
    mine = f"-{os.getpid()}-"
    found = []
    for c in client.containers.list(all=True, sparse=True):
        names = [str(n).lstrip("/") for n in c.attrs.get("Names") or ()]
        if any(n.startswith("mcp-ctx-") and mine in n for n in names):
            found.append(c)
    return found
