"""The base commit fetched from a private repository: a real ``git http-backend`` behind a
loopback HTTP server that, like GitHub for a private repository, answers 401 unless the request
carries the token, and a shallow checkout with no credential left in it (``persist-credentials:
false``). The token reaches git for that one fetch only: never a config file, a command line
or an error message."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from mcpcost.action.gitrefs import Git, GitError, basic_credentials

TOKEN = "ghs_fetchTokenForThePrivateRepo0123456789"

# The Action is a container Action: its git runs on Linux (macOS shares the POSIX CGI setup).
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the Action runs on Linux")


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"},
    )
    return proc.stdout.strip()


@dataclass
class Served:
    """What the server saw: each request's Authorization headers, and any process command line
    that held the token while a request was being answered."""

    url: str
    authorizations: list[list[str]] = field(default_factory=list)
    token_in_cmdline: list[str] = field(default_factory=list)


def _cmdlines_holding(secret: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if secret in line:
            found.append(line)
    return found


def serve(project_root: Path, expected: str) -> tuple[ThreadingHTTPServer, Served]:
    served = Served(url="")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _answer(self) -> None:
            auths = self.headers.get_all("Authorization") or []
            served.authorizations.append(auths)
            if sys.platform.startswith("linux"):
                basic = basic_credentials(TOKEN)
                served.token_in_cmdline += _cmdlines_holding(TOKEN) + _cmdlines_holding(basic)
            if auths != [expected]:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="private"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            env = {
                "PATH": os.environ["PATH"],
                "GIT_PROJECT_ROOT": str(project_root),
                "GIT_HTTP_EXPORT_ALL": "1",
                "GIT_CONFIG_NOSYSTEM": "1",
                "REQUEST_METHOD": self.command,
                "PATH_INFO": parts.path,
                "QUERY_STRING": parts.query,
                "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                "CONTENT_LENGTH": str(len(body)),
                "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
                "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
                "REMOTE_USER": "x-access-token",
                "REMOTE_ADDR": "127.0.0.1",
            }
            cgi = subprocess.run(
                ["git", "http-backend"], input=body, env=env, capture_output=True, timeout=60
            )
            head, _, payload = cgi.stdout.partition(b"\r\n\r\n")
            status = 200
            headers = []
            for line in head.decode("latin-1").split("\r\n"):
                name, _, value = line.partition(":")
                if name.lower() == "status":
                    status = int(value.split()[0])
                elif name:
                    headers.append((name, value.strip()))
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = _answer
        do_POST = _answer

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    served.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, served


@dataclass
class PrivateRepo:
    served: Served
    checkout: Path
    base: str
    head: str


@pytest.fixture
def private(tmp_path: Path) -> Iterator[PrivateRepo]:
    """A bare repository with ``main`` (the base) and ``feature`` (the head, one commit on top),
    served with auth; a depth-1 checkout of ``feature`` whose origin is the served URL and whose
    config holds no credential."""
    source = tmp_path / "source"
    source.mkdir()
    git(source, "init", "-q", "-b", "main")
    (source / ".mcp.json").write_text('{"mcpServers": {}}\n')
    git(source, "add", "-A")
    git(source, "commit", "-q", "-m", "base")
    base = git(source, "rev-parse", "HEAD")
    git(source, "checkout", "-q", "-b", "feature")
    (source / ".mcp.json").write_text('{"mcpServers": {"a": {"command": "a"}}}\n')
    git(source, "commit", "-q", "-am", "head")
    head = git(source, "rev-parse", "HEAD")
    root = tmp_path / "srv"
    root.mkdir()
    git(root, "clone", "-q", "--bare", str(source), "repo.git")
    git(root / "repo.git", "config", "uploadpack.allowAnySHA1InWant", "true")  # as GitHub does
    checkout = tmp_path / "work"
    git(
        tmp_path, "clone", "-q", "--depth=1", "--branch=feature", "--single-branch",
        (root / "repo.git").as_uri(), str(checkout),
    )  # fmt: skip
    server, served = serve(root, f"basic {basic_credentials(TOKEN)}")
    git(checkout, "remote", "set-url", "origin", f"{served.url}/repo.git")
    assert not Git(str(checkout)).has_commit(base)
    try:
        yield PrivateRepo(served, checkout, base, head)
    finally:
        server.shutdown()
        server.server_close()


def config_text(checkout: Path) -> str:
    return (checkout / ".git" / "config").read_text()


def test_without_the_token_the_private_base_commit_cannot_be_fetched(private: PrivateRepo) -> None:
    with pytest.raises(GitError, match=r"could not read Username|Authentication failed|401"):
        Git(str(private.checkout)).ensure_commit(private.base)
    assert private.served.authorizations and all(a == [] for a in private.served.authorizations)


def test_the_token_fetches_it_for_that_one_fetch_and_is_left_nowhere(
    private: PrivateRepo,
) -> None:
    before = config_text(private.checkout)
    repo = Git(str(private.checkout), token=TOKEN, server_url=private.served.url)
    repo.ensure_commit(private.base)
    assert repo.has_commit(private.base)
    assert repo.read(private.base, ".mcp.json") == '{"mcpServers": {}}\n'
    expected = [f"basic {basic_credentials(TOKEN)}"]
    assert private.served.authorizations and expected in private.served.authorizations
    # one header on every request that had one: never two
    assert all(len(a) <= 1 for a in private.served.authorizations)
    # not persisted, not on any process's command line, not in repr
    assert config_text(private.checkout) == before
    assert "extraheader" not in git(private.checkout, "config", "--list", "--show-origin")
    assert private.served.token_in_cmdline == []
    assert TOKEN not in repr(repo)
    # other git commands of the Action send nothing
    count = len(private.served.authorizations)
    repo.changed_files(private.base, private.head)
    repo.run("ls-remote", "origin", check=False)
    assert all(a == [] for a in private.served.authorizations[count:])


def test_a_header_left_by_checkout_is_replaced_not_doubled(private: PrivateRepo) -> None:
    stale = basic_credentials("ghs_expiredTokenOfAnEarlierStep000000000")
    key = f"http.{private.served.url}/.extraheader"
    git(private.checkout, "config", key, f"AUTHORIZATION: basic {stale}")  # persist-credentials
    repo = Git(str(private.checkout), token=TOKEN, server_url=private.served.url)
    repo.ensure_commit(private.base)
    assert repo.has_commit(private.base)
    sent = [a for a in private.served.authorizations if a]
    assert sent and all(a == [f"basic {basic_credentials(TOKEN)}"] for a in sent)
    assert git(private.checkout, "config", "--get-all", key) == f"AUTHORIZATION: basic {stale}"


def test_the_token_goes_only_to_the_runners_github_server(private: PrivateRepo) -> None:
    repo = Git(str(private.checkout), token=TOKEN, server_url="https://github.com")
    with pytest.raises(GitError) as failed:
        repo.ensure_commit(private.base)
    assert all(a == [] for a in private.served.authorizations)  # origin is another host
    assert TOKEN not in str(failed.value)


def test_a_refused_token_fails_with_a_message_that_holds_no_secret(
    private: PrivateRepo,
) -> None:
    wrong = "ghs_revokedToken00000000000000000000000"
    repo = Git(str(private.checkout), token=wrong, server_url=private.served.url)
    with pytest.raises(GitError) as failed:
        repo.ensure_commit(private.base)
    message = str(failed.value)
    assert message.startswith("git fetch failed: ")
    assert wrong not in message and basic_credentials(wrong) not in message
    assert [f"basic {basic_credentials(wrong)}"] in private.served.authorizations
