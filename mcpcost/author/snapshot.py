"""The committed snapshot of a server's cost (``DEFAULT_SNAPSHOT`` by default): what it holds, its one
text layout, reading it back, and checking a live measurement against it. Pure: values in,
values out (the command reads and writes the file, ``cli/snapshot_cmd.py``).

The file is small and reviewable: per profile (one, ``default``, unless the gate file names
profiles) the server's total, tool count and canonical hash, its instructions' tokens and hash,
the prompts, resources and resource templates it lists beside its tools, and one line per tool:
its tokens, the field split (``core.attribution``) and its body hash. The layout is fixed (keys
in one order, two-space indent, each tool on one line), so the same server gives the same bytes
and a change shows in a diff as the lines of the tools that moved. ``measuredBy`` says which
version of mcpcost wrote it; a check ignores it (the numbers are the methodology's, not a
version's), but refuses a file of another methodology or encoding: its numbers do not compare.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcpcost.core.attribution import (
    Attribution,
    ToolEntry,
    ToolField,
    ToolsSide,
    attribute,
    tool_entry,
)
from mcpcost.core.digest import sha256_hex
from mcpcost.core.jsonvalue import JSONValue, parse_json, quote_string, stringify
from mcpcost.core.model import ENCODING, METHODOLOGY_VERSION, ListingKind, Measurement
from mcpcost.core.tokenizer import Tokenizer, get_tokenizer
from mcpcost.errors import InputError, JSONSyntaxError

SNAPSHOT_VERSION = 1
DEFAULT_SNAPSHOT = "mcpcost.snapshot.json"
DEFAULT_PROFILE = "default"
TOOL_NAME = "mcp-context-cost (Python)"
SPLIT_NOTE = (
    "per tool: tokens of JSON.stringify(tool); description, inputSchema, outputSchema and "
    "annotations: tokens of each member's JSON alone; rest: the tool without those four; "
    "tokens minus the five is their keys and seams (docs/AUTHORS.md)"
)
_TOOL_KEYS = ("name", "tokens", *(str(f) for f in ToolField), "sha256")


@dataclass(frozen=True, slots=True, kw_only=True)
class TextStamp:
    """A text the server sends beside its tools (its instructions): tokens and SHA-256."""

    tokens: int
    sha256: str

    def to_dict(self) -> dict[str, Any]:
        return {"tokens": self.tokens, "sha256": self.sha256}


@dataclass(frozen=True, slots=True, kw_only=True)
class ListingStamp:
    """A prompts, resources or resource-templates list: its count, tokens and hash."""

    count: int
    tokens: int
    sha256: str

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "tokens": self.tokens, "canonicalSha256": self.sha256}


@dataclass(frozen=True, slots=True, kw_only=True)
class ProfileSnapshot:
    """One profile of the server (a way of starting it) as measured."""

    profile: str
    server: str
    total_tokens: int
    tool_count: int
    canonical_sha256: str
    instructions: TextStamp | None
    listings: Mapping[ListingKind, ListingStamp]
    tools: tuple[ToolEntry, ...]

    @property
    def side(self) -> ToolsSide:
        return ToolsSide(total_tokens=self.total_tokens, tools=self.tools)

    def to_dict(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "server": self.server,
            "totalTokens": self.total_tokens,
            "toolCount": self.tool_count,
            "canonicalSha256": self.canonical_sha256,
            "instructions": None if self.instructions is None else self.instructions.to_dict(),
            "listings": {str(k): v.to_dict() for k, v in sorted(self.listings.items())},
            "tools": [_tool_dict(t) for t in self.tools],
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class SnapshotFile:
    """The whole file: the methodology it was counted by, who wrote it, its profiles."""

    methodology_version: str
    encoding: str
    tool_version: str
    profiles: tuple[ProfileSnapshot, ...]

    def profile(self, name: str) -> ProfileSnapshot | None:
        return next((p for p in self.profiles if p.profile == name), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "snapshotVersion": SNAPSHOT_VERSION,
            "methodologyVersion": self.methodology_version,
            "encoding": self.encoding,
            "measuredBy": {"tool": TOOL_NAME, "version": self.tool_version},
            "split": SPLIT_NOTE,
            "profiles": [p.to_dict() for p in self.profiles],
        }


def _tool_dict(t: ToolEntry) -> dict[str, Any]:
    out: dict[str, Any] = {"name": t.name, "tokens": t.tokens}
    for f in ToolField:
        out[str(f)] = t.split.get(f, 0)
    out["sha256"] = t.body_sha256
    return out


def profile_snapshot(
    profile: str, server: str, m: Measurement, tokenizer: Tokenizer | None = None
) -> ProfileSnapshot:
    """A measured server's snapshot (``m`` must carry a number and its capture)."""
    tk = tokenizer or get_tokenizer()
    capture = m.raw_tools_capture
    if not m.has_number or not isinstance(capture, list) or m.canonical_sha256 is None:
        raise InputError(f"{server}: no tools capture to snapshot ({m.status})")
    instructions = m.server_instructions
    stamp = None
    if isinstance(instructions, str) and instructions:
        stamp = TextStamp(
            tokens=tk.count(instructions), sha256=sha256_hex(instructions.encode("utf-8"))
        )
    listings = {
        kind: ListingStamp(count=v.count, tokens=v.tokens, sha256=v.canonical_sha256)
        for kind, v in (m.listings or {}).items()
        if v.error is None
        and v.count is not None
        and v.tokens is not None
        and v.canonical_sha256 is not None
    }
    return ProfileSnapshot(
        profile=profile,
        server=server,
        total_tokens=m.total_tokens or 0,
        tool_count=len(capture),
        canonical_sha256=m.canonical_sha256,
        instructions=stamp,
        listings=listings,
        tools=tuple(tool_entry(t, tk) for t in capture),
    )


# ---------------------------------------------------------------- the file's one layout


def render_snapshot(s: SnapshotFile) -> str:
    """The file's text: keys in one order, two-space indent, each tool on one line."""
    lines = ["{"]
    top = s.to_dict()
    profiles = top.pop("profiles")
    for key, value in top.items():
        lines.append(f"  {quote_string(key)}: {stringify(value)},")
    lines.append('  "profiles": [')
    for i, p in enumerate(profiles):
        lines.append("    {")
        tools = p.pop("tools")
        for key, value in p.items():
            lines.append(f"      {quote_string(key)}: {stringify(value)},")
        lines.append('      "tools": [')
        lines += [
            f"        {stringify(t)}{',' if j < len(tools) - 1 else ''}"
            for j, t in enumerate(tools)
        ]
        lines.append("      ]")
        lines.append("    }" + ("," if i < len(profiles) - 1 else ""))
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def tool_lines(text: str) -> dict[tuple[str, str], int]:
    """The 1-based line of each tool's entry in a file of ``render_snapshot``'s layout, by
    (profile, tool name) (the first, when a name repeats); SARIF points at these."""
    out: dict[tuple[str, str], int] = {}
    profile: str | None = None
    for n, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip().rstrip(",")
        if stripped.startswith('"profile": '):
            value = parse_json(stripped[len('"profile": ') :])
            profile = value if isinstance(value, str) else None
        elif stripped.startswith('{"name":') and profile is not None:
            try:
                tool = parse_json(stripped)
            except JSONSyntaxError:
                continue
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                out.setdefault((profile, tool["name"]), n)
    return out


def profile_line(text: str, profile: str) -> int:
    """The line of a profile's ``"profile"`` key (1 when it is not in the file)."""
    want = f'"profile": {quote_string(profile)}'
    for n, line in enumerate(text.splitlines(), start=1):
        if line.strip().rstrip(",") == want:
            return n
    return 1


# ---------------------------------------------------------------- reading it back


def _bad(where: str, what: str) -> InputError:
    return InputError(f"{where}: {what}")


def _int(obj: Mapping[str, Any], key: str, where: str) -> int:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _bad(where, f"{key} must be a whole number of 0 or more")
    return value


def _str(obj: Mapping[str, Any], key: str, where: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise _bad(where, f"{key} must be a string")
    return value


def _obj(value: JSONValue, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _bad(where, "must be an object")
    return value


def _tool_from(raw: JSONValue, where: str) -> ToolEntry:
    obj = _obj(raw, where)
    unknown = sorted(set(obj) - set(_TOOL_KEYS))
    if unknown:
        raise _bad(where, f"unknown key {unknown[0]!r}")
    return ToolEntry(
        name=_str(obj, "name", where),
        tokens=_int(obj, "tokens", where),
        split={f: _int(obj, str(f), where) for f in ToolField},
        body_sha256=_str(obj, "sha256", where),
    )


def _profile_from(raw: JSONValue, where: str) -> ProfileSnapshot:
    obj = _obj(raw, where)
    instructions = obj.get("instructions")
    stamp = None
    if instructions is not None:
        i = _obj(instructions, f"{where}.instructions")
        stamp = TextStamp(
            tokens=_int(i, "tokens", f"{where}.instructions"),
            sha256=_str(i, "sha256", f"{where}.instructions"),
        )
    listings: dict[ListingKind, ListingStamp] = {}
    for key, value in _obj(obj.get("listings", {}), f"{where}.listings").items():
        if key not in {str(k) for k in ListingKind}:
            raise _bad(f"{where}.listings", f"unknown key {key!r}")
        v = _obj(value, f"{where}.listings.{key}")
        listings[ListingKind(key)] = ListingStamp(
            count=_int(v, "count", f"{where}.listings.{key}"),
            tokens=_int(v, "tokens", f"{where}.listings.{key}"),
            sha256=_str(v, "canonicalSha256", f"{where}.listings.{key}"),
        )
    tools = obj.get("tools")
    if not isinstance(tools, list):
        raise _bad(where, "tools must be an array")
    return ProfileSnapshot(
        profile=_str(obj, "profile", where),
        server=_str(obj, "server", where),
        total_tokens=_int(obj, "totalTokens", where),
        tool_count=_int(obj, "toolCount", where),
        canonical_sha256=_str(obj, "canonicalSha256", where),
        instructions=stamp,
        listings=listings,
        tools=tuple(_tool_from(t, f"{where}.tools[{i}]") for i, t in enumerate(tools)),
    )


def parse_snapshot(text: str | bytes, where: str) -> SnapshotFile:
    """A snapshot file's contents, shape-checked; ``InputError`` names the first problem."""
    try:
        raw = parse_json(text)
    except JSONSyntaxError as exc:
        raise _bad(where, f"not JSON ({exc})") from None
    obj = _obj(raw, where)
    if obj.get("snapshotVersion") != SNAPSHOT_VERSION:
        raise _bad(where, f"snapshotVersion must be {SNAPSHOT_VERSION}")
    by = _obj(obj.get("measuredBy"), f"{where}.measuredBy")
    profiles = obj.get("profiles")
    if not isinstance(profiles, list) or not profiles:
        raise _bad(where, "profiles must be a non-empty array")
    parsed = tuple(_profile_from(p, f"{where}.profiles[{i}]") for i, p in enumerate(profiles))
    names = [p.profile for p in parsed]
    if len(set(names)) != len(names):
        raise _bad(where, "two profiles share a name")
    return SnapshotFile(
        methodology_version=_str(obj, "methodologyVersion", where),
        encoding=_str(obj, "encoding", where),
        tool_version=_str(by, "version", f"{where}.measuredBy"),
        profiles=parsed,
    )


def comparable(s: SnapshotFile) -> str | None:
    """Why a snapshot's numbers cannot be compared with this version's, or None."""
    if s.methodology_version != METHODOLOGY_VERSION or s.encoding != ENCODING:
        return (
            f"it was counted by methodology {s.methodology_version} ({s.encoding}); this "
            f"version counts by {METHODOLOGY_VERSION} ({ENCODING}): record it again with --update"
        )
    return None


# ---------------------------------------------------------------- checking


@dataclass(frozen=True, slots=True, kw_only=True)
class ProfileCheck:
    """One profile of the committed snapshot against the live server. ``committed`` None: the
    profile is new; ``live`` None: it is no longer measured."""

    profile: str
    committed: ProfileSnapshot | None
    live: ProfileSnapshot | None
    attribution: Attribution | None
    instructions: tuple[int | None, int | None] | None  # tokens before, after (when changed)
    listings: tuple[tuple[ListingKind, ListingStamp | None, ListingStamp | None], ...]

    @property
    def matches(self) -> bool:
        if self.committed is None or self.live is None:
            return False
        return self.committed.to_dict() == self.live.to_dict()


def _instructions_move(
    a: TextStamp | None, b: TextStamp | None
) -> tuple[int | None, int | None] | None:
    if a == b:
        return None
    return (None if a is None else a.tokens, None if b is None else b.tokens)


def check_profiles(
    committed: SnapshotFile, live: Sequence[ProfileSnapshot], *, floor: int
) -> tuple[ProfileCheck, ...]:
    """Each profile, committed or live, compared (in the committed order, new ones after)."""
    now = {p.profile: p for p in live}
    names = [p.profile for p in committed.profiles]
    names += [p.profile for p in live if p.profile not in names]
    out: list[ProfileCheck] = []
    for name in names:
        was, is_ = committed.profile(name), now.get(name)
        attribution = None
        instructions = None
        listings: list[tuple[ListingKind, ListingStamp | None, ListingStamp | None]] = []
        if was is not None and is_ is not None:
            attribution = attribute(was.side, is_.side, floor=floor)
            instructions = _instructions_move(was.instructions, is_.instructions)
            for kind in ListingKind:
                a, b = was.listings.get(kind), is_.listings.get(kind)
                if a != b:
                    listings.append((kind, a, b))
        out.append(
            ProfileCheck(
                profile=name,
                committed=was,
                live=is_,
                attribution=attribution,
                instructions=instructions,
                listings=tuple(listings),
            )
        )
    return tuple(out)
