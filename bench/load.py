"""Load and live-event test of the web processes: pages, REST, tool calls and open WebSockets at once.

Starts --web daphne processes on one listening socket (as `make run` does, clapilot/webpool.py) on a
free loopback port against a throwaway copy of the schema (and, with --redis, its own redis-server on
a free port as REDIS_URL: channel layer, broker and cache), then for --duration seconds runs
--clients concurrent HTTP clients (keep-alive, no think time), each a signed-in user cycling through

  page views (session cookie)   GET /, GET /aufgaben/
  REST with an API key          GET /api/v1/tools, GET /api/v1/notifications
  REST with a device token      GET /api/v1/tasks/boards, GET /api/v1/tasks/?limit=20
  tool calls (API key)          POST /api/v1/tools/execute: aufgaben_list_tasks, aufgaben_create_task
                                (alternately on the shared board and on the user's private board)

while --sockets WebSockets on /ws/mutations/ (spread over the users and the processes) record every
mutation event. Afterwards every event committed during the run is checked against every socket: an
"all" event must arrive exactly once at every socket, a user's private event exactly once at that
user's sockets and nowhere else. Then the same clients ask GET /healthz for --healthz seconds: the
ceiling the mix is compared with.

--clients and --web take lists: every combination runs in turn, and a summary table at the end
gives per combination the mix's requests/s, errors, the worst route's p50/p95, the /healthz rate
and the mix as a share of it, and the web processes' CPU per request for each (the rate depends on
the machine's other load, the CPU per request much less). Per run: requests, errors, p50/p95/max
per route, events committed vs
delivered (lost, duplicated, delivered to a socket that must not see it), the peak of the web
processes' PostgreSQL sessions, and a line `RESULT {json}`. Exits 1 on any error, lost, duplicated
or misdelivered event.

    make bench B=load                                 # 10 and 50 clients, 1 and N web processes
    make bench B=load ARGS="--redis"                  # own redis-server as REDIS_URL
    make bench B=load ARGS="--clients 20 --web 2 --sockets 40 --duration 10"
    make bench B=load ARGS=--tiny                     # seconds: proves it runs
"""

from __future__ import annotations

import os

# Before anything imports the standard library's calendar module (http.client does, through
# email): _setup puts bench/ last on the path, where bench/calendar.py cannot shadow it. The bench
# process itself only prepares data and reads events: it never needs Redis.
os.environ.pop("REDIS_URL", None)
os.environ.setdefault("CLAPILOT_TEST_DATABASE", "bench_load")
os.environ.setdefault("LOG_LEVEL", "WARNING")
from _setup import bench_database, disconnect_everybody_else, parse, point_channel_layer_at_bench_database  # noqa: I001
from _loadgen import LoadPlan, healthz_rate, prepare, run_load
from _webprocs import daphne_env, web_processes

import argparse
import sys
import tempfile
from pathlib import Path


from clapilot import webpool
from tests.live import OwnRedis


def numbers(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"a number or a comma-separated list of numbers, not {text!r}"
        ) from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"numbers of at least 1, not {text!r}")
    return values


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    cores = webpool.web_processes()
    parser.add_argument(
        "--clients", type=numbers, default=[10, 50], help="concurrent HTTP clients (a list: each)"
    )
    parser.add_argument(
        "--web",
        type=numbers,
        default=sorted({1, cores}),
        help="web processes on the one socket (a list: each)",
    )
    parser.add_argument("--sockets", type=int, default=200, help="open WebSockets on /ws/mutations/")
    parser.add_argument("--users", type=int, default=10, help="signed-in users the clients and sockets share")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    parser.add_argument("--healthz", type=float, default=10.0, help="seconds of GET /healthz after each load")
    parser.add_argument("--redis", action="store_true", help="own redis-server on a free port as REDIS_URL")
    parser.add_argument(
        "--pool-size", type=int, default=None, help="CLAPILOT_DB_POOL_SIZE of each web process"
    )
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of the mix first, not counted")
    parser.add_argument("--drain", type=float, default=30.0, help="seconds to wait for late events")
    tiny = {
        "clients": [2],
        "web": [2],
        "sockets": 4,
        "users": 2,
        "duration": 2.0,
        "healthz": 1.0,
        "drain": 15.0,
        "warmup": 0.5,
    }
    return parse(parser, tiny)


ARGS = parse_args()

APP_NAME = f"clapilot-bench-load-{os.getpid()}"


def main() -> int:
    workdir = Path(tempfile.mkdtemp(prefix="clapilot-load-"))
    redis = OwnRedis(workdir) if ARGS.redis else None
    if redis:
        redis.start()
    try:
        with bench_database():
            return run_bench(workdir, redis.url if redis else None)
    finally:
        if redis:
            redis.stop()


def run_bench(workdir: Path, redis_url: str | None) -> int:
    point_channel_layer_at_bench_database()
    people, shared_board = prepare(max(1, min(ARGS.users, max(ARGS.clients))))
    layer = "redis (own redis-server, channels-redis)" if redis_url else "embedded (channels-postgres)"
    rows = []
    failed = False
    try:
        for web in ARGS.web:
            with web_processes(workdir, web, daphne_env(APP_NAME, redis_url, ARGS.pool_size)) as (
                port,
                log,
                processes,
            ):
                pids = tuple(p.pid for p in processes)
                for clients in ARGS.clients:
                    print(f"\n=== {web} web process{'es' if web > 1 else ''}, {clients} clients")
                    plan = LoadPlan(
                        port=port,
                        app_name=APP_NAME,
                        clients=clients,
                        sockets=ARGS.sockets,
                        duration=ARGS.duration,
                        drain=ARGS.drain,
                        warmup=ARGS.warmup,
                        layer=layer,
                        log=log,
                        pool_size=ARGS.pool_size,
                        web_pids=pids,
                    )
                    result = run_load(plan, people, shared_board)
                    health = healthz_rate(port, clients, ARGS.healthz, pids)
                    print(
                        f"/healthz        {health['per_second']} requests/s, {health['errors']} errors, "
                        f"web CPU {health['web_cpu_ms']} ms per request"
                    )
                    failed = failed or result["failed"] or health["errors"] > 0
                    rows.append((web, clients, result, health))
    finally:
        disconnect_everybody_else()
    summary(rows)
    return 1 if failed else 0


def summary(rows: list) -> None:
    print(
        f"\n{'web':>3} {'clients':>7} {'mix req/s':>9} {'errors':>6} {'worst p50':>9} {'worst p95':>9} "
        f"{'worst route (p95)':32} {'/healthz req/s':>14} {'mix/healthz':>11} {'web CPU ms mix':>14} {'/healthz':>8}"
    )
    for web, clients, result, health in rows:
        timed = {r: v for r, v in result["routes"].items() if v["p95_ms"] is not None}
        worst = max(timed, key=lambda r: timed[r]["p95_ms"]) if timed else "-"
        p50 = max((v["p50_ms"] for v in timed.values()), default=0)
        p95 = timed[worst]["p95_ms"] if timed else 0
        share = result["per_second"] / health["per_second"] * 100 if health["per_second"] else 0
        print(
            f"{web:3d} {clients:7d} {result['per_second']:9.1f} {result['errors'] + health['errors']:6d} "
            f"{p50:9.0f} {p95:9.0f} {worst:32} {health['per_second']:14.1f} {share:10.1f}% "
            f"{result['web_cpu_ms'] or 0:14.2f} {health['web_cpu_ms'] or 0:8.2f}"
        )


if __name__ == "__main__":
    sys.exit(main())
