"""Run ``mcpcost`` and stop it at a named instant, so a test can kill a real process there.

    python -m tests.helpers.crash_points POINT mcpcost-arguments...

The process says ``mcpcost: paused at POINT`` on stderr and sleeps until it is killed. The points
are reached from outside the package, by wrapping the functions whose boundaries they are (the
shipped modules carry no test hook):

* ``measuring``        a sweep has taken its snapshot and is about to measure
* ``result-staged``    the first result is staged under the tree's pending directory
                       (``result-staged@N``: the Nth; with ``--concurrency 1`` nothing else is
                       measured meanwhile, so exactly N entries are done)
* ``staged``           every result and page is staged; the commit is next
* ``journal-written``  the commit's journal is on disk (the commit point); nothing moved yet
* ``mid-commit``       the first staged file has been renamed into the tree
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

POINTS = ("measuring", "result-staged", "staged", "journal-written", "mid-commit")


def pause(point: str) -> None:
    sys.stderr.write(f"mcpcost: paused at {point}\n")
    sys.stderr.flush()
    while True:
        time.sleep(3600)


def before(point: str, call: Callable[..., Any]) -> Callable[..., Any]:
    def paused(*args: Any, **kwargs: Any) -> Any:
        pause(point)
        return call(*args, **kwargs)

    return paused


def after(point: str, call: Callable[..., Any], calls: int = 1) -> Callable[..., Any]:
    made = [0]

    def paused(*args: Any, **kwargs: Any) -> Any:
        result = call(*args, **kwargs)
        made[0] += 1
        if made[0] == calls:
            pause(point)
        return result

    return paused


def install(point: str, calls: int = 1) -> None:
    """Wrap the boundary where ``point`` is (``calls``: at its how-manieth crossing)."""
    from mcpcost.runtime import output_tree
    from mcpcost.sweep import runner

    if point == "measuring":
        runner.measure_all = before(point, runner.measure_all)  # type: ignore[assignment]
    elif point == "result-staged":
        runner.persist = after(point, runner.persist, calls)  # type: ignore[assignment]
    elif point == "staged":
        output_tree.TreeTransaction.commit = before(point, output_tree.TreeTransaction.commit)  # type: ignore[method-assign]
    else:  # inside the commit
        commit, roll_forward, rename = (
            output_tree.TreeTransaction.commit,
            output_tree.roll_forward,
            os.replace,
        )
        state = {"committing": False, "moving": False}

        def commit_noted(txn: output_tree.TreeTransaction) -> None:
            state["committing"] = True
            commit(txn)

        def roll_forward_noted(root: Any) -> int:
            # open_tree's recovery calls it too; only the commit's call, after its journal
            if state["committing"]:
                if point == "journal-written":
                    pause(point)
                state["moving"] = True
            return roll_forward(root)

        def rename_noted(*args: Any, **kwargs: Any) -> None:
            rename(*args, **kwargs)
            if state["moving"] and point == "mid-commit":
                pause(point)

        output_tree.TreeTransaction.commit = commit_noted  # type: ignore[method-assign]
        output_tree.roll_forward = roll_forward_noted
        os.replace = rename_noted


def main() -> None:
    spelled, *argv = sys.argv[1:]
    point, _, count = spelled.partition("@")
    if point not in POINTS:
        raise SystemExit(f"unknown point {point!r}; one of {', '.join(POINTS)}")
    install(point, int(count or 1))
    sys.argv = ["mcpcost", *argv]
    from mcpcost.cli import entry

    entry()


if __name__ == "__main__":
    main()
