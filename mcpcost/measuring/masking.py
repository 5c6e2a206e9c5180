"""The one masking boundary for what a server says: a ``Measurement`` leaves ``measuring`` with no
secret of its launch in it, whatever the server repeated.

A server is handed secrets (env values, header values, values a config reached through
``${VAR}``) and can repeat them in a tool name, a description, its instructions, its name or
version, an error or its stderr. Every output (``measure --json`` and text, measurement.json,
the audit's text, JSON, Markdown and SARIF, the Action's comment, summary and report.json, the
sweep's pages) is built from the ``Measurement``, so masking it here covers them all.

The numbers are never of masked text: ``totalTokens``, ``toolCount``, the per-tool tokens and
``canonicalSha256`` are computed from the real bytes before this runs. A capture (or
instructions) holding a secret cannot be published without either leaking it or publishing
bytes that no longer hash to ``canonicalSha256``, so its ``rawToolsCapture`` is withheld
(``null``), its tool names, instructions and server name are shown masked, and ``notes`` says so
(``CAPTURE_WITHHELD``). The status is unchanged: the number is exact.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from mcpcost.core.model import Listing, ListingKind, Measurement
from mcpcost.core.redact import SecretMask, redact_text

CAPTURE_WITHHELD = (
    "rawToolsCapture withheld: the server's answer repeats a secret value it was given "
    "(an env or header value, or a ${VAR} value); totalTokens and canonicalSha256 are of the "
    "real bytes, tool names and instructions are shown with the value masked"
)


def _hide(mask: SecretMask, text: str | None) -> str | None:
    return None if text is None else mask.hide(text)


def mask_measurement(
    measurement: Measurement, secrets: Iterable[str] | SecretMask, canonical_text: str | None
) -> Measurement:
    """``measurement`` with no form of any of ``secrets`` in any field a server controls.

    ``canonical_text``: the capture's canonical JSON text (None for a failure), searched for
    the secrets in their JSON-escaped forms, so a value the capture holds anywhere (a key, a
    schema default, an enum) is found, not only in the fields shown."""
    mask = secrets if isinstance(secrets, SecretMask) else SecretMask(secrets)
    if not mask:
        return measurement
    instructions = measurement.server_instructions
    said = isinstance(instructions, str) and mask.holds(instructions)
    withheld = said or (canonical_text is not None and mask.holds(canonical_text))
    changes: dict[str, Any] = {
        "server_name": mask.hide(measurement.server_name),
        "server_version": _hide(mask, measurement.server_version),
        "notes": None if measurement.notes is None else redact_text(measurement.notes, mask),
    }
    if isinstance(instructions, str):
        changes["server_instructions"] = mask.hide(instructions)
    if measurement.listings:
        changes["listings"] = _masked_listings(measurement.listings, mask)
    if withheld:
        changes["raw_tools_capture"] = None
        changes["tools"] = tuple(replace(t, name=mask.hide(t.name)) for t in measurement.tools)
        notes = changes["notes"]
        changes["notes"] = f"{notes}; {CAPTURE_WITHHELD}" if notes else CAPTURE_WITHHELD
    return replace(measurement, **changes)


def _masked_listings(
    listings: Mapping[ListingKind, Listing], mask: SecretMask
) -> dict[ListingKind, Listing]:
    return {
        kind: listing if listing.error is None else replace(listing, error=mask.hide(listing.error))
        for kind, listing in listings.items()
    }
