"""Every server tree this process has started and not yet stopped, so an interrupt can end them.

``start_tree`` registers a tree, ``stop_tree`` unregisters it. On the interrupt path
``stop_every_tree`` (and ``kill_every_tree``, which does not wait) closes the registry, so every
later start is refused with ``StartRefused``, and stops all the live trees at once. Trees still registered
when the interpreter exits are killed.

A server that runs somewhere else (a container the engine runs for ``--docker``) is registered as
an ``OtherLaunch``: how to stop it and how to kill it. The interrupt and exit paths end those too,
each on its own thread and within a bound, since ending one means asking the engine.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from mcpcost.runtime.processes.platform_api import ProcessPlatform, ProcessTree, StartRefused

INTERRUPT_GRACE_S = 0.5
OTHER_KILL_WAIT_S = 0.5  # the longest the kill path waits for the engine to end other launches
Live = TypeVar("Live")


@dataclass(frozen=True, eq=False, slots=True)
class OtherLaunch:
    """A live server that is not a process tree of ours: ``stop`` ends it and waits, ``kill``
    asks for it to end now."""

    name: str
    stop: Callable[[], None]
    kill: Callable[[], None]


class LiveTrees:
    """A thread-safe set of started, not yet stopped trees (and other launches) that can be
    closed to new ones."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._trees: dict[int, ProcessTree] = {}
        self._others: dict[int, OtherLaunch] = {}
        self._closed = False

    def add(self, tree: ProcessTree) -> bool:
        """Register a tree; False (nothing registered) once the registry is closed."""
        return self._put(self._trees, tree)

    def discard(self, tree: ProcessTree) -> None:
        self._drop(self._trees, tree)

    def snapshot(self) -> list[ProcessTree]:
        return self._copy(self._trees)

    def add_other(self, launch: OtherLaunch) -> bool:
        """Register a launch; False (nothing registered) once the registry is closed."""
        return self._put(self._others, launch)

    def discard_other(self, launch: OtherLaunch) -> None:
        self._drop(self._others, launch)

    def others(self) -> list[OtherLaunch]:
        return self._copy(self._others)

    def _put(self, table: dict[int, Live], item: Live) -> bool:
        with self._lock:
            if self._closed:
                return False
            table[id(item)] = item
            return True

    def _drop(self, table: dict[int, Live], item: Live) -> None:
        with self._lock:
            table.pop(id(item), None)

    def _copy(self, table: dict[int, Live]) -> list[Live]:
        with self._lock:
            return list(table.values())

    def close(self) -> list[ProcessTree]:
        with self._lock:
            self._closed = True
            return list(self._trees.values())

    @property
    def closed(self) -> bool:
        return self._closed


LIVE = LiveTrees()


def _kill_left_over_trees() -> None:
    """At interpreter exit: no server tree outlives the process that started it, even one a
    caller forgot to close."""
    for tree in LIVE.snapshot():
        try:
            tree.platform.kill(tree)
        except OSError:
            continue
    _end_others([launch.kill for launch in LIVE.others()], OTHER_KILL_WAIT_S)


def _end_others(calls: list[Callable[[], None]], wait_s: float) -> None:
    """Run each call on a thread of its own and wait for them all, at most ``wait_s``."""
    threads = [
        threading.Thread(target=_quietly, args=(call,), daemon=True, name="mcpcost-end-launch")
        for call in calls
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=wait_s)


def _quietly(call: Callable[[], None]) -> None:
    try:
        call()
    except Exception:  # an engine that cannot be reached: nothing more can be done from here
        return


atexit.register(_kill_left_over_trees)


def start_tree(
    platform: ProcessPlatform,
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: str | None,
    registry: LiveTrees = LIVE,
) -> ProcessTree:
    """Start ``argv`` on ``platform`` and register the tree (refused once interrupted)."""
    if registry.closed:
        raise StartRefused("not starting a server: the command is being interrupted")
    tree = platform.start(argv, env=env, cwd=cwd)
    if not registry.add(tree):  # the interrupt came while it was starting
        platform.kill(tree)
        platform.stop(tree, 0.0)
        raise StartRefused("not starting a server: the command is being interrupted")
    return tree


def stop_tree(tree: ProcessTree, grace_s: float, *, registry: LiveTrees = LIVE) -> None:
    """Stop the whole tree (see ``ProcessPlatform.stop``) and forget it."""
    try:
        tree.platform.stop(tree, grace_s)
    finally:
        registry.discard(tree)


def kill_every_tree(registry: LiveTrees = LIVE) -> int:
    """Force every registered tree to end now (no waiting); returns how many there were."""
    trees = registry.close()
    for tree in trees:
        try:
            tree.platform.kill(tree)
        except OSError:
            continue
    others = registry.others()
    _end_others([launch.kill for launch in others], OTHER_KILL_WAIT_S)
    return len(trees) + len(others)


def stop_every_tree(grace_s: float = INTERRUPT_GRACE_S, *, registry: LiveTrees = LIVE) -> int:
    """Refuse new trees and stop every registered one, all at once, within about ``grace_s``
    plus the reap wait; returns how many there were."""
    trees = registry.close()
    threads = [
        threading.Thread(
            target=stop_tree,
            args=(t, grace_s),
            kwargs={"registry": registry},
            daemon=True,
            name="mcpcost-stop-tree",
        )
        for t in trees
    ]
    for t in threads:
        t.start()
    others = registry.others()
    _end_others([launch.stop for launch in others], grace_s + 2.0)
    for t in threads:
        t.join(timeout=grace_s + 2.0)
    return len(trees) + len(others)
