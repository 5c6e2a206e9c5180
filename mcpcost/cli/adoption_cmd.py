"""``mcpcost adoption [--out DIR]``: count the repositories that display this project's badge
(``badge-sightings/v1``) and write ``DIR/docs/adoption.md`` and ``DIR/results/badge-adoption.json``.

It reads GitHub through the one GitHub client (``mcpcost.runtime.github``, which the Action
uses too) in ``mcpcost.adoption.search``; the rules are ``mcpcost.adoption.sightings``. Both
files go through the one writer. The token comes from ``MCPCOST_GITHUB_TOKEN`` or
``GITHUB_TOKEN`` (code search needs one); without it, or when the search fails, the page says
the count could not be established instead of publishing a zero.

Exit 0 a count was established, 1 not (could not run, a query failed or was cut short, a file
was unreadable), 2 usage or an unreadable state file.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TextIO

from mcpcost.adoption.search import read_adoption
from mcpcost.adoption.sightings import (
    PROJECT,
    Project,
    Reading,
    adoption_page,
    not_run,
    parse_reading,
    reading_json,
)
from mcpcost.cli.args import ArgParser
from mcpcost.errors import EXIT_CHECK_FAILED, EXIT_OK, InputError, UsageError
from mcpcost.escaping.terminal import terminal_line
from mcpcost.runtime.clock import utc_now
from mcpcost.runtime.github import GitHubClient
from mcpcost.runtime.http_session import BoundedSession
from mcpcost.runtime.output_tree import read_in_tree, write_in_tree

PAGE = "docs/adoption.md"
STATE = "results/badge-adoption.json"
TOKEN_VARIABLES = ("MCPCOST_GITHUB_TOKEN", "GITHUB_TOKEN")
DEFAULT_API_URL = "https://api.github.com"
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")

Reader = Callable[[Project, str, Reading | None, str, str], Reading]


def build_parser() -> ArgParser:
    p = ArgParser(
        prog="mcpcost adoption",
        description="Search GitHub code for this project's badge and write "
        f"{PAGE} and {STATE} under --out (method badge-sightings/v1). Needs a token in "
        "MCPCOST_GITHUB_TOKEN or GITHUB_TOKEN; without one the page says the count could not "
        "be established.",
    )
    p.add_argument("--out", default=".", metavar="DIR", help="tree root (default: .)")
    p.add_argument(
        "--repo",
        default=PROJECT.repo,
        metavar="OWNER/NAME",
        help=f"the project whose badge is looked for (default {PROJECT.repo})",
    )
    p.add_argument("--branch", default=PROJECT.branch, help="the branch its badges are served from")
    p.add_argument("--date", metavar="YYYY-MM-DD", help="the reading's day (default: today, UTC)")
    p.add_argument(
        "--api-url", metavar="URL", help="GitHub API base (default: $GITHUB_API_URL or GitHub's)"
    )
    return p


def _previous(root: Path) -> Reading | None:
    raw = read_in_tree(root, STATE)
    if raw is None:
        if (root / STATE).exists():
            raise InputError(f"{root / STATE}: cannot be read as a regular file")
        return None
    try:
        return parse_reading(raw)
    except (InputError, ValueError) as exc:
        raise InputError(f"{root / STATE}: not a badge-sightings/v1 state file: {exc}") from None


def github_reader(
    sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.time
) -> Reader:
    """The reader that searches GitHub for real."""

    def read(
        project: Project, day: str, previous: Reading | None, api_url: str, token: str
    ) -> Reading:

        gh = GitHubClient(
            session=BoundedSession(), api_url=api_url, token=token, sleep=sleep, clock=clock
        )
        return read_adoption(gh, project, day, previous, sleep=sleep)

    return read


def run(
    argv: list[str],
    out: TextIO,
    err: TextIO,
    environ: Mapping[str, str] | None = None,
    reader: Reader | None = None,
) -> int:

    env = os.environ if environ is None else environ
    args = build_parser().parse_args(argv)
    if not _REPO.match(args.repo):
        raise UsageError(f"mcpcost adoption: --repo {args.repo!r} is not OWNER/NAME")
    if args.date is not None and not _DAY.match(args.date):
        raise UsageError(f"mcpcost adoption: --date {args.date!r} is not YYYY-MM-DD")
    project = Project(args.repo, args.branch)
    day = args.date or utc_now().date().isoformat()
    root = Path(args.out)
    if root.exists() and not root.is_dir():
        raise InputError(f"{root}: --out is not a directory")
    previous = _previous(root)
    token = next((env[k] for k in TOKEN_VARIABLES if env.get(k)), "")
    api_url = args.api_url or env.get("GITHUB_API_URL") or DEFAULT_API_URL
    if not token:
        names = " or ".join(TOKEN_VARIABLES)
        reading = not_run(project, day, f"no GitHub token ({names} is not set)", previous)
    else:
        reading = (reader or github_reader())(project, day, previous, api_url, token)
    write_in_tree(root, STATE, reading_json(reading))
    write_in_tree(root, PAGE, adoption_page(reading))
    if reading.count is None:
        err.write(terminal_line(f"adoption: no count on {day}: {reading.unresolved}") + "\n")
        out.write(f"wrote {root / PAGE} and {root / STATE}\n")
        return EXIT_CHECK_FAILED
    out.write(
        f"adoption: {reading.count} third-party repositories display the badge on {day} "
        f"({len(reading.examined)} files examined); wrote {root / PAGE}\n"
    )
    return EXIT_OK
