"""The flags of ``mcpcost audit`` (what each means is in its help, and in docs/AUDIT.md)."""

from __future__ import annotations

import argparse

from mcpcost.audit.compose import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT_S
from mcpcost.cli.args import ArgParser, non_negative_int, positive_float, positive_int
from mcpcost.cli.auth_cmd import add_login_arguments
from mcpcost.cli.container_args import add_container_arguments
from mcpcost.configs.clients import KNOWN_CLIENTS
from mcpcost.core.suggest import did_you_mean
from mcpcost.errors import UsageError


def non_negative_float(text: str) -> float:
    """A finite number >= 0 (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text!r}") from None
    if not (0 <= value < float("inf")):
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text!r}")
    return value


def client_names(values: list[str], prog: str = "mcpcost audit") -> list[str]:
    """The clients ``--client`` names: each value may be a comma list (``cursor,codex``).

    An unknown name is a usage error naming the client it most likely meant."""
    names = [n.strip() for v in values for n in v.split(",") if n.strip()]
    for name in names:
        if name not in KNOWN_CLIENTS:
            meant = did_you_mean(name, KNOWN_CLIENTS)
            hint = f"; did you mean {meant!r}?" if meant else ""
            raise UsageError(
                f"{prog}: unknown client {name!r}{hint} (known clients: {', '.join(KNOWN_CLIENTS)})"
            )
    return list(dict.fromkeys(names))


def build_parser() -> ArgParser:
    p = ArgParser(
        prog="mcpcost audit",
        description="Measure every server in your MCP client configs; report per client "
        "session (the files one client loads together), or per config file with --by-file.",
    )
    p.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="PATH",
        help="a config file to audit instead of discovery (repeatable)",
    )
    p.add_argument(
        "--client",
        action="append",
        default=[],
        metavar="NAME[,NAME]",
        help="only discover these clients (repeatable, or a comma list): "
        f"{', '.join(KNOWN_CLIENTS)}",
    )
    p.add_argument(
        "--trust-project",
        action="store_true",
        help="launch every server of this directory's project configs (.mcp.json, "
        ".vscode/mcp.json...); without it mcpcost starts only the ones their client would "
        "start unasked (a --config file always runs)",
    )
    p.add_argument(
        "--list-configs", action="store_true", help="print the configs found, launch nothing"
    )
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="the report as one JSON object")
    fmt.add_argument("--markdown", action="store_true", help="the report as Markdown")
    p.add_argument(
        "--by-file",
        action="store_true",
        help="one block per config file instead of per client session (text, Markdown)",
    )
    p.add_argument(
        "--details",
        action="store_true",
        help="the text report with every part (full deferral verdicts, heaviest tools, the "
        "column legend), not only the overview and each session's figures",
    )
    p.add_argument(
        "--budget",
        type=positive_int,
        metavar="N",
        help="fail when any client session (the files one client loads together) loads more "
        "than N tokens up front on every request (what its client does not defer)",
    )
    p.add_argument(
        "--budget-full",
        action="store_true",
        help="judge --budget against every tool definition a session has, deferred or not",
    )
    p.add_argument("--baseline", metavar="FILE", help="an earlier audit --json report to diff")
    p.add_argument(
        "--max-increase",
        type=non_negative_int,
        metavar="N",
        help="fail when a config grew by more than N tokens vs --baseline",
    )
    p.add_argument(
        "--max-increase-percent",
        type=non_negative_float,
        metavar="P",
        help="fail when a config grew by more than P%% vs --baseline",
    )
    p.add_argument(
        "--fail-on-unmeasured",
        action="store_true",
        help="exit 1 when any live server in an audited config could not be measured "
        "(or a found config cannot be read), with one reason line each on stderr; "
        "the Action's fail-on: unmeasured",
    )
    p.add_argument(
        "--fail-on-limits",
        action="store_true",
        help="exit 1 when a client would drop, reject or cut something of a session's tools "
        "(a client-lens finding: a name too long, too many tools, a truncated description), "
        "one reason line each on stderr; the Action's fail-on: limits",
    )
    p.add_argument(
        "--context",
        type=positive_int,
        metavar="N",
        help="context window size for shares and thresholds (default 200,000)",
    )
    p.add_argument(
        "--timeout",
        type=positive_float,
        default=DEFAULT_TIMEOUT_S,
        metavar="SECONDS",
        help="per-request timeout for each server (default 60)",
    )
    p.add_argument(
        "--concurrency",
        type=positive_int,
        default=DEFAULT_CONCURRENCY,
        metavar="N",
        help="servers measured at once (default 4)",
    )
    add_login_arguments(p)
    add_container_arguments(
        p,
        docker_help="run each stdio server in a container: the config's env values go into it, "
        "its cwd and argv paths under the project or home are mounted read-only; `docker run` "
        "commands run on the host as written",
    )
    p.add_argument(
        "--sarif",
        metavar="FILE",
        help="also write the gate findings and unmeasured servers as SARIF 2.1.0 to FILE "
        "(for code scanning), each at the config line of its server",
    )
    p.add_argument(
        "--claude",
        metavar="FILE_OR_URL",
        help="a published Claude divergence run (divergence.json) to join by capture hash",
    )
    return p
