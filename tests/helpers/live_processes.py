"""Live processes found by a tag in their command line or by their parent, through the
platform layer's own scan (Linux: ``/proc``; zombies are not live), so a test can tell whether
a process it started, or one that started, is still running."""

from __future__ import annotations

from mcpcost.runtime.processes.linux import LinuxPlatform


def tagged(tag: str) -> set[int]:
    """Pids of live processes whose command line contains ``tag``."""
    return {pid for pid, _, cmd in LinuxPlatform().processes() if tag in cmd}


def children_of(parent: int, containing: str = "") -> set[int]:
    """Pids of the live children of ``parent`` whose command line contains ``containing``."""
    return {
        pid
        for pid, ppid, cmd in LinuxPlatform().processes()
        if ppid == parent and containing in cmd
    }


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process."""
    return any(p == pid for p, _, _ in LinuxPlatform().processes())
