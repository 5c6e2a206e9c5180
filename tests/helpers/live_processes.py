"""Live processes found by a tag in their command line, through the platform layer's own scan
(Linux: ``/proc``), so a test can tell whether a server it started is still running."""

from __future__ import annotations

from mcpcost.runtime.processes.linux import LinuxPlatform


def tagged(tag: str) -> set[int]:
    """Pids of live processes whose command line contains ``tag``."""
    return {pid for pid, _, cmd in LinuxPlatform().processes() if tag in cmd}
