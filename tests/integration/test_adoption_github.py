"""``mcpcost adoption`` against a loopback GitHub whose requests and answers are validated by
GitHub's OpenAPI description (``tests/helpers/code_search_fake.py``)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcpcost.adoption.sightings import PROJECT, queries
from mcpcost.cli import adoption_cmd
from mcpcost.core.badge import readme_snippet
from tests.helpers.code_search_fake import FakeCodeSearch, Hosted

ENCODED, PLAIN, PAGES, NAME = queries(PROJECT)
RAW = f"https://{PROJECT.raw_badges}/memory.json"
SNIPPET = readme_snippet(RAW, f"https://{PROJECT.pages}/")


@pytest.fixture(name="gh")
def gh_fixture() -> Iterator[FakeCodeSearch]:
    fake = FakeCodeSearch().start()
    yield fake
    fake.stop()


def adoption(
    gh: FakeCodeSearch, out: Path, *, token: str = "ghs_testtoken"
) -> tuple[int, str, str, list[float]]:
    slept: list[float] = []
    o, e = io.StringIO(), io.StringIO()
    env = {"GITHUB_TOKEN": token} if token else {}
    reader = adoption_cmd.github_reader(sleep=slept.append, clock=lambda: 1000.0)
    argv = ["--out", str(out), "--date", "2026-12-02", "--api-url", gh.url]
    code = adoption_cmd.run(argv, o, e, environ=env, reader=reader)
    return code, o.getvalue(), e.getvalue(), slept


def state(out: Path) -> dict[str, object]:
    doc = json.loads((out / "results" / "badge-adoption.json").read_text())
    assert isinstance(doc, dict)
    return doc


def test_a_third_party_readme_with_the_snippet_is_counted_once_and_every_file_is_listed(
    gh: FakeCodeSearch, tmp_path: Path
) -> None:
    gh.files = [
        Hosted("alice/tool", "README.md", f"# tool\n\n{SNIPPET}\n", (ENCODED, NAME)),
        Hosted("alice/tool", "docs/index.md", f"{SNIPPET}\n", (ENCODED,)),
        Hosted("bob/list", "README.md", "see mcp-context-cost for numbers", (NAME,)),
        Hosted(PROJECT.repo, "README.md", SNIPPET, (ENCODED, PLAIN, NAME)),  # our own
    ]
    code, out, err, slept = adoption(gh, tmp_path)
    assert gh.problems == []
    assert code == 0, err
    doc = state(tmp_path)
    assert doc["thirdPartyRepos"] == 1 and doc["unresolved"] is None
    examined = {(e["repo"], e["path"]): e["kind"] for e in doc["examined"]}  # type: ignore[attr-defined]
    assert examined == {
        ("alice/tool", "README.md"): "badge",
        ("alice/tool", "docs/index.md"): "badge",
        ("bob/list", "README.md"): "mention",
    }
    # the four queries ran, seven seconds apart (code search allows about ten a minute)
    assert [q["q"][0] for q in gh.searches()] == [ENCODED, PLAIN, PAGES, NAME]
    assert slept == [7.0, 7.0, 7.0]
    # authenticated, 100 a page
    assert all(q["per_page"] == ["100"] for q in gh.searches())
    assert all(h.get("Authorization") == "Bearer ghs_testtoken" for _, _, h in gh.requests)
    page = (tmp_path / "docs" / "adoption.md").read_text()
    assert "**1 repository outside this project displayed the badge on 2026-12-02**" in page
    assert "`alice/tool` | `docs/index.md` | badge" in page
    assert "`bob/list` | `README.md` | mention" in page
    assert "ghs_testtoken" not in page + out + err + json.dumps(doc)


def test_a_zero_is_published_only_when_every_query_ran_whole(
    gh: FakeCodeSearch, tmp_path: Path
) -> None:
    code, _, err, _ = adoption(gh, tmp_path)
    assert gh.problems == [] and code == 0, err
    assert state(tmp_path)["thirdPartyRepos"] == 0
    page = (tmp_path / "docs" / "adoption.md").read_text()
    assert "**0 repositories outside this project displayed the badge" in page
    assert "Zero is a reading" in page


def test_a_failed_query_refuses_the_count_instead_of_publishing_a_zero(
    gh: FakeCodeSearch, tmp_path: Path
) -> None:
    gh.failing_queries = {PAGES}
    code, _, err, _ = adoption(gh, tmp_path)
    assert gh.problems == []
    assert code == 1 and "1 of 4 queries failed" in err
    doc = state(tmp_path)
    assert doc["thirdPartyRepos"] is None and doc["lastResolved"] is None
    page = (tmp_path / "docs" / "adoption.md").read_text()
    assert "**No count on 2026-12-02**" in page and "HTTP 422" in page
    assert "0 repositories" not in page


def test_results_beyond_the_page_cap_refuse_the_count(gh: FakeCodeSearch, tmp_path: Path) -> None:
    gh.files = [
        Hosted(f"user{i}/r", "README.md", "mcp-context-cost mentioned", (NAME,)) for i in range(305)
    ]
    code, _, err, _ = adoption(gh, tmp_path)
    assert gh.problems == []
    assert code == 1 and "cut short" in err
    names = [q for q in gh.searches() if q["q"] == [NAME]]
    assert [q["page"] for q in names] == [["1"], ["2"], ["3"]]  # Link followed, three pages at most
    doc = state(tmp_path)
    assert doc["queries"][3] == {  # type: ignore[index]
        "query": NAME,
        "hits": 305,
        "read": 300,
        "truncated": True,
        "error": None,
    }


def test_an_unreadable_file_refuses_the_count(gh: FakeCodeSearch, tmp_path: Path) -> None:
    gh.files = [Hosted("alice/tool", "README.md", SNIPPET, (ENCODED,))]
    from tests.helpers.code_search_fake import blob_sha

    gh.missing_blobs = {blob_sha(SNIPPET)}
    code, _, err, _ = adoption(gh, tmp_path)
    assert code == 1 and "1 of 1 files could not be read" in err
    assert "unreadable: GitHub API GET" in (tmp_path / "docs" / "adoption.md").read_text()


def test_a_rate_limit_is_waited_out_until_its_reset(gh: FakeCodeSearch, tmp_path: Path) -> None:
    limited = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1030"}
    gh.scripted = [(403, limited, {"message": "API rate limit exceeded"})]
    code, _, err, slept = adoption(gh, tmp_path)
    assert code == 0, err
    assert slept[0] == 30.0  # reset (1030) minus the clock (1000)
    assert len(gh.searches()) == 5  # the limited call, then the four queries


def test_without_a_token_nothing_is_searched_and_no_zero_is_published(
    gh: FakeCodeSearch, tmp_path: Path
) -> None:
    code, _, err, _ = adoption(gh, tmp_path, token="")
    assert code == 1 and "no GitHub token" in err
    assert gh.requests == []
    doc = state(tmp_path)
    assert doc["ran"] is False and doc["thirdPartyRepos"] is None
    page = (tmp_path / "docs" / "adoption.md").read_text()
    assert "**Not measured on 2026-12-02**" in page and "not a zero" in page


def test_sightings_carry_over_and_a_failed_day_keeps_the_last_count(
    gh: FakeCodeSearch, tmp_path: Path
) -> None:
    gh.files = [Hosted("alice/tool", "README.md", SNIPPET, (ENCODED,))]
    assert adoption(gh, tmp_path)[0] == 0
    gh.failing_queries = {NAME}
    slept: list[float] = []
    argv = ["--out", str(tmp_path), "--date", "2026-12-03", "--api-url", gh.url]
    reader = adoption_cmd.github_reader(sleep=slept.append, clock=lambda: 0.0)
    code = adoption_cmd.run(
        argv, io.StringIO(), io.StringIO(), environ={"GITHUB_TOKEN": "t"}, reader=reader
    )
    assert code == 1
    doc = state(tmp_path)
    assert doc["lastResolved"] == {"date": "2026-12-02", "thirdPartyRepos": 1}
    assert doc["sightings"] == [  # seen again on the failed day: its last day moves
        {
            "repo": "alice/tool",
            "path": "README.md",
            "url": "https://github.com/alice/tool/blob/main/README.md",
            "kind": "badge",
            "firstSeenAt": "2026-12-02",
            "lastSeenAt": "2026-12-03",
        }
    ]
    page = (tmp_path / "docs" / "adoption.md").read_text()
    assert "The last completed reading, on 2026-12-02, counted 1." in page
