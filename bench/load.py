"""Load and live-event test of one whole server: pages, REST, tool calls and open WebSockets at once.

Starts ONE daphne process on a free loopback port against a throwaway copy of the schema (and, with
--redis, its own redis-server on a free port as REDIS_URL: channel layer, broker and cache), then
for --duration seconds runs --clients concurrent HTTP clients (keep-alive, no think time), each a
signed-in user cycling through

  page views (session cookie)   GET /, GET /aufgaben/
  REST with an API key          GET /api/v1/tools, GET /api/v1/notifications
  REST with a device token      GET /api/v1/tasks/boards, GET /api/v1/tasks/?limit=20
  tool calls (API key)          POST /api/v1/tools/execute: aufgaben_list_tasks, aufgaben_create_task
                                (alternately on the shared board and on the user's private board)

while --sockets WebSockets on /ws/mutations/ (spread over the users) record every mutation event.
Afterwards every event committed during the run is checked against every socket: an "all" event
must arrive exactly once at every socket, a user's private event exactly once at that user's
sockets and nowhere else.

Prints requests, errors, p50/p95/max per route, events committed vs delivered (lost, duplicated,
delivered to a socket that must not see it), the peak of daphne's PostgreSQL sessions, and a last
line `RESULT {json}`. Exits 1 on any error, lost, duplicated or misdelivered event.

    .venv/bin/python bench/load.py                    # embedded: channels-postgres layer, 60 s
    .venv/bin/python bench/load.py --redis            # own redis-server as REDIS_URL
    .venv/bin/python bench/load.py --clients 20 --sockets 40 --duration 10
"""

from __future__ import annotations

import os

# Before anything imports the standard library's calendar module (http.client does, through
# email): _setup puts bench/ last on the path, where bench/calendar.py cannot shadow it. The bench
# process itself only prepares data and reads events: it never needs Redis.
os.environ.pop("REDIS_URL", None)
os.environ.setdefault("CLAPILOT_TEST_DATABASE", "bench_load")
os.environ.setdefault("LOG_LEVEL", "WARNING")
from _setup import bench_database, disconnect_everybody_else, point_channel_layer_at_bench_database  # noqa: I001
from _loadgen import LoadPlan, prepare, run_load

import argparse
import sys
import tempfile
from pathlib import Path

from tests.live import OwnRedis, live_daphne


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=50, help="concurrent HTTP clients")
    parser.add_argument("--sockets", type=int, default=200, help="open WebSockets on /ws/mutations/")
    parser.add_argument("--users", type=int, default=10, help="signed-in users the clients and sockets share")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    parser.add_argument("--redis", action="store_true", help="own redis-server on a free port as REDIS_URL")
    parser.add_argument("--pool-size", type=int, default=None, help="CLAPILOT_DB_POOL_SIZE of daphne")
    parser.add_argument("--drain", type=float, default=30.0, help="seconds to wait for late events")
    return parser.parse_args()


ARGS = parse_args()

APP_NAME = f"clapilot-bench-load-{os.getpid()}"


def daphne_env(redis_url: str | None) -> dict[str, str]:
    env = {
        # 50 clients share a handful of keys: the per-key limit is not what this measures.
        "CLAPILOT_API_KEY_RATE": "10000000/min",
        "REDIS_URL": redis_url or "",  # "" removes it: the embedded channels-postgres layer
    }
    if ARGS.pool_size is not None:
        env["CLAPILOT_DB_POOL_SIZE"] = str(ARGS.pool_size)
    return env


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
    people, shared_board = prepare(max(1, min(ARGS.users, ARGS.clients)))
    try:
        # PGAPPNAME: every session of daphne carries it (counted by run_load)
        with live_daphne(
            workdir, daphne_env(redis_url), application_name=APP_NAME, log_name="daphne.log"
        ) as daphne:
            result = run_load(
                LoadPlan(
                    port=daphne.port,
                    app_name=daphne.application_name,
                    clients=ARGS.clients,
                    sockets=ARGS.sockets,
                    duration=ARGS.duration,
                    drain=ARGS.drain,
                    layer="redis (own redis-server, channels-redis)"
                    if redis_url
                    else "embedded (channels-postgres)",
                    log=daphne.log,
                    pool_size=ARGS.pool_size,
                ),
                people,
                shared_board,
            )
    finally:
        disconnect_everybody_else()
    return 1 if result["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
