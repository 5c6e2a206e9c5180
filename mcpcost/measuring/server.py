"""``measure_server``: measuring one server is one call that returns a ``Measurement``.

Two independent captures (two launches or connections) run concurrently on threads. Equal
canonical bytes give ``measured``; different bytes give ``dynamic`` with the first capture's
numbers. A launch through a package runner that installs on first use (``npx``, ``uvx``,
``pnpm dlx``... ``core.spec.installs_on_first_use``) is the exception: two installs of one
package into one shared cache at once race (npm fails on the rename, ENOTEMPTY or
ECOMPROMISED), so the second capture starts once the first has the server's handshake answer
(by then the package is installed) or has ended without one. Each capture is still its own
process (or container) and session, and each has the full budget from its own start, so such
a measurement can take up to twice the budget; remote servers and plain commands start both
at once. A failed capture decides the status (the first capture's failure wins when both fail).
A ``timeout`` is retried once at double the budget; the retry's result is published, and if it
times out again its notes start with ``reproduced on double the timeout budget; `` and
``timeoutMs`` names the widest budget tried. Notes are cut to 700 characters, carry the stderr
tail, and have every env and header value masked.

``protocol`` (auto, legacy, modern) picks how the era is negotiated (see ``transports.session``);
every record carries ``protocolErasTried`` (the eras the first capture attempted, in order) and,
when the caller narrowed the choice, ``protocolRequested``.

Every caller (audit, measure, sweep, serve, the Action and its measuring children) says how it
measures in one ``MeasureOptions`` value: the budget and its retry, the era, how URLs are opened
(under an address policy, signed in) or an explicit transport factory (a container's), where the
record says it ran, which further secrets are masked, and the clock.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from mcpcost.core.canonical import canonicalize
from mcpcost.core.measure import measure_listing, measure_tools
from mcpcost.core.model import (
    HOST_ISOLATION,
    NOT_CAPTURED,
    Authorization,
    Isolation,
    Listing,
    ListingKind,
    Measurement,
)
from mcpcost.core.pretokenize import ascii_split_pattern, js_splitter
from mcpcost.core.redact import redact_text
from mcpcost.core.spec import Era, EraChoice, ServerSpec
from mcpcost.core.status import Status
from mcpcost.core.tokenizer import get_tokenizer
from mcpcost.escaping.terminal import without_terminal_codes
from mcpcost.measuring.capture import Capture, CaptureFailure, capture_tools
from mcpcost.measuring.masking import mask_measurement
from mcpcost.runtime.clock import iso_utc, utc_now
from mcpcost.runtime.workers import run_side_by_side
from mcpcost.transports.base import Transport, TransportFactory
from mcpcost.transports.open import open_authorized
from mcpcost.version import __version__

if TYPE_CHECKING:  # the flow (and requests behind it) loads only when a server needs it
    from mcpcost.auth.authorizer import OAuthAuthorizer
    from mcpcost.runtime.addresses import AddressPolicy

TIMEOUT_RETRY_FACTOR = 2
NOTES_LIMIT = 700
STDERR_IN_NOTES = 600
DYNAMIC_NOTE = "tools/list differed between two runs; value is for the first capture"
RETRY_PREFIX = "reproduced on double the timeout budget; "
# The reference TypeScript tool installs the same command name from npm and is versioned
# independently: "(Python)" keeps "mcp-context-cost 0.1.0" from reading as one of its releases.
MEASURED_BY_TOOL = "mcp-context-cost (Python)"
MEASURED_BY = {"tool": MEASURED_BY_TOOL, "version": __version__}
AUTHORIZATION_OAUTH: Authorization = "oauth"


@dataclass(frozen=True, slots=True, kw_only=True)
class MeasureOptions:
    """How ``measure_server`` measures one server; every field has the default a user's own
    ``mcpcost measure`` would use.

    Servers are opened by ``open_transport`` when it is given (a container launcher's factory,
    a test's; ``sign_in`` and ``url_policy`` then do not apply), and
    otherwise as the transports open them: URLs signed in with ``sign_in`` when given, and with
    every connection under ``url_policy`` when given (URLs from the world: a registry's, a
    service caller's; error bodies are then never quoted).

    ``mask`` names secrets beyond the spec's own, masked as the spec's are (the host's proxy
    credentials a container is given).
    """

    timeout_s: float = 60.0
    retry_timeouts: bool = True
    protocol: EraChoice = EraChoice.AUTO
    url_policy: AddressPolicy | None = None
    sign_in: OAuthAuthorizer | None = None
    open_transport: TransportFactory | None = None
    isolation: Isolation = HOST_ISOLATION
    mask: tuple[str, ...] = field(default=(), repr=False)  # secrets, never in a repr
    now: Callable[[], datetime] = utc_now

    def __post_init__(self) -> None:
        if not self.timeout_s > 0:
            raise ValueError("timeout_s must be positive")
        if self.protocol not in set(EraChoice):
            choices = ", ".join(EraChoice)
            raise ValueError(f"protocol must be one of {choices}, not {self.protocol!r}")

    def factory(self) -> TransportFactory:
        """The transport factory these options open servers with."""
        if self.open_transport is not None:
            return self.open_transport
        authorizer, policy = self.sign_in, self.url_policy

        def opened(spec: ServerSpec, timeout_s: float) -> Transport:
            return open_authorized(
                spec, timeout_s, authorizer, policy=policy, quote_bodies=policy is None
            )

        return opened


DEFAULT_OPTIONS = MeasureOptions()


def capture_pair(
    spec: ServerSpec,
    factory: TransportFactory,
    timeout_s: float,
    protocol: EraChoice = EraChoice.AUTO,
) -> tuple[Capture | CaptureFailure, Capture | CaptureFailure]:
    """Two independent captures, at the same time unless the launch installs the server on first
    use (``ServerSpec.installs_on_first_use``): then the second starts once the first has the
    server's handshake answer, or has ended without one. Each has ``timeout_s`` from its own
    start."""
    installed = threading.Event()

    def first() -> Capture | CaptureFailure:
        try:
            return capture_tools(
                spec,
                factory,
                timeout_s,
                protocol=protocol,
                on_initialized=installed.set,
            )
        finally:  # a failure, or an exception on its way out: the second waits no longer
            installed.set()

    def second() -> Capture | CaptureFailure:
        if spec.installs_on_first_use:
            installed.wait()
        return capture_tools(spec, factory, timeout_s, protocol=protocol)

    # the tokenizer loads while the server starts, not after its answer (the first count)
    tasks: list[Callable[[], Capture | CaptureFailure | None]] = [first, second, load_counting]
    one, two, _ = run_side_by_side(tasks, name="mcpcost-capture")
    assert one is not None and two is not None
    return one, two


def same_canonical_text(first: list[Any], second: list[Any], first_text: str) -> bool:
    """Whether two captures have equal canonical text. Equal ``json.dumps`` output (C speed)
    means equal structure, key order and scalars, hence equal canonical text; only when it
    differs is the second capture serialised the slow, exact way."""
    if json.dumps(first) == json.dumps(second):
        return True

    return first_text == canonicalize(second).text


def load_counting() -> None:
    """Load the tokenizer, compile the split patterns and read the class tables text outside
    ASCII needs. Run beside a measurement's captures, so the first count does not pay for it
    after the server's answer. Idempotent and thread-safe."""
    get_tokenizer()
    ascii_split_pattern()
    js_splitter().read_tables()


def failure_notes(failure: CaptureFailure, secrets: tuple[str, ...], prefix: str = "") -> str:
    """The notes of a failed measurement: message, stderr tail, secrets masked, <= 700 chars."""
    # a server's colour codes are dropped before masking (a code inside a secret would hide it)
    text = redact_text(without_terminal_codes(prefix + failure.message), secrets)
    raw_tail = without_terminal_codes(
        failure.diagnostics.stderr_tail if failure.diagnostics else ""
    )
    # masked whole before it is cut: a cut through a secret would let part of it through
    tail = redact_text(raw_tail, secrets, cut_head=True).strip()
    if tail and tail not in text:
        text += f"; stderr tail: {tail[-STDERR_IN_NOTES:]}"
    return cut_notes(text)


def cut_notes(text: str, limit: int = NOTES_LIMIT) -> str:
    """``text`` in at most ``limit`` characters (a cut one ends in "…")."""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


LISTING_ERROR_LIMIT = 200


def listings_of(capture: Capture, secrets: tuple[str, ...]) -> dict[ListingKind, Listing] | None:
    """The first capture's prompts, resources and templates, counted as the tools are (None:
    the server declared none). Error text is the server's: masked and cut."""
    if not capture.listed:
        return None

    out: dict[ListingKind, Listing] = {}
    for listed in capture.listed:
        if listed.items is None:
            text = redact_text(listed.error or "failed", secrets)
            out[listed.kind] = Listing(error=text[:LISTING_ERROR_LIMIT])
        else:
            out[listed.kind] = measure_listing(listed.items)
    return out


def measurement_from_pair(
    spec: ServerSpec,
    pair: tuple[Capture | CaptureFailure, Capture | CaptureFailure],
    *,
    timeout_s: float,
    measured_at: str,
    isolation: Isolation,
    notes_prefix: str = "",
    protocol: EraChoice = EraChoice.AUTO,
    secrets: tuple[str, ...] | None = None,
) -> Measurement:
    """Fold two captures into the published record (pure). ``secrets``: the values masked
    (default: the spec's)."""
    hidden = spec.secret_values if secrets is None else secrets
    first, second = pair
    timeout_ms = round(timeout_s * 1000)
    failure = first if isinstance(first, CaptureFailure) else second
    header_names = spec.header_names if spec.headers else None
    requested = Era(protocol) if protocol != EraChoice.AUTO else None
    if isinstance(failure, CaptureFailure):
        kind = failure.diagnostics.kind if failure.diagnostics else spec.transport
        return Measurement(
            status=failure.status,
            server_name=spec.name,
            launch_command=spec.display(),
            measured_at=measured_at,
            timeout_ms=timeout_ms,
            isolation=isolation,
            notes=failure_notes(failure, hidden, notes_prefix),
            transport=kind,
            measured_by=MEASURED_BY,
            header_names=header_names,
            protocol_eras_tried=first.eras_tried,
            protocol_requested=requested,
        )
    assert isinstance(first, Capture) and isinstance(second, Capture)

    one = measure_tools(first.tools)
    same = same_canonical_text(first.tools, second.tools, one.canonical.text)
    hello = first.hello
    measurement = Measurement(
        status=Status.MEASURED if same else Status.DYNAMIC,
        server_name=hello.server_name or spec.name,
        launch_command=spec.display(),
        measured_at=measured_at,
        timeout_ms=timeout_ms,
        total_tokens=one.total_tokens,
        tool_count=one.tool_count,
        tools=one.tools,
        canonical_sha256=one.canonical.sha256,
        raw_tools_capture=one.capture,
        server_instructions=hello.instructions,
        server_version=hello.server_version,
        env_var_names=spec.env_names,
        isolation=isolation,
        notes=None if same else DYNAMIC_NOTE,
        protocol_version=hello.protocol_version,
        protocol_era=hello.era,
        transport=first.diagnostics.kind,
        measured_by=MEASURED_BY,
        header_names=header_names,
        protocol_eras_tried=first.eras_tried,
        protocol_requested=requested,
        listings=listings_of(first, hidden),
    )
    return mask_measurement(measurement, hidden, one.canonical.text)


def mark_authorized(measurement: Measurement, authorizer: OAuthAuthorizer | None) -> Measurement:
    """Record that a number was measured signed in (never the token or the identity)."""
    if authorizer is None or not authorizer.used or not measurement.has_number:
        return measurement
    return replace(measurement, authorization=AUTHORIZATION_OAUTH)


def measure_server(spec: ServerSpec, options: MeasureOptions = DEFAULT_OPTIONS) -> Measurement:
    """Measure one server: two captures (``capture_pair``), compared; one timeout retry at 2x.

    ``options.protocol``: ``auto`` (legacy ``initialize`` first, the 2026-07-28 era if it is
    refused), ``legacy`` or ``modern`` (only that era is tried). A measurement made signed in
    (``options.sign_in`` used) says ``authorization: "oauth"``.
    """
    factory = options.factory()
    timeout_s, protocol, where = options.timeout_s, options.protocol, options.isolation
    secrets = spec.secret_values + options.mask
    started_at = iso_utc(options.now())
    result = measurement_from_pair(
        spec,
        capture_pair(spec, factory, timeout_s, protocol),
        timeout_s=timeout_s,
        measured_at=started_at,
        isolation=where,
        protocol=protocol,
        secrets=secrets,
    )
    if result.status is Status.TIMEOUT and options.retry_timeouts:
        wider = timeout_s * TIMEOUT_RETRY_FACTOR
        retried_at = iso_utc(options.now())
        pair = capture_pair(spec, factory, wider, protocol)
        again = measurement_from_pair(
            spec,
            pair,
            timeout_s=wider,
            measured_at=retried_at,
            isolation=where,
            protocol=protocol,
            secrets=secrets,
        )
        if again.status is Status.TIMEOUT:
            again = measurement_from_pair(
                spec,
                pair,
                timeout_s=wider,
                measured_at=retried_at,
                isolation=where,
                notes_prefix=RETRY_PREFIX,
                protocol=protocol,
                secrets=secrets,
            )
        result = again
    assert result.server_instructions is not NOT_CAPTURED or not result.has_number
    return mark_authorized(result, options.sign_in)
