"""A session's loading in the human report (``ModelView.loading``, the one verdict): whether the
client defers tool definitions, where that was read, and what it means for this session, as the
rendering of its regime. What is particular to a client (where it reads its setting, the values
it documents) comes from its deferral model; a regime without one says its condition and
evidence."""

from __future__ import annotations

from mcpcost.audit.deferral import PUBLISHED_BAND, Loading
from mcpcost.configs.clients import KNOWN_CLIENTS, client_named, presentation_of
from mcpcost.configs.clients.presentation import SHELL_SOURCE, DeferralMode
from mcpcost.configs.clients.settings_files import ReadState
from mcpcost.render.text_format import share_percent, thousands


def _label(v: Loading) -> str:
    return client_named(v.client).label if v.client in KNOWN_CLIENTS else v.client


def _where_read(v: Loading) -> list[str]:
    st = v.setting
    if st is None:
        return []
    model = presentation_of(v.client).deferral
    why = f" ({model.reads_from})" if model is not None else ""
    out = [f"  Where this was read{why}:"]
    absent = 0
    for src in st.sources:
        place = "this shell" if src.source == SHELL_SOURCE else src.source
        mark = "  ← decides" if st.source is not None and src.source == st.source else ""
        if src.state is ReadState.ABSENT:
            absent += 1
            continue
        if src.state is ReadState.UNREADABLE:
            out.append(f"    {place} — could not be read{mark}")
            continue
        sets = [x for x in src.sets if x not in src.unreadable]
        parts = []
        if sets:
            parts.append("sets " + ", ".join(sets))
        if src.unreadable:
            parts.append("sets " + ", ".join(src.unreadable) + " to something that is not a string")
        out.append(f"    {place} — {'; '.join(parts) if parts else 'sets none of them'}{mark}")
    if absent:
        out.append(f"    {absent} other settings file(s) it reads are not on this machine")
    if not st.settings_read:
        out.append(f"    warning: {_label(v)}'s settings files were not read in this run")
    return out


def _exceptions(v: Loading) -> list[str]:
    out = ["  The full number is paid where deferral does not apply:"]
    out += [f"    {e}" for e in v.exceptions]
    al = v.always_load
    if al.servers or al.unmeasured:
        names = ", ".join((*al.servers, *al.unmeasured))
        floor = "at least " if al.unmeasured else ""
        out.append(
            f'  Pinned "alwaysLoad": true in this config: {names} — {floor}{thousands(al.tokens)} '
            "tokens load at session start regardless."
        )
    else:
        out.append('  No server in this config is pinned "alwaysLoad": true.')
    return out


def deferral_block(v: Loading, context_window: int) -> list[str]:
    out: list[str] = []
    if v.mode is DeferralMode.CLIENT_UNKNOWN:
        out.append(
            "  The client reading this file is not known (--config), so whether these tokens "
            "load up front cannot be said; the up-front figure is the cost if everything loads."
        )
        return out
    if v.mode is DeferralMode.NONE_ON_RECORD:
        out.append(
            f"  No deferral rule is on record for {_label(v)}, so whether it keeps these tokens "
            "back cannot be said — an absence of a record about the client, not a measurement "
            "of it; the up-front figure is the cost if everything loads."
        )
        return out
    st = v.setting
    if st is None:  # a regime of the lens's rules: its condition and evidence say it
        out.append(f"  {v.condition}")
        out += [f"    {e.text}" + (f" ({e.source})" if e.source else "") for e in v.evidence]
        return out
    where = st.source if st.source and st.source != SHELL_SOURCE else "this shell"
    if v.mode is DeferralMode.SETTING_UNRESOLVED:
        if st.unresolved == "sources-disagree":
            why = f"{st.variable} is set to different values in this shell and in {st.source}"
        elif st.unresolved == "value-unreadable":
            why = f"{st.variable} is set in {st.source} to something that is not a string"
        else:
            why = f"{st.source} exists and could not be read"
        out.append(
            f"  {why}; whether {v.client} defers these tokens cannot be said from this machine;"
            " the up-front figure is the cost if everything loads."
        )
    elif v.mode is DeferralMode.SETTING_UNRECOGNIZED:
        model = presentation_of(v.client).deferral
        documented = ", ".join(model.documented_values) if model is not None else "none on record"
        out.append(
            f"  {st.variable}={st.value} (read from {where}) is not a documented value "
            f"({documented}), so nothing is claimed from it: whether {v.client} defers these "
            "tokens cannot be said; the up-front figure is the cost if everything loads."
        )
    elif v.mode is DeferralMode.LOADS_UPFRONT:
        if st.value_is_host:
            why = f"{st.variable} points at {st.value}"
        else:
            why = f"{st.variable}={st.value}"
        out.append(
            f"  {v.client} loads every tool definition up front here: {mechanism_words(v)} is off "
            f"because {why} (read from {where}). Every request carries these tokens."
        )
    elif v.mode is DeferralMode.DEFERS_ALL:
        how = (
            f"{st.variable}={st.value} (read from {where})"
            if st.read_from_machine
            else f"{st.variable} is unset here, which is the documented default"
        )
        out.append(
            f"  {v.client} defers every MCP tool definition ({mechanism_words(v)}), with no "
            f"threshold — {how}. These tokens are NOT loaded up front at any size; they load "
            "when the model reaches for a tool. Size decides nothing here."
        )
        out += _exceptions(v)
    elif v.mode is DeferralMode.THRESHOLD:
        out += _threshold(v, where)
    out += _where_read(v)
    return out


def mechanism_words(v: Loading) -> str:
    """The mechanism as prose: ``tool-search`` reads "tool search"."""
    return (v.mechanism or "deferral").replace("-", " ")


def _threshold(v: Loading, where: str) -> list[str]:
    st = v.setting
    assert st is not None and v.threshold_tokens is not None and v.threshold_share is not None
    out = [
        f"  {v.client} defers tool definitions only once they reach {thousands(v.threshold_tokens)} tokens "
        f"({share_percent(v.threshold_share)} of the context window; {st.variable}={st.value}, read from "
        f"{where}).",
    ]
    wire = ("at least " if v.is_floor else "") + thousands(v.wire_tokens)
    out.append(f"  This session's wire total is {wire} tokens (o200k).")
    ct = v.request
    band = (ct.ratio if ct is not None else None) or PUBLISHED_BAND
    if ct is None:
        out.append(
            "  Its size in request tokens cannot be stated, so no side of the threshold is claimed."
        )
        return out
    if ct.estimated == 0:
        out.append(f"  Counted exactly for Anthropic requests: {thousands(ct.low)} tokens.")
    elif ct.ratio is None:
        out.append(
            f"  In Claude request tokens that is {thousands(ct.low)}–{thousands(ct.high)} "
            "(a calibrated estimate with its band; --json has its parts)."
        )
    else:
        out.append(
            f"  In request tokens that is {thousands(ct.low)}–{thousands(ct.high)} "
            f"(measured ratios {band.low:.2f}×–{band.high:.2f}× across {band.servers} servers)."
        )
    if v.crosses is True:
        out.append("  That is at or above the threshold: these definitions are deferred.")
        out += _exceptions(v)
    elif v.crosses is False:
        out.append("  That is under the threshold: every request carries these tokens.")
    else:
        reasons = []
        if v.is_floor:
            reasons.append("some servers could not be measured")
        if ct.high >= v.threshold_tokens > ct.low:
            reasons.append("the range straddles the threshold")
        out.append(f"  Which side it falls on cannot be said: {'; '.join(reasons)}.")
        if ct.estimated:
            out.append(
                "  --claude with a published divergence run can replace estimates with exact counts."
            )
    return out
