"""Which config files a client loads into one session, and which entry wins a shared name (pure).

A client started in a project loads several files at once (a user file in the home directory
and the project's own, perhaps a managed one, and for some clients a per-project block inside the
user file). What a request carries is the union of those files, with one entry per
server name. ``plan_client_sessions(files)`` groups the files discovery found by the loading rule of each
client (``Client.session`` in the client registry) and decides each name by that client's
precedence. The report puts numbers on the plans; docs/AUDIT.md gives each client's rule and
its source.

A file of unknown client (``--config``) is a session of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath

from mcpcost.configs.clients import registry
from mcpcost.configs.clients.client import ClientSessionRule
from mcpcost.configs.config_file import ClientName, Scope

MANAGED = Scope.MANAGED
USER = Scope.USER


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientSessionFile:
    """What grouping needs of one config file: its live entries as (name, scope)."""

    client: ClientName
    source: str
    scope: Scope
    entries: tuple[tuple[str, Scope], ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Overridden:
    """An entry the session does not load because another file's entry of that name wins."""

    name: str
    source: str  # the file whose entry is not loaded
    by: str  # the file whose entry is loaded
    why: str  # one sentence


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientSessionPlan:
    key: str  # unique in one report
    client: ClientName
    label: str  # the product's name, with the installation or profile when it has several
    sources: tuple[str, ...]  # the files it loads, in discovery order
    members: tuple[tuple[str, str], ...]  # (source, server name) of every entry it loads
    overridden: tuple[Overridden, ...]
    precedence: tuple[Scope, ...]  # scopes, winning first
    documented: bool  # the client documents its precedence (else: the nearest file is assumed)
    rule_source: str | None  # where it is documented


def _rule(client: ClientName) -> tuple[ClientSessionRule, str] | None:
    if client not in registry.KNOWN_CLIENTS:
        return None
    found = registry.client_named(client)
    return found.session, found.label


def _rank(scope: Scope, rule: ClientSessionRule) -> int:
    return rule.precedence.index(scope) if scope in rule.precedence else len(rule.precedence)


def _scope_phrase(scope: Scope, rule: ClientSessionRule) -> str:
    return rule.scope_phrases.get(scope, scope)


def _resolve(
    files: Sequence[ClientSessionFile], rule: ClientSessionRule, label: str
) -> tuple[list[tuple[str, str]], list[Overridden]]:
    """The loaded (source, name) pairs and the entries that lose, by the client's rule."""
    exclusive = rule.managed_exclusive and any(f.scope == MANAGED and f.entries for f in files)
    candidates: dict[str, list[tuple[int, int, str, Scope]]] = {}
    for order, f in enumerate(files):
        for name, scope in f.entries:
            candidates.setdefault(name, []).append((_rank(scope, rule), order, f.source, scope))
    members: list[tuple[str, str]] = []
    lost: list[Overridden] = []
    managed_sources = [f.source for f in files if f.scope == MANAGED and f.entries]
    for name, found in candidates.items():
        if exclusive:
            kept = [c for c in found if c[3] == MANAGED]
            for c in found:
                if c[3] != MANAGED:
                    why = f"{label} loads only the managed file when one declares servers"
                    lost.append(Overridden(name=name, source=c[2], by=managed_sources[0], why=why))
            if kept:
                members.append((min(kept)[2], name))
            continue
        winner = min(found)
        members.append((winner[2], name))
        for c in found:
            if c is winner:
                continue
            how = "its documented order" if rule.documented else "the nearest file (assumed)"
            why = (
                f"the {_scope_phrase(winner[3], rule)} entry wins over the "
                f"{_scope_phrase(c[3], rule)} entry "
                f"({label}: {' > '.join(rule.precedence)}, {how})"
            )
            lost.append(Overridden(name=name, source=c[2], by=winner[2], why=why))
    position = {f.source: i for i, f in enumerate(files)}
    members.sort(key=lambda m: (position[m[0]], m[1]))
    return members, lost


def _variant(f: ClientSessionFile) -> str:
    return str(PurePath(f.source).parent)


def plan_client_sessions(files: Sequence[ClientSessionFile]) -> list[ClientSessionPlan]:
    """The sessions these files form, in the order their first file appears."""
    by_client: dict[ClientName, list[ClientSessionFile]] = {}
    plans: list[ClientSessionPlan] = []
    for f in files:
        by_client.setdefault(f.client, []).append(f)
    for client, members in by_client.items():
        known = _rule(client)
        if known is None:
            for f in members:
                plans.append(
                    ClientSessionPlan(
                        key=f"file:{f.source}",
                        client=client,
                        label=f.source,
                        sources=(f.source,),
                        members=tuple((f.source, name) for name, _ in f.entries),
                        overridden=(),
                        precedence=(),
                        documented=False,
                        rule_source=None,
                    )
                )
            continue
        rule, label = known
        groups: list[tuple[str, list[ClientSessionFile]]] = [("", members)]
        if rule.alternatives:
            variants = list(dict.fromkeys(_variant(f) for f in members if f.scope == USER))
            if len(variants) > 1:  # project and managed files join every installation
                groups = [
                    (v, [f for f in members if f.scope != USER or _variant(f) == v])
                    for v in variants
                ]
        for variant, group in groups:
            shown = f"{label} ({variant})" if variant else label
            loaded, lost = _resolve(group, rule, label)
            plans.append(
                ClientSessionPlan(
                    key=f"client:{client}" + (f":{variant}" if variant else ""),
                    client=client,
                    label=shown,
                    sources=tuple(f.source for f in group),
                    members=tuple(loaded),
                    overridden=tuple(lost),
                    precedence=rule.precedence,
                    documented=rule.documented,
                    rule_source=rule.source,
                )
            )
    return plans
