"""A registry swept as a stream: pages read only as entries are drawn, shards by name."""

from __future__ import annotations

from typing import Any

import pytest

from mcpcost.cli.sweep_cmd import RegistryFeed
from mcpcost.errors import UsageError
from mcpcost.sweep.registry_source import stream_pages
from mcpcost.sweep.shard import name_in_shard, name_shard, select_shard, stream_shard

OFFICIAL = "io.modelcontextprotocol.registry/official"


def page(start: int, count: int, *, last: bool) -> dict[str, Any]:
    servers = [
        {
            "server": {
                "name": f"io.github.t/s-{i}",
                "version": "1.0.0",
                "remotes": [{"type": "streamable-http", "url": f"https://s{i}.example/mcp"}],
            },
            "_meta": {OFFICIAL: {"status": "active"}},
        }
        for i in range(start, start + count)
    ]
    meta: dict[str, Any] = {} if last else {"nextCursor": str(start + count)}
    return {"servers": servers, "metadata": meta}


class Registry:
    """Three pages of 100, 100 and 50 entries; counts the pages read."""

    def __init__(self) -> None:
        self.read: list[str] = []

    def get_json(self, url: str) -> Any:
        self.read.append(url)
        cursor = url.partition("cursor=")[2]
        start = int(cursor) if cursor else 0
        return page(start, 100 if start < 200 else 50, last=start >= 200)


def feed(reg: Registry, **kwargs: Any) -> RegistryFeed:
    lines: list[str] = []
    f = RegistryFeed(
        "https://registry.example",
        stream_pages("https://registry.example", reg.get_json),
        shard=kwargs.pop("shard", None),
        keep_entries=kwargs.pop("keep_entries", False),
        progress=lines.append,
        **kwargs,
    )
    f.lines = lines  # type: ignore[attr-defined]
    return f


def test_a_page_is_read_only_when_the_entries_before_it_are_drawn() -> None:
    reg = Registry()
    entries = iter(feed(reg))
    drawn = [next(entries) for _ in range(100)]
    assert len(reg.read) == 1  # the first page's hundred entries, and nothing more read
    next(entries)
    assert len(reg.read) == 2
    rest = list(entries)
    assert len(drawn) + 1 + len(rest) == 250 and len(reg.read) == 3


def test_a_publishing_sweep_keeps_the_entries_a_shard_keeps_none() -> None:
    reg = Registry()
    shard = feed(reg, keep_entries=False)
    assert sum(1 for _ in shard) == 250 and shard.entries == []
    kept = feed(Registry(), keep_entries=True)
    names = [e.name for e in kept]
    assert [e.name for e in kept.catalog().entries] == names
    assert kept.lines[-1].startswith("registry: 250 entries on 3 pages")  # type: ignore[attr-defined]


def test_the_shards_of_a_registry_partition_it_by_name() -> None:
    everything = {e.name for e in feed(Registry())}
    slices = [{e.name for e in feed(Registry(), shard=(4, k))} for k in range(4)]
    assert set().union(*slices) == everything
    assert sum(len(s) for s in slices) == len(everything)
    assert all(name_in_shard(n, 4, k) for k, s in enumerate(slices) for n in s)


def test_a_name_keeps_its_shard_whatever_else_the_registry_holds() -> None:
    """Unlike a slice by position: an entry published during the matrix moves nothing else."""
    names = [f"io.github.t/s-{i}" for i in range(2560)]
    before = {n: name_shard(n, 256) for n in names}
    after = {n: name_shard(n, 256) for n in ["io.github.a/new", *names]}
    assert all(after[n] == before[n] for n in names)
    assert len(set(before.values())) > 250  # spread over the shards
    positional = select_shard(names, 256, 7)
    assert select_shard(["io.github.a/new", *names], 256, 7) != positional


def test_stream_shard_checks_its_arguments_before_drawing() -> None:
    with pytest.raises(UsageError):
        stream_shard(iter([]), 4, 4)
    assert list(stream_shard(iter(range(10)), 3, 1)) == [1, 4, 7]
