"""Starting one container per capture through the ``docker`` SDK, with a transport over its stdio.

``ContainerLauncher.open(plan)`` creates the container, attaches to its stdio, starts it and
returns a ``LineTransport``; closing that transport kills and removes the container and waits for
the removal. From its creation until its removal the container is in the registry of live
launches (``runtime.processes``), so an interrupt removes it too, and once the command is
being interrupted no new container is created.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
from collections.abc import Callable
from typing import IO, Any

from mcpcost.core.spec import TransportName
from mcpcost.measuring.containers.attach_stream import Attachment, StdinWriter, demultiplex
from mcpcost.measuring.containers.plans import ContainerPlan
from mcpcost.runtime.processes import LIVE, LiveTrees, OtherLaunch
from mcpcost.transports.failures import SpawnFailed
from mcpcost.transports.framing import LineTransport

REFUSED = "not starting a server: the command is being interrupted"

REMOVE_TIMEOUT_S = 20
READER_JOIN_S = 5.0
ATTACH_PARAMS = {"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}


def container_name(prefix: str, index: int) -> str:
    """A name unique to this process and capture, so parallel sweeps never collide."""
    return f"{prefix}-{os.getpid()}-{secrets.randbelow(1_000_000)}-{index}"


class ContainerLauncher:
    """Starts one container per capture and returns a transport over its attached stdio.

    The launcher does not own the client; whoever made it closes it (``closing_client``).
    """

    def __init__(self, client: Any, registry: LiveTrees = LIVE) -> None:
        self._client = client
        self._registry = registry
        self._count = 0
        self._lock = threading.Lock()

    def open(self, plan: ContainerPlan) -> LineTransport:
        if self._registry.closed:
            raise SpawnFailed(f"spawn failed: {REFUSED}")
        with self._lock:
            self._count += 1
            index = self._count
        container = self._client.containers.create(
            image=plan.image,
            command=["sh", "-lc", plan.shell_command],
            name=container_name(plan.name_prefix, index),
            stdin_open=True,
            tty=False,
            environment=dict(plan.environment),
            volumes=_mounts(plan),
            mem_limit=plan.memory,
            pids_limit=plan.pids_limit,
            security_opt=list(plan.security_opt),
            working_dir=plan.working_dir,
            network_mode=plan.network,
        )
        launch = OtherLaunch(
            name=str(getattr(container, "name", container.id)),
            stop=lambda: _remove(container),
            kill=lambda: _kill(container),
        )
        if not self._registry.add_other(launch):  # the interrupt came while it was created
            _remove(container)
            raise SpawnFailed(f"spawn failed: {REFUSED}")
        attachment: Attachment | None = None
        try:
            attachment = Attachment(
                self._client.api.attach_socket(container.id, params=ATTACH_PARAMS)
            )
            container.start()
        except BaseException:
            if attachment is not None:
                attachment.close()
            _remove(container)
            self._registry.discard_other(launch)
            raise
        return _transport(container, attachment, lambda: self._registry.discard_other(launch))


def _mounts(plan: ContainerPlan) -> dict[str, dict[str, str]]:
    """Named cache volumes read-write, host paths (the CA bundle, server files) read-only."""
    mounts = {name: {"bind": path, "mode": "rw"} for name, path in plan.volumes.items()}
    mounts.update({host: {"bind": path, "mode": "ro"} for host, path in plan.binds.items()})
    return mounts


def _transport(container: Any, attachment: Attachment, forget: Callable[[], None]) -> LineTransport:
    """A transport over a started container's attach stream; closing it removes the container
    (and then ``forget`` takes it out of the registry)."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    reader = threading.Thread(target=demultiplex, args=(attachment.sock, out_w, err_w), daemon=True)
    reader.start()
    stdout: IO[bytes] = os.fdopen(out_r, "rb", buffering=0)
    stderr: IO[bytes] = os.fdopen(err_r, "rb", buffering=0)
    removed = threading.Event()

    def terminate() -> None:
        if removed.is_set():
            return
        removed.set()
        try:
            _remove(container)
            forget()
        finally:
            attachment.shutdown()
            reader.join(timeout=READER_JOIN_S)
            attachment.close()

    def exit_code() -> int | None:
        try:
            container.reload()
        except Exception:
            return None
        state = container.attrs.get("State") or {}
        if state.get("Running"):
            return None
        code = state.get("ExitCode")
        return code if isinstance(code, int) else None

    return LineTransport(
        stdout,
        StdinWriter(attachment.sock),  # type: ignore[arg-type]
        stderr,
        terminate=terminate,
        exit_code=exit_code,
        kind=TransportName.DOCKER,
    )


def _kill(container: Any) -> None:
    """Ask the engine to kill a container now (the interrupt's last resort; no waiting)."""
    with contextlib.suppress(Exception):
        container.kill()
    with contextlib.suppress(Exception):
        container.remove(force=True)


def _remove(container: Any) -> None:
    """Kill and remove a container, waiting for the removal to finish."""
    with contextlib.suppress(Exception):
        container.kill()
    with contextlib.suppress(Exception):
        container.wait(timeout=REMOVE_TIMEOUT_S)
    with contextlib.suppress(Exception):
        container.remove(force=True)
