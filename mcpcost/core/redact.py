"""Keep secrets out of everything we print or write.

Env and header *values* are never shown at all (only names). Command lines and URLs are shown,
so values in them that look like credentials are replaced by ``***``: URL userinfo, query
parameters with secret-looking names, ``--token=...``/``--api-key VALUE`` style flags, ``NAME=value``
arguments with secret-looking names, ``Authorization:``-style header arguments, and bare tokens
with well-known prefixes (``ghp_``, ``sk-``, ``xoxb-``, JWTs, long hex/base64 runs).

Known secret values (env and header values, and every value a config reached through a variable
reference) are masked wherever they appear, before any text is cut to length. A value is masked
only when ``maskable``: shorter than ``MIN_SECRET_LENGTH`` characters, or a word as common as
``true`` or ``none``, it would mask unrelated text everywhere (and, as a GitHub mask, every
matching log line) while hiding nothing worth hiding, so it is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from mcpcost.core.patterns import LazyPattern

MASK = "***"
MIN_SECRET_LENGTH = 4
COMMON_VALUES = frozenset(
    {"true", "false", "null", "none", "yes", "no", "on", "off", "nil", "undefined", "default"}
)


def maskable(value: str) -> bool:
    """Whether a known secret value is masked where it appears (see the module's rule)."""
    text = value.strip()
    return len(text) >= MIN_SECRET_LENGTH and text.lower() not in COMMON_VALUES


def _ordered(secrets: Iterable[str]) -> list[str]:
    """Maskable secrets, longest first (so a secret containing another is masked whole)."""
    return sorted({s for s in secrets if s and maskable(s)}, key=len, reverse=True)


SECRET_NAME = LazyPattern(
    r"(?i)(token|secret|passw(or)?d|pwd|api[-_]?key|apikey|auth|credential|private[-_]?key|"
    r"access[-_]?key|session|cookie|signature|sig|bearer|client[-_]?secret|pat)"
)
_KNOWN_PREFIX = LazyPattern(
    r"^(gh[pousr]_|github_pat_|sk-|sk_live_|sk_test_|rk_live_|xox[abprs]-|glpat-|AKIA|ASIA|AIza|"
    r"ya29\.|npm_|pypi-|hf_|dop_v1_|eyJ)"
)
_LONG_OPAQUE = LazyPattern(r"^[A-Za-z0-9+/_\-=.]{32,}$")
_HEADER_ARG = LazyPattern(r"^(?P<name>[A-Za-z0-9-]+)\s*:\s*(?P<value>.+)$")


def looks_secret_value(value: str) -> bool:
    """A bare value that looks like a credential (known token prefixes, JWTs, long opaque runs)."""
    if not value:
        return False
    if _KNOWN_PREFIX.match(value):
        return True
    if value.startswith(("/", "./", "../", "~", "@")) or "://" in value or value.count("/") > 1:
        return False  # a path, a URL or a package name, not an opaque token
    return (
        bool(_LONG_OPAQUE.match(value))
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
    )


def secret_name(name: str) -> bool:
    """A parameter, flag or variable name that suggests its value is a secret."""
    return bool(SECRET_NAME.search(name))


def redact_url(url: str) -> str:
    """A URL with userinfo, secret-looking query values and token path segments masked."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return MASK
    netloc = parts.netloc
    if "@" in netloc:
        netloc = MASK + "@" + netloc.rsplit("@", 1)[1]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        masked = [(k, MASK if (secret_name(k) or looks_secret_value(v)) else v) for k, v in pairs]
        query = urlencode(masked, safe="*")
    path = "/".join(MASK if looks_secret_value(seg) else seg for seg in parts.path.split("/"))
    fragment = MASK if parts.fragment and looks_secret_value(parts.fragment) else parts.fragment
    return urlunsplit((parts.scheme, netloc, path, query, fragment))


def redact_argv(argv: Sequence[str], extra_secrets: Iterable[str] = ()) -> list[str]:
    """argv with credential-looking values masked; ``extra_secrets`` are masked wherever seen."""
    secrets = _ordered(extra_secrets)
    out: list[str] = []
    mask_next = False
    for arg in argv:
        if mask_next:
            out.append(MASK)
            mask_next = False
            continue
        red = _redact_arg(arg)
        if red is None:  # a flag whose value is the next argument
            out.append(arg)
            mask_next = True
            continue
        for s in secrets:
            red = red.replace(s, MASK)
        out.append(red)
    return out


def _redact_arg(arg: str) -> str | None:
    if arg.startswith("-"):
        name, eq, value = arg.partition("=")
        if secret_name(name.lstrip("-")):
            if eq:
                return f"{name}={MASK}"
            return None
        if eq and looks_secret_value(value):
            return f"{name}={MASK}"
        return arg
    if arg.startswith(("http://", "https://")):
        return redact_url(arg)
    header = _HEADER_ARG.match(arg)
    if header and (secret_name(header["name"]) or looks_secret_value(header["value"])):
        return f"{header['name']}: {MASK}"
    name, eq, value = arg.partition("=")
    if eq and name and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", name):
        if secret_name(name) or looks_secret_value(value):
            return f"{name}={MASK}"
        return arg
    if looks_secret_value(arg):
        return MASK
    if "Bearer " in arg or "bearer " in arg:
        return re.sub(r"(?i)(bearer\s+)\S+", r"\1" + MASK, arg)
    return arg


def redact_text(text: str, secrets: Iterable[str], *, cut_head: bool = False) -> str:
    """Mask every occurrence of known secret values (env and header values) in free text.

    A text may have been cut before it reached here (a bounded stderr buffer, the head of an HTTP
    body), so a secret can be cut too. ``cut_head``: the text is the tail of something longer, and
    a leading fragment that ends a secret is masked. Always: a trailing fragment of at least
    ``MIN_SECRET_LENGTH`` characters that begins a secret is masked, since the text may be the
    head of something longer."""
    ordered = _ordered(secrets)
    for s in ordered:
        text = text.replace(s, MASK)
    if cut_head:
        for s in ordered:
            fragment = next((n for n in range(len(s) - 1, 0, -1) if text.startswith(s[-n:])), 0)
            if fragment:
                text = MASK + text[fragment:]
                break
    for s in ordered:
        fragment = next(
            (n for n in range(len(s) - 1, MIN_SECRET_LENGTH - 1, -1) if text.endswith(s[:n])), 0
        )
        if fragment:
            text = text[:-fragment] + MASK
            break
    return text
