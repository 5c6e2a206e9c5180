"""``mcpcost divergence --out DIR [--api anthropic|openai] [--model ID] [--concurrency N] [--json]``.

Counts, with a vendor's token-counting endpoint, what each measured server's tools add to a
request (spec/METHODOLOGY.md sections 13 and 14) and writes the column's run file
(``results/divergence.json`` for Claude, ``results/divergence-openai.json`` for OpenAI) and
``results/calibration.json``, in one commit of the tree (``runtime.output_tree``).

The vendor's official SDK does the HTTP (an optional extra: ``pip install
'mcp-context-cost[anthropic]'`` or ``[openai]``) and is imported only here. The key comes from
``ANTHROPIC_API_KEY`` / ``OPENAI_API_KEY`` and the endpoint from ``ANTHROPIC_BASE_URL`` /
``OPENAI_BASE_URL``; the key is never printed or written. A 429 waits as its ``retry-after``
says (the SDK's retries, up to ``MAX_RETRIES``).

Exit codes: 0 every server counted; 1 a server's projection was refused (its row records the
error) or the endpoint could not be reached (nothing written); 2 no key, the key refused
(HTTP 401/403), the SDK missing, or no measurement under ``--out``.
"""

from __future__ import annotations

import datetime as dt
import importlib
import os
from pathlib import Path
from typing import Any, TextIO

from mcpcost.cli.args import ArgParser, positive_int
from mcpcost.core.divergence import (
    COLUMNS,
    PROBE_TEXT,
    Column,
    CountApi,
    RowState,
    render_divergence,
)
from mcpcost.core.jsonvalue import JSONValue, stringify
from mcpcost.core.redact import redact_text
from mcpcost.errors import EXIT_CHECK_FAILED, EXIT_OK, InputError, UsageError
from mcpcost.escaping.terminal import terminal_line
from mcpcost.runtime.output_tree import open_tree
from mcpcost.sweep.divergence_run import (
    CountFailed,
    CountRejected,
    RunOutcome,
    read_run,
    run_divergence,
    stage_calibration,
)
from mcpcost.sweep.files import load_measurements

MAX_RETRIES = 6
REQUEST_TIMEOUT_S = 60.0
KEY_VARIABLE = {CountApi.ANTHROPIC: "ANTHROPIC_API_KEY", CountApi.OPENAI: "OPENAI_API_KEY"}
URL_VARIABLE = {CountApi.ANTHROPIC: "ANTHROPIC_BASE_URL", CountApi.OPENAI: "OPENAI_BASE_URL"}
EXTRA = {CountApi.ANTHROPIC: "anthropic", CountApi.OPENAI: "openai"}


def build_parser() -> ArgParser:
    p = ArgParser(
        prog="mcpcost divergence",
        description="Count what each measured server's tools add to a vendor's request "
        "(Anthropic count_tokens or OpenAI responses/input_tokens) and write the column's "
        "run file and results/calibration.json. Needs the vendor's key in the environment.",
        epilog="Exit codes: 0 every server counted, 1 a server's tools were refused or the "
        "endpoint failed, 2 no key, the key refused, the SDK missing or nothing measured.",
    )
    p.add_argument("--out", default=".", metavar="DIR", help="measured tree (default: .)")
    p.add_argument(
        "--api",
        choices=[str(a) for a in CountApi],
        default=str(CountApi.ANTHROPIC),
        help="which count endpoint (default: anthropic, the Claude column)",
    )
    p.add_argument("--model", metavar="ID", help="pinned model id (default: the column's)")
    p.add_argument(
        "--concurrency", type=positive_int, default=4, metavar="N", help="requests in flight"
    )
    p.add_argument("--json", action="store_true", help="the run's summary as JSON on stdout")
    return p


# -- the vendors' SDKs ------------------------------------------------------------------------
def _body_message(body: Any) -> str | None:
    """The message of a vendor's error body: ``{"error": {"message": ...}}`` for both."""
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) else None


class SdkCounter:
    """A ``Counter`` over a vendor SDK client; maps its typed errors onto the run's two."""

    def __init__(self, api: CountApi, client: Any, sdk: Any, model: str, key: str) -> None:
        self.api = api
        self.client = client
        self.sdk = sdk
        self.model = model
        self.key = key

    def _send(self, tools: list[JSONValue] | None) -> int:
        if self.api is CountApi.ANTHROPIC:
            kwargs: dict[str, Any] = {
                "model": self.model,
                "messages": [{"role": "user", "content": PROBE_TEXT}],
            }
            if tools is not None:
                kwargs["tools"] = tools
            return int(self.client.messages.count_tokens(**kwargs).input_tokens)
        kwargs = {"model": self.model, "input": PROBE_TEXT}
        if tools is not None:
            kwargs["tools"] = tools
        return int(self.client.responses.input_tokens.count(**kwargs).input_tokens)

    def _clean(self, text: str) -> str:
        return redact_text(text, (self.key,)) if self.key else text

    def count(self, tools: list[JSONValue] | None) -> int:
        sdk = self.sdk
        try:
            return self._send(tools)
        except (sdk.AuthenticationError, sdk.PermissionDeniedError) as exc:
            raise CountFailed(
                f"the {self.api} API refused the key in {KEY_VARIABLE[self.api]} "
                f"(HTTP {exc.status_code})",
                auth=True,
            ) from None
        except sdk.APIStatusError as exc:
            detail = _body_message(exc.body) or "no message"
            raise CountRejected(self._clean(f"HTTP {exc.status_code}: {detail}")) from None
        except sdk.APIConnectionError as exc:
            raise CountFailed(self._clean(f"cannot reach the {self.api} API: {exc}")) from None


def open_counter(api: CountApi, model: str, env: dict[str, str]) -> SdkCounter:
    """The SDK's client for ``api`` with the key and endpoint from ``env``."""
    key = env.get(KEY_VARIABLE[api], "")
    if not key:
        raise UsageError(
            f"mcpcost divergence: {KEY_VARIABLE[api]} is not set; the {COLUMNS[api].vendor} "
            "column is counted by the vendor's endpoint and needs a key (nothing was sent)"
        )
    try:  # typed as Any: the SDKs are optional, and only their documented names are used
        sdk: Any = importlib.import_module(EXTRA[api])
    except ImportError:
        raise UsageError(
            f"mcpcost divergence: the {EXTRA[api]} SDK is not installed "
            f"(pip install 'mcp-context-cost[{EXTRA[api]}]')"
        ) from None
    base_url = env.get(URL_VARIABLE[api]) or None
    options: dict[str, Any] = {
        "api_key": key,
        "max_retries": MAX_RETRIES,
        "timeout": REQUEST_TIMEOUT_S,
    }
    if base_url is not None:
        options["base_url"] = base_url
    client = sdk.Anthropic(**options) if api is CountApi.ANTHROPIC else sdk.OpenAI(**options)
    return SdkCounter(api, client, sdk, model, key)


# -- the command ------------------------------------------------------------------------------
def _today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


def summary(outcome: RunOutcome, column: Column) -> dict[str, Any]:
    run = outcome.run
    return {
        "method": run.method,
        "model": run.model,
        "measuredAt": run.measured_at,
        "file": column.rel,
        "baselineTokens": run.baseline_tokens,
        "probeDelta": run.probe_delta,
        "servers": [
            {
                "name": r.name,
                "state": str(r.state),
                "counted": r.counted,
                column.delta_key: r.delta,
                **({"error": r.error} if r.error is not None else {}),
            }
            for r in outcome.rows
        ],
    }


def run(
    argv: list[str],
    out: TextIO,
    err: TextIO,
    *,
    environ: dict[str, str] | None = None,
    today: str | None = None,
) -> int:
    args = build_parser().parse_args(argv)
    env = dict(os.environ) if environ is None else environ
    column = COLUMNS[CountApi(args.api)]
    model = args.model or column.default_model
    root = Path(args.out)
    measurements = load_measurements(root)
    if not measurements:
        raise InputError(
            f"mcpcost divergence: {args.out} holds no results/<name>/measurement.json (check --out)"
        )
    counter = open_counter(column.api, model, env)

    def progress(line: str) -> None:
        err.write(terminal_line(line) + "\n")
        err.flush()

    with open_tree(root) as txn:
        previous = read_run(txn.read(column.rel))
        try:
            outcome = run_divergence(
                column,
                model,
                measurements,
                counter,
                today=today or _today(),
                previous=previous,
                concurrency=args.concurrency,
                progress=progress,
            )
        except CountFailed as exc:
            txn.discard()
            err.write(f"mcpcost divergence: {terminal_line(exc)}\n")
            if exc.auth:
                return 2
            return EXIT_CHECK_FAILED

        txn.put(column.rel, render_divergence(outcome.run))
        stage_calibration(txn, measurements)
        txn.commit()
    if args.json:
        out.write(stringify(summary(outcome, column)) + "\n")
    else:
        current = sum(1 for r in outcome.rows if r.state is RowState.CURRENT)
        out.write(
            f"{column.vendor} column ({outcome.run.method}, {model}): {current} current, "
            f"{outcome.errors} refused; wrote {column.rel}\n"
        )
        for r in outcome.rows:
            shown = f"{r.delta:,}" if r.delta is not None else f"error: {r.error}"
            kept = "" if r.counted else " (kept from an earlier run)"
            out.write(f"  {terminal_line(r.name)}: {r.state} {terminal_line(shown)}{kept}\n")
    return EXIT_CHECK_FAILED if outcome.errors else EXIT_OK
