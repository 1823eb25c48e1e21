"""Month view render time and `calendar_list_events` latency with 10,000 calendar entries.

    .venv/bin/python bench/calendar_views.py [--events 10000] [--rounds 30]

Targets (issue #7): month view under 150 ms, calendar_list_events under 50 ms.
The entries spread over a year around today (some recurring, some Fristen, some private).
"""

import argparse
import datetime as dt
import random
import statistics
import time

from _setup import bench_database, percentile


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=30)
    opts = parser.parse_args()
    with bench_database():
        run(opts)


def seed(n: int):
    from django.utils import timezone

    from apps.accounts.models import User
    from apps.calendar.models import CalendarEvent

    users = [
        User.objects.create_user(f"staff{i}@kanzlei.example", "x" * 20, full_name=f"Staff {i}")
        for i in range(12)
    ]
    rng = random.Random(7)
    words = [
        "Mandantengespräch",
        "Finanzamt",
        "Jahresabschluss",
        "Lohn",
        "Einspruch",
        "Meier",
        "Schulz",
        "Vogel",
    ]
    now = timezone.now().replace(minute=0, second=0, microsecond=0)
    rows = []
    for i in range(n):
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
    return users[0]


def timed(fn, rounds: int) -> list[float]:
    for _ in range(3):
        fn()
    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return samples


def run(opts) -> None:
    from django.db import connection
    from django.test import Client

    from apps.accounts.principal import Principal
    from apps.tools.context import ToolContext
    from apps.tools.dispatcher import dispatch

    user = seed(opts.events)
    with connection.cursor() as cur:
        cur.execute("ANALYZE")
    client = Client()
    client.force_login(user)

    def month_view():
        assert client.get("/kalender/").status_code == 200

    ctx = ToolContext(principal=Principal.for_user(user))

    def list_tool():
        assert dispatch("calendar_list_events", {"limit": 50}, ctx).ok

    def search_tool():
        assert dispatch("calendar_list_events", {"query": "meier", "kind": "event", "limit": 50}, ctx).ok

    def deadlines_page():
        assert client.get("/kalender/fristen/").status_code == 200

    for label, fn, target in (
        ("month view (GET /kalender/)", month_view, 150),
        ("calendar_list_events (31 days)", list_tool, 50),
        ("calendar_list_events (query + kind)", search_tool, 50),
        ("Fristen page (GET /kalender/fristen/)", deadlines_page, 150),
    ):
        samples = timed(fn, opts.rounds)
        print(
            f"{label:<40} median {statistics.median(samples):6.1f} ms  p95 {percentile(samples, 95):6.1f} ms"
            f"  (target < {target} ms, {opts.events} entries)"
        )


if __name__ == "__main__":
    main()
