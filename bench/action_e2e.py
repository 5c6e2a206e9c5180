"""Bench: the Action in its container on a pull request that changes 1 of N servers, from
container start to the posted comment, against a floor measured in the same run.

The repository declares N stdio servers (``tools/serve.py tools/sK.json``, a minimal MCP server
that appends a line to a launch log when it starts and when it has answered ``tools/list``);
the pull request changes ``tools/s0.json`` only. The Action must measure the N head launches and
one base launch (s0 in a worktree of the base commit): N+1 measured launches, never 2N. Each
measurement runs its server twice at once (two captures), so the processes are about 2(N+1).

Phases of one run (wall clock, host and container share the kernel's clock):

* ``start``   ``podman run`` issued -> first server process started (container start-up, Python
              and mcpcost imports, reading both commits' configs, the base worktree)
* ``measure`` first server started -> last ``tools/list`` answered
* ``post``    last answer -> the comment reached the (fake) GitHub API (judging, rendering)
* ``exit``    comment -> container gone

The floor, measured in the same run and interleaved with the Action's runs: the same image
started with a bare client that launches the same N+1 server launches at once and reads each
one's ``tools/list`` once (the least any containerised checker of this PR could do); and the
image started with ``python3 -c pass`` (container start-up alone). Ratios are medians over
``--runs``.

    PYTHONPATH=. python bench/action_e2e.py [--servers N] [--runs R] [--image REF]

Without --image the image is built by scripts/build-image.sh (the release's recipe; cached
after the first build). Needs podman (scripts/setup-podman.sh).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.action.github_fake import FakeGitHub  # noqa: E402
from tests.action.runner_sim import pr_payload  # noqa: E402

SERVE = r"""
import json, os, sys, time

log = os.environ["BENCH_LAUNCH_LOG"]
name = sys.argv[2]
where = os.path.dirname(os.path.abspath(__file__))


def note(event):
    with open(log, "a", encoding="utf-8") as handle:
        handle.write(json.dumps([time.time(), name, where, event, os.getpid()]) + "\n")


note("start")
with open(sys.argv[1], encoding="utf-8") as handle:
    tools = json.load(handle)
for line in sys.stdin:
    if not line.strip():
        continue
    msg = json.loads(line)
    if "id" not in msg:
        continue
    if msg["method"] == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"],
                  "capabilities": {"tools": {}}, "serverInfo": {"name": name, "version": "1"}}
    elif msg["method"] == "tools/list":
        result = {"tools": tools}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
    sys.stdout.flush()
    if msg["method"] == "tools/list":
        note("answered")
"""

# The bare client of the floor: every launch at once, one initialize and tools/list each.
FLOOR = r"""
import os, sys, threading
sys.path.insert(0, "/bench")
from floor import bare_floor

launches = [line.split("\t") for line in open("/bench/launches.tsv").read().splitlines()]
threads = [threading.Thread(target=bare_floor, args=(["python3", f"{root}/tools/serve.py",
           f"{root}/tools/{file}", name],)) for root, file, name in launches]
os.environ["BENCH_LAUNCH_LOG"] = "/tmp/floor.log"
for t in threads:
    t.start()
for t in threads:
    t.join()
"""


def tools(server: int, extra: int = 0) -> list[dict[str, Any]]:
    words = "search the index for documents matching the query and return ranked results"
    return [
        {
            "name": f"s{server}_tool{t}",
            "description": f"{words} ({t})",
            "inputSchema": {
                "type": "object",
                "properties": {"query": {"type": "string", "description": words}},
                "required": ["query"],
            },
        }
        for t in range(4 + extra)
    ]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def make_repo(repo: Path, servers: int) -> tuple[str, str]:
    """A repository of N servers; head changes s0's tools. Returns (base, head)."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "bench@example.com")
    git(repo, "config", "user.name", "bench")
    (repo / "tools").mkdir()
    (repo / "tools" / "serve.py").write_text(SERVE)
    block = {
        f"s{k}": {
            "command": "python3",
            "args": ["tools/serve.py", f"tools/s{k}.json", f"s{k}"],
            "env": {"BENCH_LAUNCH_LOG": "/github/home/launches.log"},
        }
        for k in range(servers)
    }
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": block}, indent=2) + "\n")
    for k in range(servers):
        (repo / "tools" / f"s{k}.json").write_text(json.dumps(tools(k)))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    base = git(repo, "rev-parse", "HEAD")
    (repo / "tools" / "s0.json").write_text(json.dumps(tools(0, extra=3)))
    git(repo, "commit", "-qam", "head: s0 grows")
    return base, git(repo, "rev-parse", "HEAD")


class TimedRequests(list[tuple[str, str, Any]]):
    """FakeGitHub's request list, with the wall time each request arrived."""

    def __init__(self) -> None:
        super().__init__()
        self.times: list[float] = []

    def append(self, item: tuple[str, str, Any]) -> None:
        self.times.append(time.time())
        super().append(item)


def action_run(image: str, source: Path, work: Path, base: str, head: str) -> dict[str, Any]:
    """One container run of the Action on a fresh copy of the repository; phases and launches."""
    runner = work / "runner"
    shutil.rmtree(runner, ignore_errors=True)
    for d in ("workflow", "file_commands", "home"):
        (runner / d).mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", str(source), str(runner / "workspace")], check=True)
    git(runner / "workspace", "checkout", "-q", head)
    payload = pr_payload(21, base, head)
    (runner / "workflow" / "event.json").write_text(json.dumps(payload))
    for name in ("output", "summary"):
        (runner / "file_commands" / name).write_text("")
    fake = FakeGitHub()
    requests = TimedRequests()
    fake.requests = requests
    fake.start()
    env = {
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": "/github/workflow/event.json",
        "GITHUB_REPOSITORY": "octo/repo",
        "GITHUB_SHA": head,
        "GITHUB_REF": "refs/pull/21/merge",
        "GITHUB_WORKSPACE": "/github/workspace",
        "GITHUB_OUTPUT": "/github/file_commands/output",
        "GITHUB_STEP_SUMMARY": "/github/file_commands/summary",
        "GITHUB_API_URL": fake.url,
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_RUN_ID": "99",
        "HOME": "/github/home",
        "INPUT_GITHUB-TOKEN": "ghs_benchtoken",
        "INPUT_COMMENT": "always",
        "INPUT_TIMEOUT": "60",
    }
    (runner / "env.list").write_text("".join(f"{k}={v}\n" for k, v in env.items()))
    try:
        started = time.time()
        done = subprocess.run(
            ["bash", str(ROOT / "scripts" / "container-action-test.sh"), str(runner)],
            capture_output=True,
            text=True,
            timeout=900,
            env={**os.environ, "MCPCOST_RUN_IMAGE": image},
        )
        ended = time.time()
    finally:
        fake.stop()
    if done.returncode != 0:
        raise SystemExit(f"the Action failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    posted = [
        t
        for t, (method, path, _) in zip(requests.times, requests, strict=True)
        if method in ("POST", "PATCH") and "comments" in path
    ]
    if not posted:
        raise SystemExit("the Action posted no comment")
    events = [
        json.loads(line) for line in (runner / "home" / "launches.log").read_text().splitlines()
    ]
    starts = [e for e in events if e[3] == "start"]
    answers = [e for e in events if e[3] == "answered"]
    return {
        "wall": ended - started,
        "start": min(e[0] for e in starts) - started,
        "measure": max(e[0] for e in answers) - min(e[0] for e in starts),
        "post": posted[-1] - max(e[0] for e in answers),
        "exit": ended - posted[-1],
        "launches": len({(e[1], e[2]) for e in starts}),
        "processes": len(starts),
    }


def floor_run(image: str, source: Path, work: Path, servers: int) -> float:
    """Seconds for the image to start a bare client over the same N+1 launches and exit."""
    bench = work / "floor"
    shutil.rmtree(bench, ignore_errors=True)
    (bench / "head").mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", str(source), str(bench / "base")], check=True)
    git(bench / "base", "checkout", "-q", "HEAD~1")
    shutil.copytree(bench / "base" / "tools", bench / "head" / "tools")
    shutil.copy(source / "tools" / "s0.json", bench / "head" / "tools" / "s0.json")
    shutil.copy(ROOT / "tests" / "servers" / "floor.py", bench / "floor.py")
    (bench / "client.py").write_text(FLOOR)
    rows = [f"/bench/head\ts{k}.json\ts{k}" for k in range(servers)] + ["/bench/base\ts0.json\ts0"]
    (bench / "launches.tsv").write_text("\n".join(rows) + "\n")
    started = time.time()
    subprocess.run(
        [
            "podman",
            "run",
            "--rm",
            "--network",
            "host",
            "-v",
            f"{bench}:/bench",
            "--entrypoint",
            "python3",
            image,
            "/bench/client.py",
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return time.time() - started


def container_floor(image: str) -> float:
    started = time.time()
    subprocess.run(
        ["podman", "run", "--rm", "--entrypoint", "python3", image, "-c", "pass"],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return time.time() - started


def build_image() -> str:
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "build-image.sh")],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if done.returncode != 0:
        raise SystemExit(f"scripts/build-image.sh failed:\n{done.stderr[-3000:]}")
    return done.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=6)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--image", help="an image built from this checkout's Dockerfile")
    args = parser.parse_args()
    if shutil.which("podman") is None:
        raise SystemExit("podman is needed (scripts/setup-podman.sh)")
    image = args.image or build_image()
    n = args.servers
    print(
        f"image {image}; {n} servers, the PR changes 1; {args.runs} runs; "
        f"load {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs"
    )
    rows: list[dict[str, Any]] = []
    floors: list[float] = []
    starts: list[float] = []
    with tempfile.TemporaryDirectory(prefix="mcpcost-bench-e2e-") as tmp:
        work = Path(tmp)
        base, head = make_repo(work / "repo", n)
        for _ in range(args.runs):
            starts.append(container_floor(image))
            floors.append(floor_run(image, work / "repo", work, n))
            rows.append(action_run(image, work / "repo", work, base, head))
    for i, row in enumerate(rows):
        print(
            f"run {i + 1}: wall {row['wall']:.2f}s = start {row['start']:.2f} + measure "
            f"{row['measure']:.2f} + post {row['post']:.2f} + exit {row['exit']:.2f}; "
            f"{row['launches']} launches measured ({row['processes']} server processes); "
            f"floor {floors[i]:.2f}s, container alone {starts[i]:.2f}s"
        )
    med = {k: statistics.median(r[k] for r in rows) for k in ("wall", "start", "measure", "post")}
    floor = statistics.median(floors)
    launches = {r["launches"] for r in rows}
    verdict = "ok" if launches == {n + 1} else f"WRONG (expected {n + 1}, 2N would be {2 * n})"
    print(f"launches measured: {sorted(launches)} for N={n}: {verdict}")
    print(
        f"median wall {med['wall']:.2f}s (start {med['start']:.2f}, measure {med['measure']:.2f}, "
        f"post {med['post']:.2f}); floor {floor:.2f}s; container start-up alone "
        f"{statistics.median(starts):.2f}s"
    )
    print(f"ratio wall / floor: {med['wall'] / floor:.2f}x")


if __name__ == "__main__":
    main()
