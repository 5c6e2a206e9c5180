"""Bench: ``mcpcost serve`` against floors measured in the same run.

Two figures, each a ratio:

* **cached throughput**: requests per second of ``GET /api/measure`` answered from the cache,
  against ``GET /healthz`` on the same service with the same clients (the least any answer of
  this server costs: routing, the edge's headers and log line, uvicorn's HTTP). Clients are
  ``--clients`` threads, each on one keep-alive connection, for ``--seconds`` each.
* **uncached latency**: one ``GET /api/measure`` that measures (a URL not cached yet), against
  ``python -m mcpcost measure --url URL --json`` (the bare command a user runs: interpreter
  start, imports, tokenizer load, the two captures) and against ``measure_server`` called in
  this process (the measurement alone, tokenizer warm). Medians over ``--runs``, interleaved.

The measured server is the reference ``everything`` server over Streamable HTTP (installed by
scripts/setup-test-env.sh), else the ``streamable-json`` loopback fixture. Each uncached request
names the URL with a new query string, which the server ignores and the cache does not.

    PYTHONPATH=. nice python bench/serve_throughput.py [--runs N] [--seconds S] [--clients C]

The load average and the CPU count are printed before and after: on a shared machine every
figure moves with the load.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mcpcost.core.spec import ServerSpec  # noqa: E402
from mcpcost.core.tokenizer import get_tokenizer  # noqa: E402
from mcpcost.measuring import MeasureOptions, measure_server  # noqa: E402
from tests.helpers.serve_process import Service, running_service  # noqa: E402
from tests.servers.http_fixtures import serve_http  # noqa: E402
from tests.servers.registry import real_server_missing, serve_everything  # noqa: E402


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


@contextlib.contextmanager
def measured_server() -> Iterator[tuple[str, str]]:
    missing = real_server_missing("everything")
    if missing is None:
        with serve_everything("streamableHttp") as url:
            yield "server-everything (Streamable HTTP)", url
        return
    print(f"everything server unavailable ({missing}); using the loopback fixture")
    with serve_http("streamable-json") as fixture:
        yield "streamable-json fixture", fixture.url


def measure_path(url: str) -> str:
    return f"/api/measure?url={quote(url, safe='')}"


def rps(service: Service, path: str, clients: int, seconds: float) -> float:
    """Requests per second over ``clients`` keep-alive connections for ``seconds``."""
    counts = [0] * clients
    failures: list[str] = []
    start = threading.Barrier(clients + 1)
    stop_at = [0.0]

    def client(i: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", service.port, timeout=30)
        start.wait()
        try:
            while time.perf_counter() < stop_at[0]:
                conn.request("GET", path)
                answer = conn.getresponse()
                answer.read()
                if answer.status != 200:
                    failures.append(str(answer.status))
                    return
                counts[i] += 1
        finally:
            conn.close()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    began = time.perf_counter()
    stop_at[0] = began + seconds
    start.wait()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - began
    if failures:
        raise SystemExit(f"{path}: answered {failures[0]}")
    return sum(counts) / elapsed


def cli_measure(url: str) -> float:
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "mcpcost", "measure", "--url", url, "--json"],
        capture_output=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
        check=False,
    )
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"measure --url failed: {done.stderr.decode()[-500:]}")
    return seconds


def in_process(url: str) -> float:
    began = time.perf_counter()
    m = measure_server(ServerSpec.remote("bench", url), MeasureOptions(timeout_s=60))
    seconds = time.perf_counter() - began
    if not m.has_number:
        raise SystemExit(f"in-process measurement: {m.status} {m.notes}")
    return seconds


def served(service: Service, url: str) -> float:
    reply = service.get(measure_path(url))
    if reply.status != 200 or reply.headers.get("x-cache") != "miss":
        raise SystemExit(
            f"serve: {reply.status} {reply.headers.get('x-cache')} {reply.body[:300]!r}"
        )
    return reply.seconds


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    print(f"before: {load()}")
    get_tokenizer()
    flags = ("--allow-private-addresses", "--allow-http", "--rate-limit", "0")
    with measured_server() as (label, url), running_service(*flags) as service:
        print(f"measured server: {label}")
        served(service, url + "?warm")  # imports and the tokenizer, loaded in the service
        cli_measure(url)
        in_process(url)
        bare, inproc, api = [], [], []
        for n in range(args.runs):
            bare.append(cli_measure(url))
            inproc.append(in_process(url))
            api.append(served(service, f"{url}?run={n}"))
        service.get(measure_path(url))  # cached from here on
        rps(service, "/healthz", args.clients, 1.0)  # warm the connections' path
        floor_rps, cached_rps = [], []
        for _ in range(2):
            floor_rps.append(rps(service, "/healthz", args.clients, args.seconds))
            cached_rps.append(rps(service, measure_path(url), args.clients, args.seconds))
    print(f"after:  {load()}")
    health, cached = max(floor_rps), max(cached_rps)
    print()
    print(f"cached  GET /api/measure   {cached:8.0f} req/s   ({args.clients} keep-alive clients)")
    print(f"floor   GET /healthz       {health:8.0f} req/s")
    print(f"ratio   cached / floor     {cached / health:8.2f}x")
    print()
    serve_ms, cli_ms, inproc_ms = median_ms(api), median_ms(bare), median_ms(inproc)
    print(f"uncached GET /api/measure  {serve_ms:8.0f} ms   (median of {args.runs})")
    print(f"floor   measure --url      {cli_ms:8.0f} ms   (the bare command)")
    print(f"floor   measure_server     {inproc_ms:8.0f} ms   (in-process, tokenizer warm)")
    print(f"ratio   serve / measure --url   {serve_ms / cli_ms:5.2f}x")
    print(f"ratio   serve / measure_server  {serve_ms / inproc_ms:5.2f}x")


if __name__ == "__main__":
    main()
