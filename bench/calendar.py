"""Kalender latency with 10,000 calendar entries and 500 clients (issue #7).

    .venv/bin/python bench/calendar.py [--events 10000] [--clients 500] [--rounds 30]

Targets: month view under 150 ms, calendar_list_events under 50 ms. The entries spread over a
year around today (some recurring, some Fristen, some private); four in five link a client.
Also prints the Fristen page, the client filter and the client page (the office's most used view).
"""

import sys
from pathlib import Path

# This file is named like the standard library's `calendar`, which Django and the stdlib import:
# the script's own folder must come after the standard library on the path, not before it.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE] + [str(_HERE)]

import argparse  # noqa: E402
import datetime as dt  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402

from _setup import bench_database, parse, percentile, timed  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=30)
    opts = parse(parser, {"events": 100, "clients": 10, "rounds": 3})
    with bench_database():
        run(opts)


def seed(n_events: int, n_clients: int):
    from django.db.models import Count
    from django.utils import timezone

    from apps.accounts.models import User
    from apps.calendar.models import CalendarEvent
    from apps.clients.models import Client

    # No password (unusable): bench users never log in (force_login), and PBKDF2 cost ~0.5 CPU-s a user.
    users = [
        User.objects.create_user(f"staff{i}@kanzlei.example", None, full_name=f"Staff {i}") for i in range(12)
    ]
    rng = random.Random(7)
    surnames = ["Meier", "Schulz", "Vogel", "König", "Weber", "Hoffmann", "Lindner", "Brandt", "Berger"]
    kinds = ["GmbH", "KG", "AG", "e.K.", "Familie"]
    clients = Client.objects.bulk_create(
        [
            Client(
                name=f"{rng.choice(surnames)} {rng.choice(kinds)} {i}",
                client_number=f"{10000 + i}",
                kind="company" if i % 3 else "person",
                city=rng.choice(["München", "Freising", "Garching", "Dachau"]),
                responsible=users[i % 12],
            )
            for i in range(n_clients)
        ],
        batch_size=1000,
    )
    words = ["Mandantengespräch", "Finanzamt", "Jahresabschluss", "Lohn", "Einspruch", "Bescheid", "Prüfung"]
    now = timezone.now().replace(minute=0, second=0, microsecond=0)
    rows = []
    for i in range(n_events):
        start = now + dt.timedelta(hours=rng.randrange(-24 * 182, 24 * 182))
        deadline = i % 10 == 0
        recurring = i % 200 == 0
        private = i % 7 == 0
        rows.append(
            CalendarEvent(
                title=f"{rng.choice(words)} {rng.choice(words)} #{i}",
                description=" ".join(rng.choices(words, k=10)),
                kind="deadline" if deadline else "event",
                start=start,
                end=start if deadline else start + dt.timedelta(minutes=rng.choice([30, 60, 90])),
                time_zone="Europe/Berlin",
                visibility="private" if private else "shared",
                owner=users[i % 12],
                created_by=users[i % 12],
                client=clients[rng.randrange(n_clients)] if i % 5 else None,
                criticality=rng.choice(["low", "normal", "high", "critical"]),
                rrule="FREQ=WEEKLY;COUNT=20" if recurring else "",
                recurrence_end=start + dt.timedelta(weeks=20) if recurring else None,
            )
        )
    CalendarEvent.objects.bulk_create(rows, batch_size=1000)
    through = CalendarEvent.attendees.through
    ids = list(CalendarEvent.objects.values_list("id", flat=True))
    through.objects.bulk_create(
        [through(calendarevent_id=pk, user_id=users[rng.randrange(12)].pk) for pk in ids], batch_size=2000
    )
    busiest = (
        CalendarEvent.objects.filter(client__isnull=False)
        .values("client_id")
        .order_by("client_id")
        .annotate(n=Count("id"))
        .order_by("-n")
        .first()
    )
    return users[0], busiest["client_id"], busiest["n"]


def run(opts) -> None:
    from django.db import connection
    from django.test import Client

    from apps.accounts.principal import Principal
    from apps.tools.context import ToolContext
    from apps.tools.dispatcher import dispatch

    user, client_id, client_events = seed(opts.events, opts.clients)
    with connection.cursor() as cur:
        cur.execute("ANALYZE")
    browser = Client()
    browser.force_login(user)
    ctx = ToolContext(principal=Principal.for_user(user))

    def get(url):
        # Through the request handler (middleware, session, template rendering) but without the
        # test client's per-template context copies, which a real server does not make.
        path, _, query = url.partition("?")

        def call():
            environ = browser._base_environ(PATH_INFO=path, QUERY_STRING=query, REQUEST_METHOD="GET")
            if browser.handler(environ).status_code != 200:
                sys.exit(f"GET {url} failed")

        return call

    def tool(args):
        def call():
            result = dispatch("calendar_list_events", args, ctx)
            if not result.ok:
                sys.exit(f"calendar_list_events {args}: {result.code} {result.message}")

        return call

    print(f"{opts.events} entries, {opts.clients} clients; the busiest client has {client_events} entries")
    for label, fn, target in (
        ("month view (GET /kalender/)", get("/kalender/"), 150),
        ("week view (GET /kalender/woche/)", get("/kalender/woche/"), 150),
        ("calendar_list_events (31 days)", tool({"limit": 50}), 50),
        ("calendar_list_events (query + kind)", tool({"query": "meier", "kind": "event", "limit": 50}), 50),
        ("calendar_list_events (client_id)", tool({"client_id": client_id, "limit": 50}), 50),
        ("Fristen page (GET /kalender/fristen/)", get("/kalender/fristen/"), 150),
        ("client page (GET /mandanten/<id>/)", get(f"/mandanten/{client_id}/"), 150),
    ):
        samples = timed(fn, opts.rounds)
        print(
            f"{label:<40} median {statistics.median(samples):6.1f} ms  p95 {percentile(samples, 95):6.1f} ms"
            f"  (target < {target} ms)"
        )


if __name__ == "__main__":
    main()
