"""Board page render time and `aufgaben_list_tasks` latency with 5,000 tasks.

    .venv/bin/python bench/board.py [--tasks 5000] [--rounds 30]

Targets (issue #4): board page under 150 ms, aufgaben_list_tasks under 50 ms.
"""

import argparse
import random
import statistics

from _setup import bench_database, parse, percentile, timed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=30)
    opts = parse(parser, {"tasks": 50, "rounds": 3})
    with bench_database():
        run(opts)


def seed(n: int):
    from apps.accounts.models import User
    from apps.tasks.models import Board, Task, TaskStatus

    # No password (unusable): bench users never log in (force_login), and PBKDF2 cost ~0.5 CPU-s a user.
    users = [
        User.objects.create_user(f"staff{i}@kanzlei.example", None, full_name=f"Staff {i}") for i in range(12)
    ]
    statuses = [
        TaskStatus.objects.create(key=k, name=k.title(), category=c, sort_order=i)
        for i, (k, c) in enumerate(
            [("offen", "open"), ("in_arbeit", "in_progress"), ("warten", "waiting"), ("erledigt", "done")]
        )
    ]
    boards = [Board.objects.create(name=name) for name in ("Steuern", "Lohn", "Kanzlei")]
    rng = random.Random(7)
    words = [
        "Einkommensteuer",
        "Umsatzsteuer",
        "Lohnabrechnung",
        "Jahresabschluss",
        "Einspruch",
        "Bescheid",
        "Belege",
        "Mandant",
        "Frist",
    ]
    Task.objects.bulk_create(
        [
            Task(
                title=f"{rng.choice(words)} {rng.choice(words)} #{i}",
                description=" ".join(rng.choices(words, k=12)),
                board=boards[i % 3],
                status=statuses[rng.randrange(4)],
                assignee=users[rng.randrange(12)],
                erstellt_von=users[0],
                position=i,
            )
            for i in range(n)
        ],
        batch_size=1000,
    )
    return users[0], boards[0]


def run(opts) -> None:
    from django.db import connection
    from django.test import Client

    from apps.accounts.principal import Principal
    from apps.tools.context import ToolContext
    from apps.tools.dispatcher import dispatch

    user, board = seed(opts.tasks)
    with connection.cursor() as cur:
        cur.execute("ANALYZE")
    client = Client()
    client.force_login(user)

    def board_page():
        assert client.get(f"/aufgaben/?board={board.pk}").status_code == 200

    ctx = ToolContext(principal=Principal.for_user(user))

    def list_tool():
        assert dispatch("aufgaben_list_tasks", {"limit": 50}, ctx).ok

    def search_tool():
        assert dispatch("aufgaben_list_tasks", {"query": "bescheid", "unfinished": True, "limit": 50}, ctx).ok

    for label, fn, target in (
        ("board page (GET /aufgaben/)", board_page, 150),
        ("aufgaben_list_tasks (first page)", list_tool, 50),
        ("aufgaben_list_tasks (query + open)", search_tool, 50),
    ):
        samples = timed(fn, opts.rounds)
        print(
            f"{label:<38} median {statistics.median(samples):6.1f} ms  p95 {percentile(samples, 95):6.1f} ms"
            f"  (target < {target} ms, {opts.tasks} tasks)"
        )


if __name__ == "__main__":
    main()
