"""The shields.io endpoint badge, byte-identical to the reference project's.

A number (``12,430 tokens`` in its band's colour), ``unknown`` (a measurement without a
number), or the state of a catalogued entry the published tree has no measurement of
(``BadgeState``: ``not yet run``, or ``OAuth-gated`` for a remote server the catalog lists as
behind a sign-in; spec/METHODOLOGY.md section 10). All but the number are grey.
"""

from __future__ import annotations

from enum import Enum
from urllib.parse import quote

from mcpcost.core.bands import UNKNOWN_COLOR, band_for
from mcpcost.core.jsonvalue import parse_json, quote_string
from mcpcost.core.model import Measurement
from mcpcost.errors import InputError

DEFAULT_LABEL = "context cost"
CACHE_SECONDS = 3600


class BadgeState(Enum):
    """What the badge of an entry without a measurement says (its message)."""

    NOT_YET_RUN = "not yet run"
    OAUTH_GATED = "OAuth-gated"


def format_thousands(n: int) -> str:
    """en-US thousands separators, independent of the machine's locale."""
    return f"{n:,}"


def badge_message(tokens: int | None) -> str:
    return "unknown" if tokens is None else f"{format_thousands(tokens)} tokens"


def _endpoint_json(label: str, message: str, color: str) -> str:
    """Compact endpoint JSON (no trailing newline), keys in the reference order."""
    return (
        '{"schemaVersion":1,'
        f'"label":{quote_string(label)},'
        f'"message":{quote_string(message)},'
        f'"color":{quote_string(color)},'
        f'"cacheSeconds":{CACHE_SECONDS}}}'
    )


def compact_thousands(n: int) -> str:
    """``842``, ``1.9k``, ``12k``: a count as a range shows it."""
    if n < 1000:
        return str(n)
    k = n / 1000
    return f"{k:.1f}k" if k < 10 else f"{k:.0f}k"


def render_range_badge(low: int, high: int, label: str = DEFAULT_LABEL) -> str:
    """The badge of a server measured under several profiles: ``1.9k-8.4k tokens``, in the
    colour of the dearest end's band."""
    message = f"{compact_thousands(low)}-{compact_thousands(high)} tokens"
    return _endpoint_json(label, message, band_for(high).color)


def render_badge(tokens: int | None, label: str = DEFAULT_LABEL) -> str:
    """The badge for a number of tokens (its band's colour), or grey ``unknown`` for None."""
    color = UNKNOWN_COLOR if tokens is None else band_for(tokens).color
    return _endpoint_json(label, badge_message(tokens), color)


def badge_for_measurement(measurement: Measurement, label: str = DEFAULT_LABEL) -> str:
    """Badge JSON for a measurement: band colour when it has a number, grey unknown otherwise."""
    tokens = measurement.total_tokens if measurement.has_number else None
    return render_badge(tokens, label)


def badge_file_text(measurement: Measurement, label: str = DEFAULT_LABEL) -> str:
    """``badges/<name>.json`` content: the badge JSON and a newline."""
    return badge_for_measurement(measurement, label) + "\n"


def state_badge_file_text(state: BadgeState, label: str = DEFAULT_LABEL) -> str:
    """``badges/<name>.json`` for an entry with no measurement: grey, never a number, so a
    README that embeds the endpoint shows an honest state instead of a 404."""
    return _endpoint_json(label, state.value, UNKNOWN_COLOR) + "\n"


def badge_state(data: bytes) -> BadgeState | None:
    """The state a badge file shows (any label), or None for a number, ``unknown`` or bytes
    that are not a badge."""
    try:
        doc = parse_json(data)
    except InputError:
        return None
    if not isinstance(doc, dict):
        return None
    message = doc.get("message")
    return next((s for s in BadgeState if s.value == message), None)


def readme_snippet(raw_badge_url: str, link_url: str, label: str = DEFAULT_LABEL) -> str:
    """Markdown for a README: the endpoint badge wrapped in a link (shields' link is ignored)."""
    endpoint = "https://img.shields.io/endpoint?url=" + quote(
        raw_badge_url, safe="!*'()"
    )  # encodeURIComponent
    return f"[![{label}]({endpoint})]({link_url})"
