"""Keep secrets out of everything we print or write.

Env and header *values* are never shown at all (only names). Command lines and URLs are shown,
so values in them that look like credentials are replaced by ``***``: URL userinfo, query
parameters with secret-looking names, ``--token=...``/``--api-key VALUE`` style flags, ``NAME=value``
arguments with secret-looking names, ``Authorization:``-style header arguments, and bare tokens
with well-known prefixes (``ghp_``, ``sk-``, ``xoxb-``, JWTs, long hex/base64 runs).

Known secret values (env and header values, and every value a config reached through a variable
reference) are masked wherever they appear, before any text is cut to length, in every form a
value takes on its way out (``secret_forms``): raw, percent-encoded (a value put into a URL),
JSON-escaped (a value quoted inside JSON text) and, for URL userinfo and ``Basic`` headers, the
base64 ``user:password`` a Basic ``Authorization`` header carries. A value is masked only when
``maskable``: shorter than ``MIN_SECRET_LENGTH`` characters, or a word as common as ``true`` or
``none``, it would mask unrelated text everywhere (and, as a GitHub mask, every matching log line)
while hiding nothing worth hiding, so it is left alone in free text. Such a value is still never
printed *as a value*: env and header values are never shown at all, whatever their length.

``SecretMask`` is the one masker: built once from a launch's secrets, it hides (``hide``) and
finds (``holds``) every form of every maskable one. Free text (notes, stderr, server errors) goes
through ``redact_free_text``: known secrets, then credential-looking words, with every line break
and space kept, and a variable's or a flag's *name* never masked (only a value is a secret).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Sequence
from urllib.parse import parse_qsl, quote, quote_plus, unquote, urlencode, urlsplit, urlunsplit

MASK = "***"
MIN_SECRET_LENGTH = 4
# The methodology's published stand-in for a variable a server requires (spec/METHODOLOGY.md):
# a sweep or `measure --env NAME` sets it, so it is known to everyone and never a secret.
DUMMY_VALUE = "dummy"
COMMON_VALUES = frozenset(
    {
        "true",
        "false",
        "null",
        "none",
        "yes",
        "no",
        "on",
        "off",
        "nil",
        "undefined",
        "default",
        DUMMY_VALUE,
    }
)


def maskable(value: str) -> bool:
    """Whether a known secret value is masked where it appears (see the module's rule)."""
    text = value.strip()
    return len(text) >= MIN_SECRET_LENGTH and text.lower() not in COMMON_VALUES


_PERCENT_ESCAPE = re.compile(r"%[0-9A-F]{2}")


def secret_forms(value: str) -> set[str]:
    """Every form ``value`` takes on its way out: raw; percent-encoded as a query, a path or a
    form encodes it (upper- and lower-case hex); JSON-escaped (``\\"``, ``\\\\``, ``\\uXXXX``,
    with and without non-ASCII escaped, and with ``/`` as ``\\/``)."""
    forms = {value}
    for encoded in (quote(value, safe=""), quote(value, safe="/"), quote_plus(value, safe="")):
        forms.add(encoded)
        forms.add(_PERCENT_ESCAPE.sub(lambda m: m[0].lower(), encoded))
    for ascii_only in (True, False):
        escaped = json.dumps(value, ensure_ascii=ascii_only)[1:-1]
        forms.update((escaped, escaped.replace("/", "\\/")))
    return forms


def basic_credentials(user: str, password: str) -> str:
    """The base64 token of a Basic ``Authorization`` header for ``user:password`` (as HTTP
    clients build it from URL userinfo: latin-1 where it fits, else UTF-8)."""
    pair = f"{user}:{password}"
    try:
        raw = pair.encode("latin-1")
    except UnicodeEncodeError:
        raw = pair.encode("utf-8")
    return base64.b64encode(raw).decode("ascii")


def url_credentials(url: str) -> list[str]:
    """The secrets URL userinfo holds: the userinfo as written and decoded, the password alone,
    and the Basic token an HTTP client sends for it."""
    netloc = url.partition("://")[2].split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    if "@" not in netloc:
        return []
    userinfo = netloc.rsplit("@", 1)[0]
    user, colon, password = userinfo.partition(":")
    found = [userinfo, unquote(userinfo), unquote(password)]
    found.append(basic_credentials(unquote(user), unquote(password) if colon else ""))
    return [f for f in found if f]


def header_credentials(value: str) -> list[str]:
    """For a ``Basic`` header value, the ``user:password`` its token decodes to and the password."""
    scheme, _, token = value.strip().partition(" ")
    if scheme.lower() != "basic" or not token.strip():
        return []
    try:
        decoded = base64.b64decode(token.strip(), validate=True).decode("utf-8")
    except ValueError:  # not base64 (binascii.Error), or not UTF-8 (UnicodeDecodeError)
        return []
    return [decoded, decoded.partition(":")[2]]


class SecretMask:
    """Every form of every maskable secret of one launch, longest first (so a secret containing
    another is masked whole): the one place that decides what ``***`` replaces."""

    def __init__(self, secrets: Iterable[str]) -> None:
        values = {s for s in secrets if s and maskable(s)}
        forms = set(values)
        for value in values:
            forms.update(f for f in secret_forms(value) if maskable(f))
        self.values = tuple(sorted(values, key=len, reverse=True))
        self.forms = tuple(sorted(forms, key=len, reverse=True))

    def __bool__(self) -> bool:
        return bool(self.forms)

    def holds(self, text: str) -> bool:
        """Whether ``text`` contains any form of any secret."""
        return any(form in text for form in self.forms)

    def hide(self, text: str) -> str:
        """``text`` with every form of every secret replaced by ``MASK``."""
        for form in self.forms:
            if form in text:
                text = text.replace(form, MASK)
        return text


def _ordered(secrets: Iterable[str]) -> list[str]:
    """Maskable secrets, longest first (so a secret containing another is masked whole)."""
    return sorted({s for s in secrets if s and maskable(s)}, key=len, reverse=True)


SECRET_NAME = re.compile(
    r"(?i)(token|secret|passw(or)?d|pwd|api[-_]?key|apikey|auth|credential|private[-_]?key|"
    r"access[-_]?key|session|cookie|signature|sig|bearer|client[-_]?secret|pat)"
)
_KNOWN_PREFIX = re.compile(
    r"^(gh[pousr]_|github_pat_|sk-|sk_live_|sk_test_|rk_live_|xox[abprs]-|glpat-|AKIA|ASIA|AIza|"
    r"ya29\.|npm_|pypi-|hf_|dop_v1_|eyJ)"
)
_LONG_OPAQUE = re.compile(r"^[A-Za-z0-9+/_\-=.]{32,}$")
_HEADER_ARG = re.compile(r"^(?P<name>[A-Za-z0-9-]+)\s*:\s*(?P<value>.+)$")


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


def redact_text(text: str, secrets: Iterable[str] | SecretMask, *, cut_head: bool = False) -> str:
    """Mask every occurrence of known secret values (env and header values) in free text.

    A text may have been cut before it reached here (a bounded stderr buffer, the head of an HTTP
    body), so a secret can be cut too. ``cut_head``: the text is the tail of something longer, and
    a leading fragment that ends a secret is masked. Always: a trailing fragment of at least
    ``MIN_SECRET_LENGTH`` characters that begins a secret is masked, since the text may be the
    head of something longer."""
    mask = secrets if isinstance(secrets, SecretMask) else SecretMask(secrets)
    text = mask.hide(text)
    ordered = list(mask.forms)
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


_WORD = re.compile(r"\S+")


def redact_free_text(text: str, secrets: Iterable[str] | SecretMask = ()) -> str:
    """Free text (a note, stderr, a server's error) with known secrets and credential-looking
    words masked. Unlike ``redact_argv`` a flag never makes the next word secret: in prose the
    word after ``--api-key`` is usually another name (``via --brave-api-key, BRAVE_API_KEY``),
    and a value given on a command line is a known secret, masked already. Spaces and line
    breaks are kept as they were."""
    masked = redact_text(text, secrets)

    def word(match: re.Match[str]) -> str:
        red = _redact_arg(match[0])
        return match[0] if red is None else red

    return _WORD.sub(word, masked)
