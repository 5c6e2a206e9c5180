"""The shields.io endpoint badge, byte-identical to the reference project's."""

from __future__ import annotations

from urllib.parse import quote

from mcpcost.core.bands import UNKNOWN_COLOR, band_for
from mcpcost.core.jsonvalue import quote_string
from mcpcost.core.model import Measurement

DEFAULT_LABEL = "context cost"
CACHE_SECONDS = 3600


def format_thousands(n: int) -> str:
    """en-US thousands separators, independent of the machine's locale."""
    return f"{n:,}"


def badge_message(tokens: int | None) -> str:
    return "unknown" if tokens is None else f"{format_thousands(tokens)} tokens"


def render_badge(tokens: int | None, label: str = DEFAULT_LABEL) -> str:
    """Compact endpoint JSON (no trailing newline), keys in the reference order."""
    color = UNKNOWN_COLOR if tokens is None else band_for(tokens).color
    return (
        '{"schemaVersion":1,'
        f'"label":{quote_string(label)},'
        f'"message":{quote_string(badge_message(tokens))},'
        f'"color":{quote_string(color)},'
        f'"cacheSeconds":{CACHE_SECONDS}}}'
    )


def badge_for_measurement(measurement: Measurement, label: str = DEFAULT_LABEL) -> str:
    """Badge JSON for a measurement: band colour when it has a number, grey unknown otherwise."""
    tokens = measurement.total_tokens if measurement.has_number else None
    return render_badge(tokens, label)


def badge_file_text(measurement: Measurement, label: str = DEFAULT_LABEL) -> str:
    """``badges/<name>.json`` content: the badge JSON and a newline."""
    return badge_for_measurement(measurement, label) + "\n"


def readme_snippet(raw_badge_url: str, link_url: str, label: str = DEFAULT_LABEL) -> str:
    """Markdown for a README: the endpoint badge wrapped in a link (shields' link is ignored)."""
    endpoint = "https://img.shields.io/endpoint?url=" + quote(
        raw_badge_url, safe="!*'()"
    )  # encodeURIComponent
    return f"[![{label}]({endpoint})]({link_url})"
