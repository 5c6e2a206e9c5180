"""How a client presents MCP tools to its model: the ``Presentation`` slot of ``Client``.

Everything here is a model of another product's documented or reported behaviour, never an
observation of it, and each rule carries its ``Provenance`` (source, date, confidence). A slot
left empty means no rule is on record for that client, and the report says so; nothing is
guessed.

Two kinds of rule live here. The deferral posture (``DeferralModel``), which Claude Code's module
supplies for its tool search and the audit's deferral verdict uses. And the client lens's rules
(``ModelName``, ``NameLimit``, ``NamePattern``, ``Projection``, ``TextLimit``,
``ToolCountLimit``, ``SchemaRule``, ``HiddenTools``, ``DeferralRegime``, ``ToolFilter``): the
name the model sees, the API shape definitions are projected onto, truncation, limits per
request, hidden tools and what deferral keeps; one entry per rule in the client's module.
``NotedRule`` records what is on record and not applied, for the docs.

The deferral model resolves a client's posture (``Posture``) from the shell the client starts in
and the settings files it reads (``SettingsSource`` per file, ``Setting`` for the value that
decided); the audit's generic arithmetic (``mcpcost.audit.deferral``) turns a posture and a
session's numbers into the verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from mcpcost.configs.clients.settings_files import ClientSettings, ReadState, SettingsLayer


class Confidence(StrEnum):
    """How sure a rule about another product is."""

    DOCUMENTED = "documented"  # the product's own documentation says so
    SOURCE_CODE = "source-code"  # read in the product's published source
    REPORTED = "reported"  # users report it (issues, forums); not confirmed by the vendor


@dataclass(frozen=True, slots=True, kw_only=True)
class Provenance:
    """Where a rule about a client comes from."""

    source: str  # a URL, or a repository path at a commit
    date: str  # when it was last checked (YYYY-MM or YYYY-MM-DD)
    confidence: Confidence


class DeferralMode(StrEnum):
    """What a client session's tool definitions cost up front, by the client's deferral regime."""

    CLIENT_UNKNOWN = "client-unknown"  # a --config file: nobody said which client reads it
    NONE_ON_RECORD = "no-deferral-on-record"  # the client's module records no deferral
    SETTING_UNRESOLVED = "setting-unresolved"  # the deciding setting cannot be read or agreed
    SETTING_UNRECOGNIZED = "setting-unrecognized"  # set to a value the client does not document
    LOADS_UPFRONT = "loads-upfront"  # deferral is off here
    DEFERS_ALL = "defers-all"  # every definition is deferred, at any size
    THRESHOLD = "threshold"  # deferred once the definitions reach a share of the context
    # the vendor decides per account, out of this machine's sight, whether it defers: that it
    # does cannot be said here, whatever the files and the shell hold
    VENDOR_GATED = "vendor-gated"
    MODEL_DEPENDENT = "model-dependent"  # deferred with some models only

    @property
    def defers(self) -> bool:
        """True when definitions are (or may be, past a threshold) kept out of the request."""
        return self in (DeferralMode.DEFERS_ALL, DeferralMode.THRESHOLD)

    @property
    def cannot_say(self) -> bool:
        """True when what decides loading is not known to us: the posture says nothing either
        way, so the session's verdict is ``LoadVerdict.CANNOT_BE_SAID``."""
        return self in _CANNOT_SAY

    @property
    def verdict(self) -> LoadVerdict | None:
        """The load verdict this posture gives on its own (None: a threshold, which the
        session's numbers decide)."""
        if self is DeferralMode.LOADS_UPFRONT:
            return LoadVerdict.LOADED_UP_FRONT
        if self is DeferralMode.DEFERS_ALL:
            return LoadVerdict.DEFERRED
        if self is DeferralMode.THRESHOLD:
            return None
        return LoadVerdict.CANNOT_BE_SAID


# the postures under which whether a session's definitions load up front is not known to us
_CANNOT_SAY = frozenset(
    {
        DeferralMode.CLIENT_UNKNOWN,
        DeferralMode.NONE_ON_RECORD,
        DeferralMode.SETTING_UNRESOLVED,
        DeferralMode.SETTING_UNRECOGNIZED,
        DeferralMode.MODEL_DEPENDENT,
        DeferralMode.VENDOR_GATED,
    }
)


class LoadVerdict(StrEnum):
    """The one verdict on a client session's definitions (``ModelView.verdict``)."""

    LOADED_UP_FRONT = "loaded-up-front"  # the client sends them on every request
    DEFERRED = "deferred"  # kept back (all, or all but alwaysLoad-pinned servers and stubs)
    CANNOT_BE_SAID = "cannot-be-said"  # what decides it is not known to us

    @property
    def words(self) -> str:
        """The verdict in a sentence ("loaded up front")."""
        return self.value.replace("-", " ")


Unresolved = Literal["sources-disagree", "value-unreadable", "source-unreadable"]
SHELL_SOURCE = "(shell environment)"  # the ``source`` of the shell's layer


@dataclass(frozen=True, slots=True, kw_only=True)
class SettingsSource:
    """One place a deciding variable is read from, as it was found (a settings file or the shell).

    ``sets`` names the deciding variables it sets (in the client's order), ``values`` their
    non-empty string values, ``unreadable`` the ones set to something that is not a string."""

    layer: SettingsLayer
    source: str  # a path, or SHELL_SOURCE
    state: ReadState
    sets: tuple[str, ...] = ()
    values: tuple[tuple[str, str], ...] = ()
    unreadable: tuple[str, ...] = ()

    def value(self, name: str) -> str | None:
        return dict(self.values).get(name)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "scope": self.layer,  # the report's key for the settings layer
            "source": self.source,
            "state": self.state,
            "sets": list(self.sets),
        }
        if self.unreadable:
            out["unreadable"] = list(self.unreadable)
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Setting:
    """How the deciding variable was resolved, and every place that was consulted."""

    variable: str | None
    value: str | None
    read_from_machine: bool
    source: str | None
    sources: tuple[SettingsSource, ...]
    settings_read: bool  # False when the settings files were not read at all
    unresolved: Unresolved | None
    value_is_host: bool = False  # ``value`` is the host a URL setting points at

    def to_dict(self) -> dict[str, Any]:
        return {
            "variable": self.variable,
            "value": self.value,
            "readFromMachine": self.read_from_machine,
            "source": self.source,
            "sources": [s.to_dict() for s in self.sources],
            "settingsRead": self.settings_read,
            "unresolved": self.unresolved,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Posture:
    """A client's resolved deferral posture on this machine, before any arithmetic."""

    mode: DeferralMode
    setting: Setting
    threshold_share: float | None = None  # with THRESHOLD: the share of the context window


@dataclass(frozen=True, slots=True, kw_only=True)
class DeferralModel:
    """A client's deferral regime, as its documentation describes it.

    ``sources`` parses the client's settings files (as read at the edge) into what they set of
    the deciding variables; ``resolve`` turns the shell's variables and those sources (None: the
    settings files were not read) into a posture. Both are pure. The text fields are what the
    report says about the regime in the client's own terms."""

    mechanism: str  # the client's name for the mechanism ("tool-search")
    provenance: Provenance
    sources: Callable[[ClientSettings], tuple[SettingsSource, ...]]
    resolve: Callable[[Mapping[str, str], Sequence[SettingsSource] | None], Posture]
    reads_from: str  # where the client takes the deciding variables from, as a phrase
    documented_values: tuple[str, ...]  # the values of the deciding variable it documents
    exceptions: tuple[str, ...] = ()  # where deferral does not apply, whatever the setting


class ApiShape(StrEnum):
    """The model API shape a client projects MCP tool definitions onto before sending them."""

    ANTHROPIC = "anthropic"  # {name, description, input_schema}
    OPENAI_FUNCTION = "openai-function"  # {type: "function", name, description, parameters}
    GEMINI = "gemini-function"  # functionDeclarations {name, description, parameters(JsonSchema)}


class Effect(StrEnum):
    """What a client does when a rule applies. The limits gate fails on DROPS, REJECTS and CUTS."""

    DROPS = "drops"  # the tool (or server) is left out of what the model gets
    REJECTS = "rejects"  # the model API refuses the whole request
    CUTS = "cuts"  # text is truncated before the model sees it
    RENAMES = "renames"  # the name the model sees differs from the server's (no loss)
    HIDES = "hides"  # kept from the model on purpose (app-only tools): not a failure
    DISGUISES = "disguises"  # a name reads as another to a person (hidden characters)

    @property
    def breaks(self) -> bool:
        """True when the client drops, rejects or cuts something (what ``--fail-on-limits`` fails)."""
        return self in (Effect.DROPS, Effect.REJECTS, Effect.CUTS)


class FindingKind(StrEnum):
    """The stable kind of a client-lens finding (SARIF rule ids are derived from these)."""

    NAME_TOO_LONG = "name-too-long"
    NAME_INVALID = "name-invalid"
    NAME_COLLISION = "name-collision"  # two tools end up with one model-visible name
    TOO_MANY_TOOLS = "too-many-tools"
    DESCRIPTION_TRUNCATED = "description-truncated"
    INSTRUCTIONS_TRUNCATED = "instructions-truncated"
    SCHEMA_UNSUPPORTED = "schema-unsupported"
    HIDDEN_FROM_MODEL = "hidden-from-model"
    NAME_INVISIBLE = "name-invisible"  # a tool name holds characters that display as nothing


# --------------------------------------------------------------------------- lens rules
# Each rule below is one entry in a client's module, with its ``Provenance``; the client lens
# (``mcpcost.audit.lens``) applies them to a session's measured tools.


@dataclass(frozen=True, slots=True, kw_only=True)
class ModelName:
    """The name the model sees for a server's tool, before any length rule.

    ``build`` (server name, tool name) -> that name; ``template`` shows it in the docs
    (``mcp__{server}__{tool}``) and ``rewrite`` says in words what it does to characters."""

    template: str
    build: Callable[[str, str], str]
    rewrite: str
    provenance: Provenance
    dedupes: bool = False  # the client makes colliding names unique itself (a hash suffix)


NameSubject = Literal["model-name", "server-and-tool"]


@dataclass(frozen=True, slots=True, kw_only=True)
class NameLimit:
    """A length limit on a tool's name. ``subject``: the model-visible name, or the server's
    name plus the tool's (Cursor's rule). With ``effect`` RENAMES the client shortens the name
    itself (``shorten``: the long name -> the one the model sees); otherwise it drops the tool
    or the API rejects the request. ``deferred_only``: the limit bites only when the tool is
    deferred (a tool-search reference)."""

    subject: NameSubject
    max_length: int
    effect: Effect
    rule: str
    fix: str
    provenance: Provenance
    shorten: Callable[[str], str] | None = None
    deferred_only: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class NamePattern:
    """The characters a model-visible name may have (a full-match regular expression)."""

    pattern: str
    effect: Effect
    rule: str
    fix: str
    provenance: Provenance


TextSubject = Literal["description", "instructions"]


@dataclass(frozen=True, slots=True, kw_only=True)
class TextLimit:
    """A tool description or a server's instructions cut at ``max_chars`` characters;
    ``marker`` is what the client appends to a cut text (counted in what the model gets)."""

    subject: TextSubject
    max_chars: int
    marker: str
    provenance: Provenance


ToolCountScope = Literal["request", "session"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCountLimit:
    """At most ``max_tools`` tools per request (or per session) for the whole session."""

    max_tools: int
    scope: ToolCountScope
    effect: Effect
    rule: str
    fix: str
    provenance: Provenance


@dataclass(frozen=True, slots=True, kw_only=True)
class Projection:
    """The API shape a client's definitions are projected onto. ``schema_key``: the key the
    input schema goes under; every MCP tool field but ``name``, ``description`` and
    ``inputSchema`` is dropped (``drops`` lists the ones the MCP spec defines, for the docs);
    ``adds`` are fields the client sets itself, placed before the schema as it sends them."""

    shape: ApiShape
    schema_key: str
    provenance: Provenance
    drops: tuple[str, ...] = ("title", "outputSchema", "annotations", "icons", "_meta")
    adds: tuple[tuple[str, Any], ...] = ()  # fields the client sets on every definition
    note: str = ""  # what the client is on record changing that the lens does not model


@dataclass(frozen=True, slots=True, kw_only=True)
class SchemaRule:
    """Input-schema keywords a client or its API does not serve (found at any depth)."""

    keywords: tuple[str, ...]
    effect: Effect
    rule: str
    fix: str
    provenance: Provenance


@dataclass(frozen=True, slots=True, kw_only=True)
class HiddenTools:
    """Tools the client keeps from the model: MCP Apps app-only tools
    (``_meta.ui.visibility`` without ``"model"``)."""

    rule: str
    provenance: Provenance


class Kept(StrEnum):
    """What stays in the model's context for a deferred tool."""

    NAMES = "names"
    DESCRIPTIONS = "descriptions"
    INSTRUCTIONS = "instructions"  # the server's instructions stay in the system prompt


class Trigger(StrEnum):
    """When a client's deferral regime defers a session's MCP tools."""

    VERDICT = "verdict"  # the session's deferral verdict decides (the client's DeferralModel)
    ALWAYS = "always"  # every MCP tool, at any size
    TOOL_COUNT = "tool-count"  # once the session has at least ``min_tools`` MCP tools
    MODEL_DEPENDENT = "model-dependent"  # with some models only: counted up front (worst case)


@dataclass(frozen=True, slots=True, kw_only=True)
class DeferralRegime:
    """A client's deferral regime as the lens applies it, and what stays in context."""

    mechanism: str
    trigger: Trigger
    keeps: tuple[Kept, ...]
    provenance: Provenance
    min_tools: int | None = None
    note: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolFilter:
    """How a user switches single tools of a server off, in the client's terms (the report's
    remedies name it where it takes the definition out of the model's context)."""

    how: str
    provenance: Provenance
    removes_definition: bool = True  # False: on record as leaving the definition in context


@dataclass(frozen=True, slots=True, kw_only=True)
class NotedRule:
    """A rule on record about how a client presents tools that the lens does not apply (a
    nudge in its prompt, a key it ignores, names it keeps listed): ``docs/CLIENTS.md`` shows
    it with its source, so the report's silence about it is not read as its absence.
    ``topic`` is the page's rule column, ``then`` what the client then does."""

    topic: str
    says: str
    then: str
    provenance: Provenance


@dataclass(frozen=True, slots=True, kw_only=True)
class Presentation:
    """How one client presents MCP tools to its model; an empty field: no rule on record.

    ``deferral`` is the posture model the audit's deferral verdict uses (Claude Code's tool
    search); ``regime`` is the deferral regime the lens applies (``Trigger.VERDICT`` defers to
    that verdict). The other fields are the client lens's rules, one entry per rule, each with
    its ``Provenance``; ``mcpcost.audit.lens`` applies them."""

    deferral: DeferralModel | None = None
    name: ModelName | None = None
    name_limits: tuple[NameLimit, ...] = ()
    name_pattern: NamePattern | None = None
    projection: Projection | None = None
    text_limits: tuple[TextLimit, ...] = ()
    tool_limits: tuple[ToolCountLimit, ...] = ()
    schema_rules: tuple[SchemaRule, ...] = ()
    hidden: HiddenTools | None = None
    regime: DeferralRegime | None = None
    tool_filter: ToolFilter | None = None
    noted: tuple[NotedRule, ...] = ()  # on record, not applied by the lens

    @property
    def on_record(self) -> bool:
        """False when no rule about this client is on record."""
        return any(
            (
                self.deferral,
                self.name,
                self.name_limits,
                self.name_pattern,
                self.projection,
                self.text_limits,
                self.tool_limits,
                self.schema_rules,
                self.hidden,
                self.regime,
                self.tool_filter,
                self.noted,
            )
        )


NOTHING_ON_RECORD = Presentation()
