"""What `mcpcost measure` reads from its command line: the server command, env values and headers
(from flags, its own environment or files, so secrets stay out of `ps`), and the name and
output directory of a measurement."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from mcpcost.configs.variables import parse_dotenv
from mcpcost.core.names import name_problem
from mcpcost.core.redact import DUMMY_VALUE
from mcpcost.errors import InputError, UsageError

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_RUNNERS = {
    "npx",
    "uvx",
    "pipx",
    "bunx",
    "pnpx",
    "pnpm",
    "yarn",
    "npm",
    "bun",
    "uv",
    "deno",
    "node",
    "python",
    "python3",
    "docker",
    "podman",
}
_RUNNER_WORDS = {"run", "exec", "dlx", "x", "tool", "-m", "--from"}


def split_command(argv: list[str]) -> tuple[list[str], list[str]]:
    """Flags before ``--``, the server command after it."""
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1 :]
    return argv, []


def parse_env(items: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not ENV_NAME.match(name):
            raise UsageError(f"mcpcost measure: --env needs NAME or NAME=VALUE, got name {name!r}")
        env[name] = value if eq else DUMMY_VALUE
    return env


def _read_secret_file(flag: str, path: str) -> str:
    try:
        return Path(path).read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise InputError(f"mcpcost measure: {flag} {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(f"mcpcost measure: {flag} {path}: not UTF-8 text") from None


def env_from_sources(
    items: list[str], names: list[str], env_file: str | None, environ: Mapping[str, str]
) -> dict[str, str]:
    """The stdio server's environment: ``--env-file`` lines, then ``--env-from`` names (their
    values from ``environ``), then ``--env`` items; a later source wins. Problems name lines and
    variables, never values."""
    env: dict[str, str] = {}
    if env_file is not None:
        parsed = parse_dotenv(_read_secret_file("--env-file", env_file))
        if parsed.problems:
            raise InputError(f"mcpcost measure: --env-file {env_file}: {parsed.problems[0]}")
        env.update(parsed.values)
    for name in names:
        if not ENV_NAME.match(name):
            raise UsageError(f"mcpcost measure: --env-from needs a variable name, got {name!r}")
        if name not in environ:
            raise UsageError(f"mcpcost measure: --env-from {name}: not set in this environment")
        env[name] = environ[name]
    env.update(parse_env(items))
    return env


def header_file_lines(path: str) -> list[str]:
    """The ``Name: value`` lines of a ``--header-file`` (blank and ``#`` lines skipped)."""
    text = _read_secret_file("--header-file", path)
    lines = [line.strip() for line in text.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def parse_headers(items: list[str]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for item in items:
        name, colon, value = item.partition(":")
        name = name.strip()
        if not colon or not HEADER_NAME.match(name):
            raise UsageError(f"mcpcost measure: --header needs 'Name: value' (header {name!r})")
        headers[name] = value.strip()
    return headers


def slug(text: str) -> str:
    out = re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-._")
    return re.sub(r"-{2,}", "-", out)


def name_from_url(url: str) -> str:
    """Hostname slug: ``www.``/``mcp.`` stripped, non-alphanumerics -> ``-`` (``remote`` if empty)."""
    host = (urlsplit(url).hostname or "").lower()
    for prefix in ("www.", "mcp."):
        if host.startswith(prefix):
            host = host[len(prefix) :]
    return re.sub(r"[^a-z0-9]+", "-", host).strip("-") or "remote"


def name_from_command(argv: list[str]) -> str:
    """A slug for a launch: the package or script a runner starts, else the program's name."""
    words = list(argv)
    program = Path(words[0]).name if words else ""
    chosen = program
    if Path(program).stem.lower() in _RUNNERS or re.match(r"python3(\.\d+)?$", program):
        rest = words[1:]
        skip_next = False
        for word in rest:
            if skip_next:
                skip_next = False
                continue
            if word in ("--from", "-p", "--package", "-e", "--env", "-v", "--volume", "--name"):
                skip_next = True
                continue
            if word == "-c":  # inline code: the program is the best name we have
                break
            if word.startswith("-") or word in _RUNNER_WORDS:
                continue
            chosen = word
            break
    chosen = chosen.rstrip("/")
    if chosen.startswith("@") and "/" in chosen:
        chosen = chosen.split("/", 1)[1]
    chosen = chosen.rsplit("/", 1)[-1].split(":", 1)[0]
    if "@" in chosen[1:]:
        chosen = chosen[0] + chosen[1:].split("@", 1)[0]
    chosen = re.sub(r"\.(py|js|mjs|cjs|ts|exe)$", "", chosen)
    return slug(chosen)[:64].rstrip("-._") or "server"


def check_name(name: str) -> str:
    """``--name`` as a path under ``--out`` (the only place the rule applies)."""
    problem = name_problem(name)
    if problem is not None:
        raise UsageError(
            f"mcpcost measure: --name {name!r} cannot name the files under --out: it {problem}"
        )
    return name


def check_out_dir(out: str) -> None:
    """``--out`` must be a directory or creatable as one: checked before anything is launched."""
    path = Path(out)
    for at in (path, *path.parents):
        if at.exists():
            if not at.is_dir():
                raise InputError(f"mcpcost measure: --out {out}: {at} is not a directory")
            return
