"""What a client session's definitions cost in Claude tokens, for a client that sends them to
Anthropic's API: exact where a published divergence row's capture hash matches (``--claude``),
else estimated from o200k_base through a calibration (``core.calibration.estimate_request``),
always labelled as one or the other.

Which sessions: where the client lens says the client projects onto ``ApiShape.ANTHROPIC``
(its ``Projection``); without a projection on record, a client whose deferral model is
Anthropic's tool search (it sends the Messages API's tools, or it could not defer them). The
estimate is made before the session's load verdict, which judges a threshold on it.

The calibration: a ``--claude`` run's own fit (``fit_calibration``) when it has usable rows;
else the fit of the reference project's published Claude run, as spec/METHODOLOGY.md section
14 reports it (claude-opus-5, 2026-08-19, 19 current rows, ``probeDelta`` 328: factor 1.746,
mean error 4.5%, maximum 12.0%). Its rows are not bundled, so without ``--claude`` every part is
an estimate. Pure: values in, values out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from mcpcost.audit.deferral import RequestTokens
from mcpcost.audit.report_model import ServerResult
from mcpcost.configs.clients import presentation_of
from mcpcost.configs.clients.presentation import ApiShape
from mcpcost.configs.config_file import ClientName
from mcpcost.core.calibration import Calibration, RequestEstimate, estimate_request, fit_calibration
from mcpcost.core.divergence import CountApi, DivergenceRun
from mcpcost.core.model import Measurement

# Anthropic's tool search: a client deferring through it sends Anthropic-shaped tools
TOOL_SEARCH_MECHANISM = "tool-search"

REFERENCE_FIT = Calibration(
    api=CountApi.ANTHROPIC,
    method="tools-delta/v1",
    model="claude-opus-5",
    measured_at="2026-08-19",
    fixed_tokens=328,
    factor=1.746,
    mean_relative_error=0.045,
    max_relative_error=0.120,
    rows=(),
)
REFERENCE_FIT_ROWS = 19  # the rows the reference fit came from (not bundled)


def sends_anthropic_tools(client: ClientName) -> bool:
    """Whether ``client`` sends its tools in the Anthropic Messages API's shape: its lens's
    projection says so, or (without one) its deferral model is Anthropic's tool search."""
    p = presentation_of(client)
    if p.projection is not None:
        return p.projection.shape is ApiShape.ANTHROPIC
    return p.deferral is not None and p.deferral.mechanism == TOOL_SEARCH_MECHANISM


def calibration_for(divergence: DivergenceRun | None) -> Calibration:
    """The run's own fit when it has one for Anthropic, else the reference fit."""
    if divergence is not None:
        fit = fit_calibration(divergence)
        if fit is not None and fit.api is CountApi.ANTHROPIC:
            return fit
    return REFERENCE_FIT


def session_estimate(
    client: ClientName,
    servers: Sequence[ServerResult],
    measurements: Mapping[str, Measurement],
    calibration: Calibration,
    divergence: DivergenceRun | None,
) -> RequestEstimate | None:
    """The Claude tokens a session's measured ``servers`` add to a request (None: the client
    does not send Anthropic-shaped tools, or nothing has a number)."""
    if not sends_anthropic_tools(client):
        return None
    # under the session's own names: one launch may be loaded under another name elsewhere
    named = [
        replace(measurements[key], server_name=s.name)
        for s in servers
        if (key := s.launch_key) is not None and key in measurements
    ]
    return estimate_request(named, calibration, divergence)


def request_band(estimate: RequestEstimate) -> RequestTokens:
    """A Claude estimate as the request tokens a threshold is judged on (its band)."""
    exact = sum(1 for p in estimate.parts if p.exact)
    return RequestTokens(
        low=estimate.tokens - estimate.band_tokens,
        high=estimate.tokens + estimate.band_tokens,
        exact=exact,
        estimated=len(estimate.parts) - exact,
    )
