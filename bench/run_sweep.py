"""The lost-run sweep (apps/agent/leases.py, beat every 15 s) on a large run table: its cost when
nothing is lost, and the query plans of its selections.

    .venv/bin/python bench/run_sweep.py [--finished 500000] [--active 50] [--repeat 30]

`--finished` finished runs (one chat) and `--active` running runs with live leases are inserted
with SQL; the sweep then finds nothing to do. Prints the sweep's p50/p95 in ms and whether each of
its selections uses an index (a sequential scan over every run ever made, four times a minute,
would grow with the instance's history).
"""

import argparse
import statistics
import time

from _setup import bench_database, parse, percentile


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--finished", type=int, default=500_000)
    parser.add_argument("--active", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=30)
    opts = parse(parser, {"finished": 1000, "active": 5, "repeat": 3})
    with bench_database():
        run(opts)


def run(opts) -> None:
    from django.db import connection
    from django.utils import timezone

    from apps.agent import leases
    from apps.agent.models import ChatSession, Run
    from tests.factories import UserFactory

    user = UserFactory()
    session = ChatSession.objects.create(user=user, title="Bench")
    with connection.cursor() as cur:
        cur.execute(
            f"""INSERT INTO {Run._meta.db_table}
                (session_id, user_id, status, kind, interactive, max_rounds, rounds, prompt_tokens,
                 completion_tokens, cost, model_label, error_code, error_message, diagnostics,
                 require_neutralization, time_zone, worker, created_at, started_at, finished_at,
                 lease_expires_at)
            SELECT %s, %s, CASE WHEN g <= %s THEN 'running' ELSE 'completed' END, 'chat', true, 25, 1,
                   0, 0, 0, 'bench', '', '', '{{}}'::jsonb, false, '', 'bench:1',
                   now() - interval '1 day', now() - interval '1 day',
                   CASE WHEN g <= %s THEN NULL ELSE now() - interval '1 day' END,
                   CASE WHEN g <= %s THEN now() + interval '1 hour' ELSE NULL END
            FROM generate_series(1, %s) AS g""",
            [session.pk, user.pk, opts.active, opts.active, opts.active, opts.finished + opts.active],
        )
        cur.execute(f"ANALYZE {Run._meta.db_table}")
    now = timezone.now()
    timings = []
    for _ in range(opts.repeat):
        started = time.perf_counter()
        outcome = leases.sweep()
        timings.append((time.perf_counter() - started) * 1000)
    assert outcome == {"finished": 0, "requeued": 0, "failed": 0}, outcome
    print(f"runs: {opts.finished} finished, {opts.active} running with a live lease")
    print(
        f"sweep (nothing lost): p50 {statistics.median(timings):.2f} ms, p95 {percentile(timings, 95):.2f} ms"
    )
    for name, query in leases.selections(now).items():
        sql, params = query.query.sql_with_params()
        with connection.cursor() as cur:
            cur.execute("EXPLAIN " + sql, params)
            plan = "\n".join(row[0] for row in cur.fetchall())
        scan = "SEQUENTIAL SCAN" if "Seq Scan" in plan else "index"
        print(f"{name}: {scan}\n    " + plan.replace("\n", "\n    "))


if __name__ == "__main__":
    main()
