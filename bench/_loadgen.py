"""The load generator behind bench/load.py (and its bounded test): HTTP clients, WebSockets and
the delivery check, against a server that is already running. No side effect at import."""

from __future__ import annotations

import http.client
import json
import os
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from bench._cpu import tree_cpu  # imported by tests as bench._loadgen too


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


class BenchUser:
    def __init__(self, user, cookie: str, api_key: str, token: str, private_board: int) -> None:
        self.user = user
        self.id = user.pk
        self.cookie = cookie
        self.api_key = api_key
        self.token = token
        self.private_board = private_board


def prepare(count: int) -> tuple[list[BenchUser], int]:
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    from apps.accounts.models import User
    from apps.accounts.principal import Principal
    from apps.apikeys import services as apikeys
    from apps.core.inputs import build
    from apps.tasks import services as tasks
    from apps.tasks.contracts import BoardCreate
    from apps.tasks.models import TaskStatus

    for i, (key, name, category) in enumerate(
        [
            ("offen", "Offen", "open"),
            ("in_arbeit", "In Arbeit", "in_progress"),
            ("erledigt", "Erledigt", "done"),
        ]
    ):
        TaskStatus.objects.get_or_create(
            key=key, defaults={"name": name, "category": category, "sort_order": i}
        )
    people = []
    for i in range(count):
        # Admins: only an admin may mint an API key (it acts as its creator).
        user = User.objects.create(
            email=f"load{i}@kanzlei.example", full_name=f"Last {i}", password="!", role="admin"
        )
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        principal = Principal.for_user(user)
        _, key = apikeys.create_api_key(
            principal, name="load", scopes=["tools:execute", "notifications:read"]
        )
        _, token = apikeys.issue_device_token(user, "load")
        board = tasks.create_board(principal, build(BoardCreate, name=f"Privat {i}", visibility="private"))
        people.append(
            BenchUser(user, f"{settings.SESSION_COOKIE_NAME}={session.session_key}", key, token, board.pk)
        )
    shared = tasks.create_board(Principal.for_user(people[0].user), build(BoardCreate, name="Kanzlei"))
    return people, shared.pk


# --- HTTP clients ---------------------------------------------------------------------------
class Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: Counter = Counter()
        self.error_samples: dict[str, str] = {}
        self.event_ids_in_results: list[int] = []
        self.writes = 0

    def merge(self, latency, errors, samples, event_ids, writes) -> None:
        with self.lock:
            for route, values in latency.items():
                self.latency[route].extend(values)
            self.errors.update(errors)
            for route, sample in samples.items():
                self.error_samples.setdefault(route, sample)
            self.event_ids_in_results.extend(event_ids)
            self.writes += writes


def client_loop(
    index: int, port: int, person: BenchUser, shared_board: int, stop_at: float, stats: Stats
) -> None:
    cookie = {"Cookie": person.cookie}
    key = {"Authorization": f"Bearer {person.api_key}"}
    token = {"Authorization": f"Token {person.token}"}
    post = {**key, "Content-Type": "application/json"}

    def tool(name: str, arguments: dict) -> tuple[str, str, dict, bytes]:
        body = json.dumps({"tool": name, "arguments": arguments}).encode()
        return f"tool {name}", "/api/v1/tools/execute", post, body

    n = 0

    def operations():
        nonlocal n
        while True:
            n += 1
            board = shared_board if n % 2 else person.private_board
            yield "page /", "/", cookie, None
            yield "REST /api/v1/tools", "/api/v1/tools", key, None
            yield tool("aufgaben_create_task", {"title": f"Last {index}-{n}", "board_id": board})
            yield "REST /api/v1/tasks/boards", "/api/v1/tasks/boards", token, None
            yield "page /aufgaben/", "/aufgaben/", cookie, None
            yield "REST /api/v1/notifications", "/api/v1/notifications", key, None
            yield tool("aufgaben_list_tasks", {"limit": 10})
            yield "REST /api/v1/tasks/", "/api/v1/tasks/?limit=20", token, None

    latency: dict[str, list[float]] = defaultdict(list)
    errors: Counter = Counter()
    samples: dict[str, str] = {}
    event_ids: list[int] = []
    writes = 0
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for route, path, headers, body in operations():
        if time.monotonic() >= stop_at:
            break
        started = time.perf_counter()
        try:
            conn.request("POST" if body is not None else "GET", path, body=body, headers=headers)
            response = conn.getresponse()
            payload = response.read()
            status = response.status
        except (OSError, http.client.HTTPException) as exc:
            errors[route] += 1
            samples.setdefault(route, type(exc).__name__)
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            continue
        latency[route].append((time.perf_counter() - started) * 1000)
        ok = 200 <= status < 300
        if ok and body is not None:
            result = json.loads(payload)
            ok = result.get("ok") is True
            if ok and route == "tool aufgaben_create_task":
                writes += 1
                if result.get("mutation_event_id"):
                    event_ids.append(result["mutation_event_id"])
        if not ok:
            errors[route] += 1
            samples.setdefault(route, f"{status} {payload[:200]!r}")
    conn.close()
    stats.merge(latency, errors, samples, event_ids, writes)


# --- WebSockets -----------------------------------------------------------------------------
class Socket:
    def __init__(self, person: BenchUser) -> None:
        self.person = person
        self.received: Counter = Counter()
        self.ws = None
        self.closed_early = False

    async def connect(self, url: str, origin: str) -> None:
        from websockets.asyncio.client import connect

        self.ws = await connect(
            url,
            origin=origin,
            additional_headers={"Cookie": self.person.cookie},
            open_timeout=60,
            compression=None,
            max_queue=None,
        )

    async def listen(self) -> None:
        try:
            async for raw in self.ws:
                message = json.loads(raw)
                if message.get("type") == "mutation":
                    self.received[message["event"]["id"]] += 1
        except Exception:
            self.closed_early = True


class Sockets:
    """The WebSockets live on an event loop in a thread of their own."""

    def __init__(self, port: int, people: list[BenchUser], count: int) -> None:
        import asyncio

        self.loop = asyncio.new_event_loop()
        self.sockets = [Socket(people[i % len(people)]) for i in range(count)]
        self.url, self.origin = f"ws://127.0.0.1:{port}/ws/mutations/", f"http://127.0.0.1:{port}"
        self.thread = threading.Thread(target=self.loop.run_forever, name="sockets", daemon=True)
        self.thread.start()
        self.listeners = []

    def run(self, coro, timeout: float = 120):
        import asyncio

        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def open(self) -> float:
        import asyncio

        async def connect_all() -> None:
            for start in range(0, len(self.sockets), 50):  # in waves: do not flood the accept backlog
                await asyncio.gather(
                    *(s.connect(self.url, self.origin) for s in self.sockets[start : start + 50])
                )
            self.listeners = [asyncio.ensure_future(s.listen()) for s in self.sockets]
            await asyncio.sleep(1.0)  # every consumer has joined the hub

        started = time.perf_counter()
        self.run(connect_all())
        return time.perf_counter() - started

    def close(self) -> None:
        import asyncio

        async def close_all() -> None:
            await asyncio.gather(
                *(s.ws.close() for s in self.sockets if s.ws is not None), return_exceptions=True
            )
            for task in self.listeners:
                task.cancel()

        self.run(close_all())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()  # its self-pipe is a socket pair


# --- checks ---------------------------------------------------------------------------------
def head_event_id() -> int:
    from apps.mutations.models import MutationEvent

    return MutationEvent.objects.order_by("-id").values_list("id", flat=True).first() or 0


def expected_deliveries(after: int, sockets: list[Socket]) -> tuple[dict[int, set[int]], Counter]:
    """event id → indexes of the sockets that must receive it; and the events by audience."""
    from apps.mutations.models import MutationEvent

    by_user: dict[int, set[int]] = defaultdict(set)
    for i, s in enumerate(sockets):
        by_user[s.person.id].add(i)
    everyone = set(range(len(sockets)))
    expected: dict[int, set[int]] = {}
    audiences: Counter = Counter()
    for event_id, audience, user_id in MutationEvent.objects.filter(id__gt=after).values_list(
        "id", "audience", "user_id"
    ):
        audiences[audience] += 1
        if audience == "all":
            expected[event_id] = everyone
        elif audience == "user":
            expected[event_id] = by_user.get(user_id, set())
        else:  # all_except
            expected[event_id] = everyone - by_user.get(user_id, set())
    return expected, audiences


def delivery_check(expected: dict[int, set[int]], sockets: list[Socket]) -> dict[str, int]:
    lost = duplicated = misdelivered = delivered = 0
    for i, s in enumerate(sockets):
        for event_id, targets in expected.items():
            got = s.received.get(event_id, 0)
            if i in targets:
                delivered += min(got, 1)
                lost += got == 0
                duplicated += max(got - 1, 0)
            else:
                misdelivered += got
    return {
        "expected": sum(len(t) for t in expected.values()),
        "delivered": delivered,
        "lost": lost,
        "duplicated": duplicated,
        "misdelivered": misdelivered,
    }


class SessionSampler(threading.Thread):
    """The peak of the PostgreSQL sessions whose application_name is `app_name`."""

    def __init__(self, app_name: str) -> None:
        super().__init__(name="sessions", daemon=True)
        self.app_name = app_name
        self.peak = 0
        self.done = threading.Event()

    def run(self) -> None:
        from django.db import connection

        while not self.done.is_set():
            with connection.cursor() as cur:
                cur.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s", [self.app_name]
                )
                self.peak = max(self.peak, cur.fetchone()[0])
            time.sleep(0.25)
        connection.close()


@dataclass
class LoadPlan:
    port: int
    app_name: str  # daphne's PGAPPNAME, to count its sessions
    clients: int = 50
    sockets: int = 200
    duration: float = 60.0
    drain: float = 30.0
    warmup: float = 0.0  # seconds of the same mix before the clock starts, not counted
    layer: str = "embedded (channels-postgres)"
    log: Path | None = None  # daphne's log, printed on failure
    pool_size: int | None = None
    web_pids: tuple[int, ...] = ()  # the web processes, whose CPU per request is reported


def cpu_seconds(pids: tuple[int, ...]) -> float:
    """CPU seconds the processes (and their children) have used so far (0 for one that is gone)."""
    return sum(tree_cpu(pid) for pid in pids)


def run_clients(
    plan: LoadPlan, people: list[BenchUser], shared_board: int, seconds: float, stats: Stats
) -> None:
    stop_at = time.monotonic() + seconds
    clients = [
        threading.Thread(
            target=client_loop, args=(i, plan.port, people[i % len(people)], shared_board, stop_at, stats)
        )
        for i in range(plan.clients)
    ]
    for thread in clients:
        thread.start()
    for thread in clients:
        thread.join()


def run_load(plan: LoadPlan, people: list[BenchUser], shared_board: int) -> dict:
    """Runs the load, prints the figures and returns them (`failed` says whether anything went
    wrong: an error, a lost, duplicated or misdelivered event, a socket the server closed)."""
    load_before = os.getloadavg()
    sockets = Sockets(plan.port, people, plan.sockets)
    try:
        connect_seconds = sockets.open()
        # Steady state: a freshly started process compiles templates and warms its caches on its
        # first requests (~1.4 s for the first page), which would otherwise be the run's p95.
        run_clients(plan, people, shared_board, plan.warmup, Stats())
        after = head_event_id()
        sampler = SessionSampler(plan.app_name)
        sampler.start()
        stats = Stats()
        cpu_before = cpu_seconds(plan.web_pids)
        started = time.perf_counter()
        run_clients(plan, people, shared_board, plan.duration, stats)
        elapsed = time.perf_counter() - started
        web_cpu = cpu_seconds(plan.web_pids) - cpu_before
        load_during = os.getloadavg()

        expected, audiences = expected_deliveries(after, sockets.sockets)
        drain_started = time.perf_counter()
        deadline = time.monotonic() + plan.drain
        while time.monotonic() < deadline:
            check = delivery_check(expected, sockets.sockets)
            if check["lost"] == 0:
                break
            time.sleep(0.25)
        time.sleep(0.5)  # late duplicates would arrive now
        check = delivery_check(expected, sockets.sockets)
        drain_seconds = time.perf_counter() - drain_started
        sampler.done.set()
        sampler.join()
        closed_early = sum(s.closed_early for s in sockets.sockets)
    finally:
        sockets.close()
    total = sum(len(v) for v in stats.latency.values()) + sum(
        n for r, n in stats.errors.items() if r not in stats.latency
    )
    errors = sum(stats.errors.values())
    print(f"channel layer   {plan.layer}")
    print(
        f"load            {plan.clients} clients ({len(people)} users), {plan.sockets} WebSockets "
        f"(connected in {connect_seconds:.1f} s), {elapsed:.1f} s after {plan.warmup:.0f} s of warm-up"
    )
    print(
        f"machine         {os.cpu_count()} cores, load average before {load_before[0]:.1f}, after {load_during[0]:.1f}"
    )
    print()
    print(f"{'route':32} {'requests':>9} {'errors':>7} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    routes = {}
    for route in sorted(set(stats.latency) | set(stats.errors)):
        values = stats.latency.get(route, [])
        routes[route] = {
            "requests": len(values),
            "errors": stats.errors.get(route, 0),
            "p50_ms": round(percentile(values, 50), 1) if values else None,
            "p95_ms": round(percentile(values, 95), 1) if values else None,
            "max_ms": round(max(values), 1) if values else None,
        }
        r = routes[route]
        fmt = lambda v: f"{v:8.1f}" if v is not None else f"{'-':>8}"  # noqa: E731
        print(
            f"{route:32} {r['requests']:9d} {r['errors']:7d} {fmt(r['p50_ms'])} {fmt(r['p95_ms'])} {fmt(r['max_ms'])}"
        )
    print(f"{'total':32} {total:9d} {errors:7d}   ({total / elapsed:.0f} requests/s)")
    web_cpu_ms = round(web_cpu * 1000 / total, 2) if total and plan.web_pids else None
    if web_cpu_ms is not None:
        print(f"web CPU         {web_cpu_ms} ms per request ({web_cpu / elapsed:.2f} cores busy)")
    for route, sample in stats.error_samples.items():
        print(f"  first error of {route}: {sample}")
    print()
    print(
        f"mutation events {len(expected)} committed ({', '.join(f'{k} {v}' for k, v in sorted(audiences.items()))}) "
        f"by {stats.writes} writes; {len(stats.event_ids_in_results)} results named their event id"
    )
    print(
        f"deliveries      expected {check['expected']}, delivered {check['delivered']}, lost {check['lost']}, "
        f"duplicated {check['duplicated']}, to a socket that must not see it {check['misdelivered']} "
        f"(drained in {drain_seconds:.1f} s)"
    )
    per_socket = [sum(1 for e, t in expected.items() if i in t) for i in range(len(sockets.sockets))]
    got = [sum(min(s.received.get(e, 0), 1) for e in expected) for s in sockets.sockets]
    if per_socket:
        print(
            f"per socket      expected {min(per_socket)}–{max(per_socket)} events, received {min(got)}–{max(got)}; "
            f"sockets closed by the server: {closed_early}"
        )
    unknown_ids = sorted(set(stats.event_ids_in_results) - set(expected))
    if unknown_ids:
        print(f"  event ids named in results but not committed in the run: {unknown_ids[:10]}")
    print(f"db sessions     peak {sampler.peak} of daphne (pool size {plan.pool_size or 'default'})")
    failed = bool(
        errors or check["lost"] or check["duplicated"] or check["misdelivered"] or closed_early or unknown_ids
    )
    if failed and plan.log is not None:
        print(f"daphne log tail:\n{plan.log.read_text(errors='replace')[-3000:]}")
    result = {
        "layer": plan.layer,
        "clients": plan.clients,
        "sockets": plan.sockets,
        "seconds": round(elapsed, 1),
        "requests": total,
        "per_second": round(total / elapsed, 1),
        "web_cpu_ms": web_cpu_ms,
        "errors": errors,
        "routes": routes,
        "events": len(expected),
        "writes": stats.writes,
        **check,
        "closed_early": closed_early,
        "db_sessions_peak": sampler.peak,
        "load_average": [round(load_before[0], 1), round(load_during[0], 1)],
        "failed": failed,
    }
    print("RESULT " + json.dumps(result))
    return result


def healthz_rate(port: int, clients: int, duration: float, web_pids: tuple[int, ...] = ()) -> dict:
    """The rate of the cheapest request (GET /healthz) with the same clients and the same
    generator as the mix: the ceiling the mix is compared with (issue #28: mix ≥ 35 % of it)."""
    answered = [0] * clients
    failed = [0] * clients
    stop_at = time.monotonic() + duration

    def client(i: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while time.monotonic() < stop_at:
            try:
                conn.request("GET", "/healthz")
                response = conn.getresponse()
                response.read()
                answered[i] += 1  # 503 (no worker heartbeat in a bench) is an answer too
            except (OSError, http.client.HTTPException):
                failed[i] += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.close()

    cpu_before = cpu_seconds(web_pids)
    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    requests = sum(answered)
    web_cpu = cpu_seconds(web_pids) - cpu_before
    return {
        "requests": requests,
        "errors": sum(failed),
        "per_second": round(requests / elapsed, 1),
        "web_cpu_ms": round(web_cpu * 1000 / requests, 2) if requests and web_pids else None,
    }
