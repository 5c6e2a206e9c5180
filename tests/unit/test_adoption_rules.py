"""badge-sightings/v1 rules: classification, the count's refusals, sightings across readings, the
state file and the page (``mcpcost.adoption.sightings``)."""

from __future__ import annotations

import pytest

from mcpcost.adoption.sightings import (
    PROJECT,
    Examined,
    Project,
    QueryResult,
    Sighting,
    StateError,
    adoption_page,
    classify,
    decode_loose,
    finish,
    fold,
    is_projects_own,
    not_run,
    parse_reading,
    queries,
    reading_json,
    resolve,
)
from mcpcost.core.badge import readme_snippet

RAW = f"https://{PROJECT.raw_badges}/memory.json"
OK_QUERIES = [QueryResult(query=q, hits=0, read=0) for q in queries(PROJECT)]


def test_the_four_queries_are_the_encoded_and_plain_badge_url_the_pages_site_and_the_name() -> None:
    assert queries(PROJECT) == (
        '"raw.githubusercontent.com%2Fmcp-context-cost%2Fmcp-context-cost%2Fmain%2Fbadges"',
        '"raw.githubusercontent.com/mcp-context-cost/mcp-context-cost/main/badges"',
        '"mcp-context-cost.github.io/mcp-context-cost"',
        '"mcp-context-cost"',
    )


def test_decode_loose_undoes_each_escape_and_leaves_malformed_ones() -> None:
    assert decode_loose("a%2Fb%zz%2") == "a/b%zz%2"
    assert decode_loose("%252F") == "%2F"  # one level only


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (readme_snippet(RAW, "https://example.org/anything"), "badge"),  # served from badges/
        (f"![x](https://img.shields.io/endpoint?url={RAW})", "badge"),  # unencoded
        (readme_snippet(RAW, "x").upper(), "badge"),  # case-insensitive
        # someone else's endpoint badge, linked back to this project's repository
        (
            "[![c](https://img.shields.io/endpoint?url=https%3A%2F%2Fa.example%2Fb.json)]"
            "(https://github.com/mcp-context-cost/mcp-context-cost)",
            "badge",
        ),
        # an HTML anchor around the image, pointing at the Pages site
        (
            '<a href="https://mcp-context-cost.github.io/mcp-context-cost/">'
            '<img src="https://img.shields.io/endpoint?url=https%3A%2F%2Fa.example%2Fb.json"></a>',
            "badge",
        ),
        # an endpoint badge of another project, and this project merely named
        (
            "[![c](https://img.shields.io/endpoint?url=https%3A%2F%2Fa.example%2Fb.json)]"
            "(https://a.example) built with mcp-context-cost",
            "mention",
        ),
        # a closed anchor before the image is not its link
        (
            '<a href="https://github.com/mcp-context-cost/mcp-context-cost">home</a> '
            "![c](https://img.shields.io/endpoint?url=https%3A%2F%2Fa.example%2Fb.json)",
            "mention",
        ),
        ("a fork of athakur3/mcp-context-cost", "mention"),
        ("nothing about it any more", None),  # the index was stale
    ],
)
def test_classify(text: str, kind: str | None) -> None:
    assert classify(text, PROJECT) == kind


def test_another_projects_badges_folder_is_not_ours() -> None:
    other = "https://raw.githubusercontent.com/someone/else/main/badges/x.json"
    assert classify(f"![c](https://img.shields.io/endpoint?url={other})", PROJECT) is None


def test_the_owner_s_repositories_are_excluded() -> None:
    assert is_projects_own("MCP-Context-Cost/fork", PROJECT)
    assert not is_projects_own("alice/mcp-context-cost", PROJECT)


@pytest.mark.parametrize(
    ("results", "examined", "why"),
    [
        ([], [], "no query ran"),
        ([QueryResult(query="q", error="HTTP 422"), *OK_QUERIES[1:]], [], "1 of 4 queries failed"),
        ([QueryResult(query="q", hits=900, read=300, truncated=True)], [], "1 of 1 queries were"),
        (OK_QUERIES, [Examined(repo="a/b", path="p", url="", error="HTTP 404")], "1 of 1 files"),
    ],
)
def test_the_count_is_refused_with_the_reason(
    results: list[QueryResult], examined: list[Examined], why: str
) -> None:
    reason = resolve(results, examined)
    assert reason is not None and reason.startswith(why)
    reading = finish(PROJECT, "2026-12-02", results, examined, None, "")
    assert reading.count is None and reading.unresolved == reason


def test_fold_keeps_the_first_day_moves_the_last_and_keeps_vanished_sightings() -> None:
    old = [
        Sighting(
            repo="a/b",
            path="R",
            url="u",
            kind="badge",
            first_seen="2026-01-01",
            last_seen="2026-01-01",
        ),
        Sighting(
            repo="c/d",
            path="R",
            url="u",
            kind="badge",
            first_seen="2026-01-01",
            last_seen="2026-01-01",
        ),
    ]
    today = [
        Examined(repo="a/b", path="R", url="u2", kind="badge"),
        Examined(repo="e/f", path="R", url="u", kind="mention"),
        Examined(repo="g/h", path="R", url="u", kind=None),
    ]
    got = {(s.repo, s.first_seen, s.last_seen, s.kind) for s in fold(old, today, "2026-02-02")}
    assert got == {
        ("a/b", "2026-01-01", "2026-02-02", "badge"),
        ("c/d", "2026-01-01", "2026-01-01", "badge"),
        ("e/f", "2026-02-02", "2026-02-02", "mention"),
    }


def test_only_repositories_showing_the_badge_today_count_and_each_once() -> None:
    examined = [
        Examined(repo="a/b", path="README.md", url="", kind="badge"),
        Examined(repo="a/b", path="docs/x.md", url="", kind="badge"),
        Examined(repo="c/d", path="README.md", url="", kind="mention"),
    ]
    earlier = finish(
        PROJECT,
        "2026-01-01",
        OK_QUERIES,
        [Examined(repo="z/z", path="R", url="", kind="badge")],
        None,
        "",
    )
    reading = finish(PROJECT, "2026-12-02", OK_QUERIES, examined, earlier, "")
    assert reading.count == 1 and reading.badge_repos == ("a/b",)
    assert "z/z" in {s.repo for s in reading.sightings}  # kept, not counted


def test_the_state_file_round_trips() -> None:
    examined = [Examined(repo="a/b", path="R", url="u", kind="badge")]
    reading = finish(PROJECT, "2026-12-02", OK_QUERIES, examined, None, "limits")
    again = parse_reading(reading_json(reading))
    assert again == reading
    assert parse_reading(reading_json(not_run(PROJECT, "2026-12-03", "no token", again))) == (
        not_run(PROJECT, "2026-12-03", "no token", again)
    )


@pytest.mark.parametrize(
    "text",
    [
        "[]",
        '{"method": "other"}',
        '{"method": "badge-sightings/v1", "project": "no-slash", "branch": "main", "date": "x"}',
        '{"method": "badge-sightings/v1", "project": "a/b", "branch": "main", "date": "today"}',
        '{"method": "badge-sightings/v1", "project": "a/b", "branch": "main", '
        '"date": "2026-01-01", "sightings": [{"kind": "badge"}]}',
    ],
)
def test_a_malformed_state_file_is_refused(text: str) -> None:
    with pytest.raises(StateError):
        parse_reading(text)


def test_a_day_that_could_not_run_says_so_and_never_shows_a_zero() -> None:
    page = adoption_page(not_run(PROJECT, "2026-12-02", "no GitHub token", None))
    assert "**Not measured on 2026-12-02**" in page
    assert "No reading has completed yet." in page
    assert "0 repositories" not in page and "## Queries\n" not in page
    assert "## Queries it would run" in page


def test_hostile_names_in_the_page_are_inert() -> None:
    evil = Examined(
        repo="x/y", path="<script>|[a](https://evil.example)\n@admin", url="", kind="mention"
    )
    page = adoption_page(finish(Project("a/b"), "2026-12-02", OK_QUERIES, [evil], None, ""))
    row = next(line for line in page.splitlines() if line.startswith("| `x/y`"))
    assert row.count(" | ") == 2  # no cell break from the path's pipe
    assert "<script>" in row and "\\|" in row  # inside a code span: shown, not parsed
    assert "\n@admin" not in page
