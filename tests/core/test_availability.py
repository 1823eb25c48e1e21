"""Availability under concurrency: a real daphne process, many clients at once.

Under ASGI every request's sync view runs in a thread of its own; with persistent connections
(CONN_MAX_AGE > 0) each of those threads kept one PostgreSQL session, and 10-20 concurrent clients
exhausted the server's 100 connections ("too many clients already" → 500 for everyone). The
connection pool bounds a process's sessions however many threads serve it.
"""

from __future__ import annotations

import http.client
import threading
import time
from collections import Counter

import pytest
from django.db import connection

from apps.accounts.principal import Principal
from apps.apikeys import services as apikeys
from apps.core.services import record_heartbeat
from tests.factories import UserFactory
from tests.live import backends, live_daphne

pytestmark = pytest.mark.django_db(transaction=True)

POOL_SIZE = 8
# Besides the pool: channels-postgres's pool (max 4) and LISTEN session, the channels_postgres
# alias (group_discard), the health check's broker connection (kombu's SQLAlchemy engine).
OTHER_SESSIONS = 10


def _hammer(base: str, routes: list[tuple[str, dict]], seconds: float, threads: int) -> Counter:
    """`threads` clients looping over `routes` with keep-alive connections; returns
    Counter[(path, status)]."""
    results: Counter = Counter()
    lock = threading.Lock()
    host, port = base.removeprefix("http://").split(":")
    stop_at = time.monotonic() + seconds

    def client() -> None:
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        seen: Counter = Counter()
        i = 0
        while time.monotonic() < stop_at:
            path, headers = routes[i % len(routes)]
            i += 1
            try:
                conn.request("GET", path, headers=headers)
                response = conn.getresponse()
                response.read()
                seen[(path, response.status)] += 1
            except (OSError, http.client.HTTPException) as exc:
                seen[(path, type(exc).__name__)] += 1
                conn.close()
                conn = http.client.HTTPConnection(host, int(port), timeout=30)
        conn.close()
        with lock:
            results.update(seen)

    workers = [threading.Thread(target=client) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return results


def test_twenty_concurrent_clients_do_not_exhaust_the_database(tmp_path):
    admin = UserFactory(role="admin", is_superuser=True)
    _, key = apikeys.create_api_key(Principal.for_user(admin), name="load", scopes=["tools:execute"])
    _, token = apikeys.issue_device_token(admin, "load")
    record_heartbeat("beat")
    bearer = {"Authorization": f"Bearer {key}"}
    device = {"Authorization": f"Token {token}"}
    routes = [
        ("/healthz", {}),
        ("/api/v1/tasks/boards", device),
        ("/api/v1/tools", bearer),
        ("/api/v1/tasks/?limit=5", device),
    ]
    env = {"CLAPILOT_DB_POOL_SIZE": str(POOL_SIZE), "CLAPILOT_API_KEY_RATE": "100000/min"}
    with live_daphne(tmp_path, env) as server:
        peak = 0
        sampling = threading.Event()

        def sample() -> None:
            nonlocal peak
            while not sampling.is_set():
                peak = max(peak, backends(server.application_name))
                time.sleep(0.1)
            connection.close()  # this thread's own session

        sampler = threading.Thread(target=sample)
        sampler.start()
        try:
            results = _hammer(server.url, routes, seconds=6, threads=20)
        finally:
            sampling.set()
            sampler.join()

        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        conn.request("GET", "/api/v1/tasks/boards", headers=device)
        after = conn.getresponse()
        after.read()
        conn.close()
        idle_after = backends(server.application_name)

    failures = {k: n for k, n in results.items() if k[1] != 200}
    assert peak <= POOL_SIZE + OTHER_SESSIONS, f"{peak} sessions held by one daphne process: {results}"
    assert not failures, f"{failures} of {sum(results.values())} requests; daphne: {server.output()}"
    assert after.status == 200
    assert sum(results.values()) > 20 * len(routes), results
    assert idle_after <= POOL_SIZE + OTHER_SESSIONS
