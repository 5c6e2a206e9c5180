"""``mcpcost <command>``: a thin adapter over the library.

Results go to stdout (``--json`` for machines), progress and logs to stderr. Exit codes:
0 ok, 1 a check failed, 2 usage or unreadable input. Each command lives in its own module and is
imported only when run, so ``mcpcost count`` does not pay for the audit machinery.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn, TextIO, cast

from mcpcost.cli.interrupts import handling_interrupts
from mcpcost.cli.streams import safe_streams
from mcpcost.errors import EXIT_USAGE, InputError, OutputError, UsageError
from mcpcost.escaping.terminal import terminal_line
from mcpcost.runtime.process_exit import leave
from mcpcost.version import __version__

COMMANDS: dict[str, tuple[str, str]] = {
    "measure": ("mcpcost.cli.measure_cmd", "measure one MCP server (stdio command or URL)"),
    "audit": ("mcpcost.cli.audit_cmd", "measure every server in your MCP client configs"),
    "snapshot": (
        "mcpcost.cli.snapshot_cmd",
        "record your server's cost in a committed file; check changes and gates against it",
    ),
    "verify": ("mcpcost.cli.verify_cmd", "re-derive published measurement.json files"),
    "count": ("mcpcost.cli.count_cmd", "token count and sha256 of any JSON document"),
    "badge": ("mcpcost.cli.badge_cmd", "shields.io endpoint JSON for a measurement"),
    "sweep": ("mcpcost.cli.sweep_cmd", "measure a servers.yaml catalog (or a shard of it)"),
    "merge": ("mcpcost.cli.merge_cmd", "fold sweep shard outputs into one tree"),
    "publish": ("mcpcost.cli.publish_cmd", "regenerate leaderboard, history and pages"),
    "auth": ("mcpcost.cli.auth_cmd", "sign in to OAuth-protected servers; status; logout"),
    "serve": ("mcpcost.cli.serve_cmd", "an HTTP API that measures remote servers on demand"),
    "adoption": (
        "mcpcost.cli.adoption_cmd",
        "count the repositories that display this project's badge (GitHub code search)",
    ),
    "divergence": (
        "mcpcost.cli.divergence_cmd",
        "count measured tools with Claude's or OpenAI's API",
    ),
}


def _help() -> str:
    width = max(len(c) for c in COMMANDS)
    lines = [
        f"mcp-context-cost {__version__}: what MCP tool definitions cost in a model's context",
        "",
        "usage: mcpcost <command> [options]   (mcpcost <command> --help for details)",
        "",
        "commands:",
    ]
    lines += [f"  {name.ljust(width)}  {desc}" for name, (_, desc) in COMMANDS.items()]
    lines += ["", "exit codes: 0 ok, 1 a check failed, 2 usage or unreadable input"]
    return "\n".join(lines) + "\n"


def main(
    argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    """Run a command; returns the exit code.

    Both streams pass through the output boundary (``mcpcost.cli.streams``): untrusted text cannot
    reach the terminal, or a GitHub Actions log, as control sequences or workflow commands.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    safe_out, safe_err = safe_streams(stdout or sys.stdout, stderr or sys.stderr, dict(os.environ))
    try:
        return _main(args, cast(TextIO, safe_out), cast(TextIO, safe_err))
    finally:
        safe_out.finish()
        safe_err.finish()


def entry() -> NoReturn:
    """The ``mcpcost`` executable: run the command, then exit with its garbage collection
    made cheap (``runtime.process_exit``)."""
    leave(main())


def _main(args: list[str], out: TextIO, err: TextIO) -> int:
    if not args or args[0] in ("-h", "--help", "help"):
        out.write(_help())
        return 0
    if args[0] in ("-V", "--version"):
        out.write(f"mcp-context-cost {__version__}\n")
        return 0
    command = args[0]
    if command not in COMMANDS:
        from mcpcost.core.suggest import did_you_mean

        meant = did_you_mean(command, COMMANDS)
        hint = f"did you mean {meant!r}? " if meant else ""
        err.write(
            f"mcpcost: unknown command {command!r} (mcp-context-cost {__version__}); {hint}"
            f"commands: {', '.join(COMMANDS)}\n"
        )
        return EXIT_USAGE
    module = importlib.import_module(COMMANDS[command][0])
    try:
        with handling_interrupts() as caught:
            code: int = module.run(args[1:], out, err)
    except (UsageError, InputError, OutputError) as exc:
        err.write(f"{terminal_line(exc)}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        err.write("interrupted\n")
        caught.reported = True
        return caught.exit_code
    except BrokenPipeError:
        return 0
    except SystemExit as exc:  # argparse's --help
        return exc.code if isinstance(exc.code, int) else 0
    return code
