"""What one request of each route of the load mix costs the web process, served by daphne.

Starts one daphne process (as `make run` does, clapilot/webpool.py) against a throwaway copy of the
schema, then asks each route of bench/load.py's mix --requests times in a row from one keep-alive
client (after --warmup untimed ones) and prints the web process's CPU time per request (user +
system, from /proc), the wall time per request, and the wall time of the first request after the
warm-up (with --warmup 0: what the first visitor after a start waits). No concurrency: this is the cost of a request,
the figure the load bench's throughput is made of (issue #28); /healthz is the floor every request
pays (the server, the ASGI handler, the middleware).

    make bench B=route_cost                            # every route, 150 requests each
    make bench B=route_cost ARGS="--only page --requests 400"
    make bench B=route_cost ARGS=--tiny                # seconds: proves it runs
"""

from __future__ import annotations

import os

os.environ.pop("REDIS_URL", None)
os.environ.setdefault("CLAPILOT_TEST_DATABASE", "bench_route_cost")
os.environ.setdefault("LOG_LEVEL", "WARNING")
from _setup import bench_database, disconnect_everybody_else, parse, point_channel_layer_at_bench_database  # noqa: I001
from _loadgen import prepare
from _webprocs import daphne_env, web_processes

import argparse
import http.client
import json
import sys
import tempfile
import time
from pathlib import Path

import psutil

APP_NAME = f"clapilot-bench-route-cost-{os.getpid()}"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=150, help="timed requests per route")
    parser.add_argument("--warmup", type=int, default=20, help="untimed requests per route first")
    parser.add_argument("--only", default="", help="only routes whose name contains this")
    return parse(parser, {"requests": 3, "warmup": 1})


ARGS = parse_args()


def routes(person, board: int) -> list[tuple[str, str, str, dict, str | None]]:
    """(name, method, path, headers, body): /healthz and the eight routes of bench/load.py's mix."""
    cookie = {"Cookie": person.cookie}
    key = {"Authorization": f"Bearer {person.api_key}"}
    token = {"Authorization": f"Token {person.token}"}
    post = {**key, "Content-Type": "application/json"}

    def tool(name: str, arguments: dict) -> str:
        return json.dumps({"tool": name, "arguments": arguments})

    return [
        ("GET /healthz", "GET", "/healthz", {}, None),
        ("page /", "GET", "/", cookie, None),
        ("page /aufgaben/", "GET", "/aufgaben/", cookie, None),
        ("REST /api/v1/tools", "GET", "/api/v1/tools", key, None),
        ("REST /api/v1/notifications", "GET", "/api/v1/notifications", key, None),
        ("REST /api/v1/tasks/boards", "GET", "/api/v1/tasks/boards", token, None),
        ("REST /api/v1/tasks/", "GET", "/api/v1/tasks/?limit=20", token, None),
        (
            "tool aufgaben_list_tasks",
            "POST",
            "/api/v1/tools/execute",
            post,
            tool("aufgaben_list_tasks", {"limit": 10}),
        ),
        (
            "tool aufgaben_create_task",
            "POST",
            "/api/v1/tools/execute",
            post,
            tool("aufgaben_create_task", {"title": "Kosten", "board_id": board}),
        ),
    ]


def ask(conn: http.client.HTTPConnection, method: str, path: str, headers: dict, body: str | None) -> int:
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    response.read()
    return response.status


def main() -> int:
    workdir = Path(tempfile.mkdtemp(prefix="clapilot-route-cost-"))
    with bench_database():
        point_channel_layer_at_bench_database()
        try:
            people, board = prepare(1)
            with web_processes(workdir, 1, daphne_env(APP_NAME, None)) as (port, _log, processes):
                return measure(port, psutil.Process(processes[0].pid), routes(people[0], board))
        finally:
            disconnect_everybody_else()


def measure(port: int, web: psutil.Process, table: list) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    print(f"{'route':30} {'CPU ms/request':>14} {'wall ms/request':>15} {'first ms':>12}")
    mix = []
    for name, method, path, headers, body in table:
        if ARGS.only not in name:
            continue
        for _ in range(ARGS.warmup):
            ask(conn, method, path, headers, body)
        first = time.perf_counter()
        status = ask(conn, method, path, headers, body)
        first = time.perf_counter() - first
        # /healthz answers 503 in a bench: no worker heartbeat, which is an answer too.
        if status not in (200, 503):
            print(f"{name}: HTTP {status}")
            return 1
        before, started = web.cpu_times(), time.perf_counter()
        for _ in range(ARGS.requests):
            ask(conn, method, path, headers, body)
        after, wall = web.cpu_times(), time.perf_counter() - started
        cpu = (after.user + after.system - before.user - before.system) / ARGS.requests * 1000
        if name != "GET /healthz":
            mix.append(cpu)
        print(f"{name:30} {cpu:14.1f} {wall / ARGS.requests * 1000:15.1f} {first * 1000:12.1f}", flush=True)
    if mix:
        print(f"{'mean of the mix':30} {sum(mix) / len(mix):14.1f}")
    conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
