"""The audit report: per config file, never summed across files.

``build_report(configs, measurements, ...)`` is pure: it takes the configs as discovery read them
and the measurements keyed by ``ServerSpec.launch_key()`` (the audit measures each distinct
launch once) and returns an ``AuditReport``. Nothing here launches, reads or prints.

Per config: measured servers sorted by tokens (``servers``), everything that has no number
(``skipped``: failures, unresolved variable references, entries that cannot be launched),
switched-off names (``disabled``), totals over measured servers only, share of the context
window, the five heaviest tools, trim advice (top three tools), session-start cost per server
and the loading (``ModelView.loading``) of the client session the file belongs to (the files one client loads
together, by its ``ClientSessionRule``; a ``--config`` file is a session of its own).

Measuring policy: the launch key includes env, cwd and headers, so two entries that run the same
command under different environments are measured separately and each gets its own number. The
reference measured them once and caveated the shared number (``collapsedKeys``); here nothing is
shared, ``sharedMeasurements`` is always 0, and such entries are listed in ``envVariants`` for
information only.

Secrets: env and header values never enter a report (names only); commands and URLs are shown
through ``ServerSpec.display()`` (credential-looking parts masked); failure notes are masked with
the server's own secret values.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from mcpcost.audit.claude_estimate import calibration_for, request_band, session_estimate
from mcpcost.audit.client_sessions import ClientSessionFile, plan_client_sessions
from mcpcost.audit.deferral import (
    DeferralServer,
    Loading,
    client_posture_sources,
    load_inputs,
)
from mcpcost.audit.lens_sessions import session_view
from mcpcost.audit.model_view import ModelView
from mcpcost.audit.report_model import (
    DEFAULT_CONTEXT_WINDOW,
    HEAVIEST_TOOLS,
    NOT_LAUNCHABLE,
    NOT_MEASURED,
    TRIM_TOOLS,
    UNRESOLVED,
    AnthropicRunInfo,
    AuditReport,
    ClientSession,
    ClientSessionEntry,
    ConfigResult,
    EmptyConfig,
    EnvVariant,
    HeaviestTool,
    ServerResult,
    TrimAdvice,
    UnreadableConfig,
    UnresolvedEntry,
    first_line,
)
from mcpcost.configs.clients import registry
from mcpcost.configs.clients.broken_files import rule_for
from mcpcost.configs.clients.settings_files import ClientSettings
from mcpcost.configs.config_file import (
    ClientName,
    ConfigEntry,
    ConfigFile,
    ConfigState,
    ReadFailure,
    error_line,
)
from mcpcost.core.jsonvalue import stringify
from mcpcost.core.measure import SessionStart, session_start
from mcpcost.core.model import ENCODING, METHODOLOGY_VERSION, NOT_CAPTURED, Measurement
from mcpcost.core.redact import redact_argv, redact_free_text
from mcpcost.core.spec import ServerSpec, TransportName
from mcpcost.core.tokenizer import count_tokens

if TYPE_CHECKING:  # a divergence run is read (and its module loaded) only with --claude
    from mcpcost.core.divergence import DivergenceRun

_PIECES = re.compile(r"[\s=:@?&/,;\"']+")


def launch_secrets(spec: ServerSpec) -> tuple[str, ...]:
    """Parts of the argv or URL that ``display()`` masks, plus env and header values."""
    pairs = list(zip(spec.argv, redact_argv(spec.argv, spec.secret_values), strict=True))
    if spec.url is not None:
        pairs.append((spec.url, spec.display()))
    found: list[str] = list(spec.secret_values)
    for original, shown in pairs:
        if original == shown:
            continue
        kept = set(_PIECES.split(shown))
        found.extend(p for p in _PIECES.split(original) if p and p not in kept)
    return tuple(found)


def _mask_free_text(text: str | None, spec: ServerSpec | None) -> str | None:
    """Notes can quote stderr: the server's secrets and credential-looking words masked, names
    kept (``redact_free_text``), and the text whole, line breaks included (a renderer that
    shows one line takes the first); None for a text that is only whitespace."""
    if text is None or not text.strip():
        return None
    return redact_free_text(text.strip(), launch_secrets(spec) if spec else ())


def _display(spec: ServerSpec) -> tuple[str | None, str | None]:
    if spec.url is not None:
        return None, spec.display()
    return spec.display(), None


def _session_start(m: Measurement) -> SessionStart | None:
    if not isinstance(m.raw_tools_capture, list):
        return None
    instructions = m.server_instructions
    captured = instructions is not NOT_CAPTURED
    return session_start(m.raw_tools_capture, instructions if captured else None, captured=captured)


def entry_result(
    entry: ConfigEntry,
    measurement: Measurement | None,
    anthropic: Mapping[str, int] | None = None,
) -> ServerResult:
    """One entry as the report shows it, from its measurement (None when it was not launched)."""
    spec = entry.spec
    config_notes = tuple(n for n in (_mask_free_text(x, spec) for x in entry.notes) if n)
    if spec is None:
        note = entry.problem or (
            "unresolved reference " + ", ".join(entry.unresolved)
            if entry.unresolved
            else "cannot be launched as written"
        )
        return ServerResult(
            name=entry.name,
            transport="none",
            command=None,
            url=None,
            env_var_names=(),
            header_names=(),
            status=UNRESOLVED if entry.unresolved else NOT_LAUNCHABLE,
            tokens=None,
            tool_count=None,
            share=None,
            canonical_sha256=None,
            notes=_mask_free_text(note, None),
            always_load=entry.always_load,
            unresolved=entry.unresolved,
            config_notes=config_notes,
            declared=entry.declared,
        )
    command, url = _display(spec)
    # the numbers, when the measurement has them
    number = measurement if measurement is not None and measurement.has_number else None
    sha = number.canonical_sha256 if number is not None else None
    if measurement is None:
        notes: str | None = "not measured in this run"
    else:
        notes = _mask_free_text(measurement.notes, spec)
    return ServerResult(
        name=entry.name,
        transport=TransportName(spec.transport),
        command=command,
        url=url,
        env_var_names=spec.env_names,
        header_names=spec.header_names,
        status=NOT_MEASURED if measurement is None else measurement.status,
        tokens=number.total_tokens if number is not None else None,
        tool_count=(number.tool_count or 0) if number is not None else None,
        share=0.0 if number is not None else None,
        canonical_sha256=sha,
        notes=notes,
        always_load=entry.always_load,
        unresolved=entry.unresolved,
        session_start=_session_start(number) if number is not None else None,
        anthropic_tokens=(anthropic or {}).get(sha) if sha else None,
        launch_key=spec.launch_key(),
        tools=tuple((t.name, t.tokens) for t in number.tools) if number is not None else (),
        isolation=measurement.isolation if measurement is not None else None,
        config_notes=config_notes,
        authorization=measurement.authorization if measurement is not None else None,
        declared=entry.declared,
        enabled_tools=entry.enabled_tools,
        disabled_tools=entry.disabled_tools,
    )


def unreadable_config(c: ConfigFile) -> UnreadableConfig:
    """A config file in state ERROR as the report names it: what went wrong, on which line, and
    what its client does with such a file where that is on record (only for a file that cannot
    be parsed: the records are of parse errors)."""
    failure = c.failure or ReadFailure.UNREADABLE
    error = c.error or "cannot be read"
    label, rule = str(c.client), None
    if c.client in registry.KNOWN_CLIENTS:
        client = registry.client_named(c.client)
        label = client.label
        if failure is ReadFailure.UNPARSABLE:
            rule = rule_for(client.broken_files, c.scope)
    return UnreadableConfig(
        client=c.client,
        label=label,
        source=c.source,
        failure=failure,
        error=first_line(error) or error,
        line=error_line(error) if failure is ReadFailure.UNPARSABLE else None,
        client_says=rule.says if rule else None,
        provenance=rule.provenance if rule else None,
    )


def heaviest_tools(
    servers: Sequence[ServerResult], limit: int = HEAVIEST_TOOLS
) -> list[HeaviestTool]:
    tools = [HeaviestTool(server=s.name, tool=n, tokens=t) for s in servers for n, t in s.tools]
    return sorted(tools, key=lambda h: -h.tokens)[:limit]


def trim_advice(servers: Sequence[ServerResult], total: int) -> TrimAdvice | None:
    if total <= 0 or sum(len(s.tools) for s in servers) < 2:
        return None
    return _trim(heaviest_tools(servers, TRIM_TOOLS), total)


def _trim(top: Sequence[HeaviestTool], total: int) -> TrimAdvice:
    recoverable = sum(t.tokens for t in top)
    return TrimAdvice(
        tools=tuple(top), recoverable_tokens=recoverable, recoverable_share=recoverable / total
    )


def projected_tools(view: ModelView) -> list[HeaviestTool]:
    """Each tool the session's model can get, at its projected definition's count, heaviest
    first (what switching it off saves, up front or deferred)."""
    tools = [
        HeaviestTool(server=t.server, tool=t.tool, tokens=count_tokens(stringify(t.definition)))
        for t in view.tools
    ]
    return sorted(tools, key=lambda h: -h.tokens)


def by_view(entries: Sequence[ClientSessionEntry], view: ModelView) -> list[ClientSessionEntry]:
    """A session's measured servers with their shares of its projected total, heaviest (by
    projected tokens) first."""
    projected = {x.name: x.projected_tokens for x in view.servers}
    total = view.projected_tokens
    out = [
        replace(
            e,
            server=replace(
                e.server, share=projected.get(e.server.name, 0) / total if total else 0.0
            ),
        )
        for e in entries
    ]
    out.sort(key=lambda e: (-projected.get(e.server.name, 0), e.server.name))
    return out


def config_result(
    config: ConfigFile,
    measurements: Mapping[str, Measurement],
    context_window: int,
    anthropic: Mapping[str, int] | None = None,
) -> ConfigResult:
    """One config file's numbers (deferral is attached later, per session scope)."""
    results = [
        entry_result(e, measurements.get(e.spec.launch_key()) if e.spec else None, anthropic)
        for e in config.live_entries
    ]
    measured = [r for r in results if r.measured]
    skipped = [r for r in results if not r.measured]
    total = sum(r.tokens or 0 for r in measured)
    measured = sorted(measured, key=lambda r: (-(r.tokens or 0), r.name))
    measured = [replace(r, share=(r.tokens or 0) / total if total else 0.0) for r in measured]
    return ConfigResult(
        client=config.client,
        source=config.source,
        scope=config.scope,
        total_tokens=total,
        tool_count=sum(r.tool_count or 0 for r in measured),
        server_count=len(measured),
        context_share=total / context_window,
        servers=tuple(measured),
        skipped=tuple(skipped),
        disabled=config.disabled_names,
        heaviest_tools=tuple(heaviest_tools(measured)),
        trim_advice=trim_advice(measured, total),
        problems=config.problems,
        disabled_reasons=disabled_reasons(config),
    )


def disabled_reasons(config: ConfigFile) -> tuple[tuple[str, str], ...]:
    """(name, reason) of the switched-off entries that carry a reason (a settings file...)."""
    return tuple(
        (e.name, e.disabled_reason) for e in config.entries if e.disabled and e.disabled_reason
    )


def _client_session_files(
    configs: Sequence[ConfigResult], files: Mapping[tuple[str, str], ConfigFile]
) -> list[ClientSessionFile]:
    out = []
    for c in configs:
        scopes = {e.name: e.scope or c.scope for e in files[(c.client, c.source)].live_entries}
        names = [s.name for s in (*c.servers, *c.skipped)]
        out.append(
            ClientSessionFile(
                client=c.client,
                source=c.source,
                scope=c.scope,
                entries=tuple((n, scopes.get(n, c.scope)) for n in names),
            )
        )
    return out


def build_client_sessions(
    configs: Sequence[ConfigResult],
    files: Mapping[tuple[str, str], ConfigFile],
    *,
    context_window: int,
    shell_environ: Mapping[str, str] | None,
    settings: Mapping[ClientName, ClientSettings] | None,
    divergence: DivergenceRun | None,
    measurements: Mapping[str, Measurement] | None = None,
) -> list[ClientSession]:
    """The client sessions these configs form (``sessions.plan_client_sessions``), with their totals,
    each with its one ``ModelView`` (the client lens, from the ``measurements`` by launch key:
    its load verdict and every figure) and, where its client sends Anthropic tools, its Claude
    estimate (made first: a threshold is judged on it); heaviest first."""

    fit = calibration_for(divergence)
    by_file = {(c.client, c.source): c for c in configs}  # one path can serve two clients
    out: list[ClientSession] = []
    for plan in plan_client_sessions(_client_session_files(configs, files)):
        entries: list[ClientSessionEntry] = []
        for source, name in plan.members:
            c = by_file[(plan.client, source)]
            found = next(s for s in (*c.servers, *c.skipped) if s.name == name)
            entries.append(ClientSessionEntry(server=found, source=source))
        measured = [e for e in entries if e.server.measured]
        skipped = [e for e in entries if not e.server.measured]
        total = sum(e.server.tokens or 0 for e in measured)
        measured.sort(key=lambda e: (-(e.server.tokens or 0), e.server.name))
        servers = [e.server for e in measured]
        estimate = session_estimate(plan.client, servers, measurements or {}, fit, divergence)
        inputs = load_inputs(
            client=plan.client,
            sources=list(plan.sources),
            servers=[
                DeferralServer(
                    name=s.name,
                    tokens=s.tokens or 0,
                    anthropic_tokens=s.anthropic_tokens,
                    always_load=s.always_load,
                )
                for s in servers
            ],
            unmeasured=[e.server.name for e in skipped],
            pinned_unmeasured=[e.server.name for e in skipped if e.server.always_load],
            context_window=context_window,
            shell_environ=shell_environ,
            settings=client_posture_sources(plan.client, settings),
            divergence=divergence,
            estimate=request_band(estimate) if estimate is not None else None,
        )
        view = session_view(plan.client, servers, inputs, measurements or {})
        tools = projected_tools(view)
        out.append(
            ClientSession(
                key=plan.key,
                client=plan.client,
                label=plan.label,
                sources=plan.sources,
                total_tokens=total,
                tool_count=sum(s.tool_count or 0 for s in servers),
                server_count=len(servers),
                context_share=view.upfront_tokens / context_window,
                servers=tuple(by_view(measured, view)),
                skipped=tuple(skipped),
                overridden=plan.overridden,
                heaviest_tools=tuple(tools[:HEAVIEST_TOOLS]),
                trim_advice=_trim(tools[:TRIM_TOOLS], view.projected_tokens)
                if len(tools) >= 2 and view.projected_tokens > 0
                else None,
                precedence=plan.precedence,
                precedence_documented=plan.documented,
                precedence_source=plan.rule_source,
                model_view=view,
                claude_estimate=estimate,
            )
        )
    # heaviest first: what a session loads up front, then every projected token of it
    out.sort(key=lambda x: (-x.model_view.upfront_tokens, -x.model_view.projected_tokens, x.label))
    return out


def attach_deferral(
    configs: Sequence[ConfigResult], sessions: Sequence[ClientSession]
) -> list[ConfigResult]:
    """Each config file carries the loading of the (first) session that loads it."""
    verdicts: dict[tuple[str, str], Loading] = {}
    for session in sessions:
        for source in session.sources:
            verdicts.setdefault((session.client, source), session.model_view.loading)
    return [replace(c, deferral=verdicts.get((c.client, c.source))) for c in configs]


def env_variants(configs: Sequence[ConfigFile]) -> list[EnvVariant]:
    """Entries sharing a command (or URL) whose env or headers differ: measured separately."""
    groups: dict[str, list[tuple[str, str, str, str]]] = {}
    for c in configs:
        for e in c.live_entries:
            if e.spec is None:
                continue
            s = e.spec
            ident = stringify([s.transport, s.url, list(s.argv), s.cwd])
            groups.setdefault(ident, []).append((c.source, e.name, s.launch_key(), s.display()))
    out = []
    for members in groups.values():
        if len({m[2] for m in members}) > 1:
            out.append(
                EnvVariant(launch=members[0][3], entries=tuple((m[0], m[1]) for m in members))
            )
    return out


def build_report(
    configs: Sequence[ConfigFile],
    measurements: Mapping[str, Measurement],
    *,
    context_window: int = DEFAULT_CONTEXT_WINDOW,
    generated_at: str,
    shell_environ: Mapping[str, str] | None = None,
    settings: Mapping[ClientName, ClientSettings] | None = None,
    divergence: DivergenceRun | None = None,
    problems: Sequence[str] = (),
) -> AuditReport:
    """Assemble the report from configs and measurements (keyed by launch key). Pure.

    ``settings``: each client's settings files as read at the edge (None: not read in this
    run; a client missing from it has none here)."""
    if context_window <= 0:
        raise ValueError("context_window must be positive")
    anthropic = (
        {
            sha: row.claude_delta
            for sha, row in divergence.by_hash().items()
            if row.claude_delta is not None
        }
        if divergence
        else None
    )
    results: list[ConfigResult] = []
    empty: list[EmptyConfig] = []
    all_problems = list(problems)
    unresolved: list[UnresolvedEntry] = []
    for c in configs:
        all_problems.extend(f"{c.source}: {p}" for p in c.problems)
        if c.state == ConfigState.ERROR:
            all_problems.append(f"{c.source}: {c.error or 'cannot be read'}")
        for e in c.live_entries:
            if e.unresolved:
                unresolved.append(
                    UnresolvedEntry(
                        client=c.client, source=c.source, name=e.name, references=e.unresolved
                    )
                )
        if c.state != ConfigState.OK or not c.live_entries:
            empty.append(
                EmptyConfig(
                    client=c.client,
                    source=c.source,
                    state=c.state,
                    all_disabled=c.disabled_names,
                    error=c.error,
                    disabled_reasons=disabled_reasons(c),
                )
            )
            continue
        results.append(config_result(c, measurements, context_window, anthropic))
    results.sort(key=lambda r: -r.total_tokens)
    order = {c.source: i for i, c in enumerate(configs)}
    sessions = build_client_sessions(
        sorted(results, key=lambda r: order[r.source]),  # discovery order: user, project, ...
        {(c.client, c.source): c for c in configs},
        context_window=context_window,
        shell_environ=shell_environ,
        settings=settings,
        divergence=divergence,
        measurements=measurements,
    )
    results = attach_deferral(results, sessions)
    return AuditReport(
        unreadable=tuple(unreadable_config(c) for c in configs if c.state == ConfigState.ERROR),
        methodology_version=METHODOLOGY_VERSION,
        encoding=ENCODING,
        generated_at=generated_at,
        context_window=context_window,
        configs=tuple(results),
        empty_configs=tuple(empty),
        problems=tuple(all_problems),
        unresolved=tuple(unresolved),
        env_variants=tuple(env_variants([c for c in configs if c.state == ConfigState.OK])),
        anthropic_divergence=AnthropicRunInfo(
            model=divergence.model, measured_at=divergence.measured_at
        )
        if divergence
        else None,
        sessions=tuple(sessions),
    )
