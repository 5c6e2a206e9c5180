"""What a client does with a config file it cannot parse: the ``broken_files`` slot of ``Client``.

Each rule is a model of the client's documented or reported behaviour, never an observation of
it, with its ``Provenance``; a client with no rule has nothing on record, and the report says
only what mcpcost itself knows (it could not parse the file, so none of its servers are in the
report). A rule speaks for files mcpcost could not parse even with its lenient JSON reading
(comments and trailing commas allowed), so a client reading strict JSON cannot parse them either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mcpcost.configs.clients.presentation import Provenance
from mcpcost.configs.config_file import Scope


@dataclass(frozen=True, slots=True, kw_only=True)
class BrokenFileRule:
    """What the client does when one of its files at ``scopes`` cannot be parsed."""

    scopes: frozenset[Scope]
    says: str  # one sentence, in the report's words: "<Client> will not load this file either: …"
    provenance: Provenance


def rule_for(rules: Sequence[BrokenFileRule], scope: Scope) -> BrokenFileRule | None:
    """The first rule of ``rules`` that covers a file at ``scope``, or None."""
    return next((r for r in rules if scope in r.scopes), None)
