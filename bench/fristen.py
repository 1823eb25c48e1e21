"""Fristenkontrolle latency with 10,000 Fristen and 20 staff (issue #12).

    .venv/bin/python bench/fristen.py [--fristen 10000] [--small 1000] [--staff 20] [--rounds 30]

Targets: calendar_compute_deadline under 1 ms per call; the Fristenkontrolle page
(GET /kalender/fristen/) and the dashboard "Heute" (GET /, and its live-refetched cards) under
100 ms median each, with the same number of queries at both data sizes (constant in rows).

The Fristen spread over a year around today, each with a responsible person (one in three also a
deputy), seven in ten open, the rest done or cancelled, one Vorfrist a week before each open one,
four in five about a client. The bench user is one of the staff, so their own Fristen are about
1/20 of all (plus the ones they are deputy for).
"""

import sys
from pathlib import Path

# bench/ would shadow the standard library's calendar module (bench/calendar.py): it goes last.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE] + [str(_HERE)]

import argparse  # noqa: E402
import datetime as dt  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

from _setup import bench_database, parse, percentile, timed  # noqa: E402

PAGE_TARGET_MS = 100
COMPUTE_TARGET_MS = 1.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fristen", type=int, default=10_000)
    parser.add_argument("--small", type=int, default=1_000, help="the first data size (query counts)")
    parser.add_argument("--staff", type=int, default=20)
    parser.add_argument("--clients", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--calls", type=int, default=2_000, help="calendar_compute_deadline calls")
    opts = parse(parser, {"fristen": 100, "small": 50, "staff": 3, "clients": 10, "rounds": 3, "calls": 20})
    with bench_database():
        run(opts)


# --- seeding ---------------------------------------------------------------------------------------
def seed_people(n_staff: int, n_clients: int):
    from apps.accounts.models import User
    from apps.clients.models import Client

    # No password (unusable): bench users never log in (force_login), and PBKDF2 cost ~0.5 CPU-s a user.
    staff = [
        User.objects.create_user(f"staff{i}@kanzlei.example", None, full_name=f"Staff {i}")
        for i in range(n_staff)
    ]
    rng = random.Random(12)
    surnames = ["Meier", "Schulz", "Vogel", "König", "Weber", "Hoffmann", "Lindner", "Brandt", "Berger"]
    clients = Client.objects.bulk_create(
        [
            Client(
                name=f"{rng.choice(surnames)} GmbH {i}",
                client_number=f"{20000 + i}",
                kind="company",
                responsible=staff[i % n_staff],
            )
            for i in range(n_clients)
        ],
        batch_size=1000,
    )
    return staff, clients


def seed_fristen(count: int, offset: int, staff: list, clients: list) -> None:
    """`count` more Fristen (rows numbered from `offset`), their Vorfristen, in bulk."""
    from django.utils import timezone

    from apps.calendar.models import CalendarEvent, PreDeadline

    rng = random.Random(offset + 1)
    rules = [
        ("Einspruch", "§ 355 AO", "einspruch_ao"),
        ("Klage FG", "§ 47 FGO", "klage_fgo"),
        ("Berufung", "§ 517 ZPO", "berufung_zpo"),
        ("Widerspruch", "§ 70 VwGO", "widerspruch_vwgo"),
    ]
    today = timezone.localdate()
    now = timezone.now()
    rows = []
    for i in range(offset, offset + count):
        due = today + dt.timedelta(days=rng.randrange(-182, 183))
        start = dt.datetime.combine(due, dt.time(0), tzinfo=timezone.get_current_timezone())
        word, basis, code = rules[i % len(rules)]
        responsible = staff[i % len(staff)]
        deputy = staff[(i + 7) % len(staff)] if i % 3 == 0 else None
        roll = rng.random()
        status = "open" if roll < 0.7 else ("done" if roll < 0.9 else "cancelled")
        rows.append(
            CalendarEvent(
                title=f"{word}sfrist #{i}",
                kind="deadline",
                all_day=True,
                start=start,
                end=start + dt.timedelta(days=1),
                time_zone="Europe/Berlin",
                owner=responsible,
                created_by=responsible,
                responsible=responsible,
                deputy=deputy,
                status=status,
                done_at=now if status == "done" else None,
                done_by=responsible if status == "done" else None,
                done_how="Einspruch eingelegt" if status == "done" else "",
                cancelled_at=now if status == "cancelled" else None,
                cancelled_by=responsible if status == "cancelled" else None,
                cancel_reason="Bescheid geändert" if status == "cancelled" else "",
                legal_basis=basis,
                rule_code=code,
                trigger_date=due - dt.timedelta(days=31),
                criticality=rng.choice(["normal", "high", "critical"]),
                client=clients[rng.randrange(len(clients))] if i % 5 else None,
            )
        )
    created = CalendarEvent.objects.bulk_create(rows, batch_size=1000)
    PreDeadline.objects.bulk_create(
        [
            PreDeadline(event=event, due_date=event.start.date() - dt.timedelta(days=7))
            for event in created
            if event.status == "open"
        ],
        batch_size=2000,
    )


# --- measuring -------------------------------------------------------------------------------------------
def queries_of(fn) -> list[str]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        fn()
    return [q["sql"] for q in captured.captured_queries]


def page_getter(browser, url: str):
    """Through the request handler (middleware, session, templates), without the test client's
    per-template context copies a real server does not make (as bench/calendar.py)."""
    path, _, query = url.partition("?")

    def call():
        environ = browser._base_environ(PATH_INFO=path, QUERY_STRING=query, REQUEST_METHOD="GET")
        response = browser.handler(environ)
        if response.status_code != 200:
            sys.exit(f"GET {url} answered {response.status_code}")

    return call


PAGES = (
    ("Fristenkontrolle (GET /kalender/fristen/)", "/kalender/fristen/"),
    ("Fristenkontrolle, mine, all statuses", "/kalender/fristen/?who=me&status=all"),
    ("Fristenkontrolle, search + criticality", "/kalender/fristen/?q=Einspruch&criticality=critical"),
    ("dashboard (GET /)", "/"),
    ("dashboard cards (GET /heute/karten/)", "/heute/karten/"),
)


def measure_pages(browser, rounds: int) -> dict[str, tuple[float, float, list[str]]]:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("ANALYZE")
    figures = {}
    for label, url in PAGES:
        call = page_getter(browser, url)
        samples = timed(call, rounds)
        figures[label] = (statistics.median(samples), percentile(samples, 95), queries_of(call))
    return figures


def measure_compute(ctx, calls: int) -> list[tuple[str, float]]:
    from apps.deadlines import compute, services
    from apps.tools import registry
    from apps.tools.dispatcher import dispatch

    rng = random.Random(3)
    days = [dt.date(2026, 1, 1) + dt.timedelta(days=rng.randrange(0, 730)) for _ in range(calls)]
    codes = ["einspruch_ao", "klage_fgo", "berufung_zpo", "widerspruch_vwgo", "berufungsbegruendung_zpo"]

    def per_call(fn) -> float:
        for day in days[:50]:  # warm: the holiday tables of the years met are built once
            fn(day, 0)
        t0 = time.perf_counter()
        for i, day in enumerate(days):
            fn(day, i)
        return (time.perf_counter() - t0) * 1000 / len(days)

    def tool(day, i):
        args = {"trigger_date": day.isoformat(), "rule": codes[i % len(codes)], "posted": i % 2 == 0}
        if codes[i % len(codes)] in ("berufung_zpo", "berufungsbegruendung_zpo"):
            args["posted"] = False
        result = dispatch("calendar_compute_deadline", args, ctx)
        if not result.ok:
            sys.exit(f"calendar_compute_deadline {args}: {result.code} {result.message}")

    handler = registry.get("calendar_compute_deadline")

    def tool_handler(day, i):
        code = codes[i % len(codes)]
        args = handler.args_model(trigger_date=day, rule=code, posted=code in ("einspruch_ao", "klage_fgo"))
        handler.handler(ctx, args)

    def service(day, i):
        code = codes[i % len(codes)]
        services.compute_deadline(trigger_date=day, rule=code, posted=code in ("einspruch_ao", "klage_fgo"))

    def module(day, i):
        compute.compute(day, 1, "months", posted=i % 2 == 0, state="BY", legal_basis="§ 355 AO")

    return [
        ("calendar_compute_deadline (dispatch: + is_active, audit row)", per_call(tool)),
        ("calendar_compute_deadline (the tool's handler)", per_call(tool_handler)),
        ("services.compute_deadline (rule from catalog)", per_call(service)),
        ("compute.compute (module)", per_call(module)),
    ]


def run(opts) -> None:
    from django.test import Client

    from apps.accounts.principal import Principal
    from apps.tools.context import ToolContext

    staff, clients = seed_people(opts.staff, opts.clients)
    user = staff[0]
    browser = Client()
    browser.force_login(user)
    ctx = ToolContext(principal=Principal.for_user(user))

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{opts.staff} staff, {opts.clients} clients; the bench user is {user.email}; load average {load}")
    for label, ms in measure_compute(ctx, opts.calls):
        print(f"{label:<62} {ms * 1000:8.1f} µs per call  (target < {COMPUTE_TARGET_MS * 1000:.0f} µs)")

    seed_fristen(opts.small, 0, staff, clients)
    small = measure_pages(browser, opts.rounds)
    seed_fristen(opts.fristen - opts.small, opts.small, staff, clients)
    large = measure_pages(browser, opts.rounds)

    print(f"\npages at {opts.small:,} and {opts.fristen:,} Fristen (median, p95, queries per request)")
    for label, _url in PAGES:
        m1, p1, sql1 = small[label]
        m2, p2, sql2 = large[label]
        constant = "constant" if len(sql1) == len(sql2) else "NOT constant"
        print(
            f"{label:<44} {m1:6.1f} / {m2:6.1f} ms  p95 {p1:6.1f} / {p2:6.1f} ms"
            f"  queries {len(sql1)} / {len(sql2)} ({constant})  (target < {PAGE_TARGET_MS} ms)"
        )
        if len(sql1) != len(sql2):  # name the queries that came or went, to find the loop
            shapes1, shapes2 = [_shape(q) for q in sql1], [_shape(q) for q in sql2]
            for shape in sorted(set(shapes1) | set(shapes2)):
                if shapes1.count(shape) != shapes2.count(shape):
                    print(f"    {shapes1.count(shape)} / {shapes2.count(shape)} x {shape}")


def _shape(sql: str) -> str:
    """A query without its literal values, shortened: the same statement for other rows matches."""
    import re

    return re.sub(r"'[^']*'|\b\d+\b", "?", sql)[:160]


if __name__ == "__main__":
    main()
