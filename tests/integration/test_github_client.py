"""GitHubClient's rate-limit and retry logic against the loopback fake (the sleeper is injected:
nothing here sleeps for real)."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator

import pytest
import requests

from mcpcost.runtime.github import MAX_WAIT_S, GitHubClient, GitHubError
from tests.action.github_fake import FakeGitHub

NOW = 1_700_000_000.0
LIMITED = {"message": "API rate limit exceeded for installation"}


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    server = FakeGitHub(login="bot").start()
    yield server
    server.stop()


def client(fake: FakeGitHub, slept: list[float], **kw: float) -> GitHubClient:
    return GitHubClient(
        session=requests.Session(),
        api_url=fake.url,
        token="ghs_x",
        sleep=slept.append,
        clock=lambda: NOW,
        **kw,  # type: ignore[arg-type]
    )


def test_429_with_retry_after_waits_that_long_then_succeeds(fake: FakeGitHub) -> None:
    fake.scripted = [(429, {"retry-after": "7"}, LIMITED)]
    slept: list[float] = []
    assert client(fake, slept).viewer_login() == "bot"
    assert slept == [7.0]
    assert len(fake.requests) == 2


def test_403_with_retry_after_is_a_secondary_rate_limit(fake: FakeGitHub) -> None:
    fake.scripted = [(403, {"retry-after": "3"}, LIMITED), (403, {"retry-after": "4"}, LIMITED)]
    slept: list[float] = []
    data = client(fake, slept).request("GET", "/repos/octo/repo/actions/runs/7/artifacts").data
    assert data["artifacts"] == [] and slept == [3.0, 4.0]


def test_remaining_zero_waits_until_the_reset_time(fake: FakeGitHub) -> None:
    reset = str(int(NOW) + 42)
    fake.scripted = [(403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset}, LIMITED)]
    slept: list[float] = []
    client(fake, slept).request("GET", "/repos/octo/repo/actions/runs/7/artifacts")
    assert slept == [42.0]


def test_a_reset_far_away_is_capped_per_wait(fake: FakeGitHub) -> None:
    reset = str(int(NOW) + 3600)
    fake.scripted = [(429, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset}, LIMITED)]
    slept: list[float] = []
    client(fake, slept).request("GET", "/repos/octo/repo/actions/runs/7/artifacts")
    assert slept == [MAX_WAIT_S]


def test_total_wait_is_bounded_and_the_last_answer_raises(fake: FakeGitHub) -> None:
    fake.scripted = [(429, {"retry-after": "100"}, LIMITED)] * 10
    slept: list[float] = []
    with pytest.raises(GitHubError) as info:
        client(fake, slept, max_total_wait_s=250.0).request("GET", "/user")
    assert info.value.status == 429
    assert slept == [100.0, 100.0] and sum(slept) <= 250.0
    assert len(fake.requests) == 3  # the third answer would push the wait past the bound


def test_attempts_are_bounded(fake: FakeGitHub) -> None:
    fake.scripted = [(503, {}, {"message": "unavailable"})] * 10
    slept: list[float] = []
    with pytest.raises(GitHubError) as info:
        client(fake, slept).request("GET", "/user")
    assert info.value.status == 503 and len(fake.requests) == 4
    assert slept == [1.0, 2.0, 4.0]


def test_a_plain_403_is_final_not_retried(fake: FakeGitHub) -> None:
    fake.scripted = [(403, {}, {"message": "Resource not accessible by integration"})]
    slept: list[float] = []
    with pytest.raises(GitHubError) as info:
        client(fake, slept).request(
            "POST", "/repos/octo/repo/issues/1/comments", json={"body": "x"}
        )
    assert info.value.status == 403 and slept == [] and len(fake.requests) == 1


# --------------------------------------------------------------------- operations


def test_a_runs_artifact_is_found_by_name_and_downloaded(fake: FakeGitHub) -> None:
    fake.artifacts = {7: {"report.json": b'{"schema": 1}'}, 8: {"report.json": b"{}"}}
    fake.expired_runs = {8}
    gh = client(fake, [])
    assert gh.run_artifact_id("octo/repo", 7, "mcp-context-cost") == 70
    assert gh.run_artifact_id("octo/repo", 7, "another-name") is None
    assert gh.run_artifact_id("octo/repo", 8, "mcp-context-cost") is None  # expired
    assert gh.run_artifact_id("octo/repo", 9, "mcp-context-cost") is None  # saved nothing
    with zipfile.ZipFile(io.BytesIO(gh.artifact_zip("octo/repo", 70))) as archive:
        assert archive.read("report.json") == b'{"schema": 1}'
    assert fake.problems == []


def test_the_head_of_a_pull_request(fake: FakeGitHub) -> None:
    fake.pulls = {3: ("abc123", "someone/fork")}
    gh = client(fake, [])
    assert gh.pull_head("octo/repo", 3) == ("abc123", "someone/fork")
    assert gh.pull_head("octo/repo", 4) is None
    assert fake.problems == []


def test_branch_file_create_read_and_update(fake: FakeGitHub) -> None:
    gh = client(fake, [])
    assert not gh.branch_exists("octo/repo", "badges")
    sha = gh.create_orphan_branch("octo/repo", "badges", "cost.json", "one\n", "first")
    assert sha == "d" * 40 and gh.branch_exists("octo/repo", "badges")
    assert gh.file_on_branch("octo/repo", "badges", "missing.json") is None
    found = gh.file_on_branch("octo/repo", "badges", "cost.json")
    assert found is not None and found[1] == "one\n"
    assert gh.put_file("octo/repo", "badges", "cost.json", "two\n", "next", found[0]) == "e" * 40
    assert fake.files[("badges", "cost.json")] == "two\n"
    assert fake.problems == []
