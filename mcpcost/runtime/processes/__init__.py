"""The platform layer for server processes: one interface, one implementation per system.

* ``platform_api``  ``ProcessPlatform`` (resolve, start, stop, kill, alive) and ``ProcessTree``
* ``posix``         what Linux and macOS share: new session, process-group signals, pipe ends
* ``linux``         group members from ``/proc``
* ``macos``         group members from ``ps``; GUI apps' PATH
* ``windows``       Job Objects, PATHEXT resolution, ``cmd /c`` quoting
* ``live_trees``    every live tree, so an interrupt can stop them all

Nothing outside this package calls ``os.killpg``, reads ``/proc`` or asks for a new session
(a test scans for it). ``current_platform()`` is the implementation for the running system.
"""

from __future__ import annotations

import sys
from functools import cache

from mcpcost.runtime.processes.live_trees import (
    LIVE,
    LiveTrees,
    OtherLaunch,
    kill_every_tree,
    start_tree,
    stop_every_tree,
    stop_tree,
)
from mcpcost.runtime.processes.platform_api import (
    CommandResolution,
    ProcessPlatform,
    ProcessTree,
    ReadableEnd,
    StartRefused,
)

__all__ = [
    "LIVE",
    "CommandResolution",
    "LiveTrees",
    "OtherLaunch",
    "ProcessPlatform",
    "ProcessTree",
    "ReadableEnd",
    "StartRefused",
    "current_platform",
    "kill_every_tree",
    "platform_for",
    "start_tree",
    "stop_every_tree",
    "stop_tree",
]


def platform_for(system: str) -> ProcessPlatform:
    """The implementation for a ``sys.platform`` value (``linux``, ``darwin``, ``win32``)."""
    if system == "win32":
        from mcpcost.runtime.processes.windows import WindowsPlatform

        return WindowsPlatform()
    if system == "darwin":
        from mcpcost.runtime.processes.macos import MacPlatform

        return MacPlatform()
    from mcpcost.runtime.processes.linux import LinuxPlatform

    return LinuxPlatform()


@cache
def current_platform() -> ProcessPlatform:
    return platform_for(sys.platform)
