"""Fan-out of shared UI mutation events to many open pages over /ws/mutations/.

Starts ONE daphne process on a free loopback port against a throwaway copy of the schema, signs in
N users (one WebSocket each), commits M events with audience "all" through `record_mutation`
(one transaction each, like a service), and prints delivery latency (commit → client) and losses.

    .venv/bin/python bench/mutation_fanout.py                 # embedded: channels-postgres layer
    .venv/bin/python bench/mutation_fanout.py --redis         # Redis channel layer
    .venv/bin/python bench/mutation_fanout.py --clients 100 --events 20 --interval 0.05
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

REDIS_URL = "redis://127.0.0.1:6379/0"
os.environ.setdefault("CLAPILOT_TEST_DATABASE", "bench_mutation_fanout")

from _cpu import tree_cpu  # noqa: E402
from _setup import (  # noqa: E402
    ROOT,
    bench_database,
    disconnect_everybody_else,
    parse,
    percentile,
    point_channel_layer_at_bench_database,
)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=500, help="open WebSockets (one user each)")
    parser.add_argument("--events", type=int, default=50, help="committed mutations")
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between commits")
    parser.add_argument("--redis", action="store_true", help=f"channel layer on {REDIS_URL}")
    parser.add_argument("--drain", type=float, default=60.0, help="seconds to wait for stragglers")
    return parse(parser, {"clients": 5, "events": 3, "interval": 0.05, "drain": 15.0})


ARGS = parse_args()
# Settings are read when Django starts (bench_database): choose the channel layer first.
if ARGS.redis:
    os.environ["REDIS_URL"] = REDIS_URL
else:
    os.environ.pop("REDIS_URL", None)

from tests.live import live_daphne  # noqa: E402


def make_sessions(count: int) -> list[str]:
    """One signed-in session per client, written straight to the session store."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    from apps.accounts.models import User

    users = User.objects.bulk_create(
        [User(email=f"bench{i}@kanzlei.example", full_name=f"Bench {i}", password="!") for i in range(count)]
    )
    cookies = []
    for user in users:
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        cookies.append(f"{settings.SESSION_COOKIE_NAME}={session.session_key}")
    return cookies


class Client:
    def __init__(self, cookie: str) -> None:
        self.cookie = cookie
        self.received: dict[int, float] = {}
        self.socket = None

    async def connect(self, url: str, origin: str) -> None:
        from websockets.asyncio.client import connect

        self.socket = await connect(
            url, origin=origin, additional_headers={"Cookie": self.cookie}, open_timeout=60, compression=None
        )

    async def listen(self) -> None:
        import json

        try:
            async for raw in self.socket:
                now = time.perf_counter()
                message = json.loads(raw)
                if message.get("type") == "mutation":
                    self.received.setdefault(message["event"]["id"], now)
        except Exception:  # the socket closed: what arrived is what counts
            return


def commit_one(index: int, committed: dict[int, float]) -> None:
    from django.db import transaction

    from apps.mutations import actions
    from apps.mutations.services import record_mutation

    with transaction.atomic():
        stamp: dict[str, float] = {}
        # Registered first, so it runs first after COMMIT: the commit time, before publishing.
        transaction.on_commit(lambda: stamp.setdefault("t", time.perf_counter()))
        event = record_mutation(
            audience="all",
            topic="aufgaben.task.updated",
            ui_actions=[
                actions.highlight(f"task:{index}"),
                actions.upsert("tasks", f"task:{index}", {"n": index}),
            ],
        )
    committed[event.id] = stamp["t"]


async def run(port: int, cookies: list[str]) -> None:
    from asgiref.sync import sync_to_async

    url, origin = f"ws://127.0.0.1:{port}/ws/mutations/", f"http://127.0.0.1:{port}"
    clients = [Client(cookie) for cookie in cookies]
    started = time.perf_counter()
    for start in range(0, len(clients), 50):  # in waves: do not flood the accept backlog
        await asyncio.gather(*(client.connect(url, origin) for client in clients[start : start + 50]))
    connect_seconds = time.perf_counter() - started
    listeners = [asyncio.create_task(client.listen()) for client in clients]
    await asyncio.sleep(1.0)  # every consumer is subscribed before accept; settle the loop

    committed: dict[int, float] = {}
    publish_started = time.perf_counter()
    for index in range(ARGS.events):
        await sync_to_async(commit_one)(index, committed)
        await asyncio.sleep(ARGS.interval)
    publish_seconds = time.perf_counter() - publish_started

    expected = len(clients) * len(committed)
    deadline = time.perf_counter() + ARGS.drain
    while time.perf_counter() < deadline:
        if sum(len(set(c.received) & committed.keys()) for c in clients) >= expected:
            break
        await asyncio.sleep(0.2)

    latencies = [
        (client.received[event_id] - committed_at) * 1000
        for client in clients
        for event_id, committed_at in committed.items()
        if event_id in client.received
    ]
    lost = expected - len(latencies)
    for client in clients:
        await client.socket.close()
    for task in listeners:
        task.cancel()

    layer = "redis (channels-redis)" if ARGS.redis else "embedded (channels-postgres)"
    print(f"channel layer      {layer}")
    print(f"clients            {len(clients)} connected in {connect_seconds:.1f} s")
    print(
        f"events             {len(committed)} committed in {publish_seconds:.1f} s (interval {ARGS.interval} s)"
    )
    print(f"deliveries         {len(latencies)} of {expected}, lost {lost}")
    if latencies:
        print(
            f"latency ms         p50 {percentile(latencies, 50):.1f}  p90 {percentile(latencies, 90):.1f}  "
            f"p99 {percentile(latencies, 99):.1f}  max {max(latencies):.1f}"
        )
    await close_postgres_layer_pool()


async def close_postgres_layer_pool() -> None:
    try:
        import channels_postgres.db
    except ImportError:
        return
    if channels_postgres.db.connection_pool is not None:
        await channels_postgres.db.connection_pool.close(timeout=5)


def own_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    if ARGS.redis:
        import redis

        try:
            redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).ping()
        except Exception as exc:
            raise SystemExit(f"Redis at {REDIS_URL} is not reachable: {exc}") from None
    with bench_database():
        point_channel_layer_at_bench_database()
        cookies = make_sessions(ARGS.clients)
        try:
            with live_daphne(ROOT / "var", log_name="bench_mutation_fanout_daphne.log") as daphne:
                asyncio.run(run(daphne.port, cookies))
                print(
                    f"cpu seconds        daphne {tree_cpu(daphne.process.pid):.1f}  "
                    f"bench (clients + publisher) {own_cpu():.1f}"
                )
        finally:
            disconnect_everybody_else()


if __name__ == "__main__":
    main()
