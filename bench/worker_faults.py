"""Worker fault figures (issue #25): a real Celery worker on the database broker (prefork, two
pool processes) runs small jobs enqueued continuously while its pool processes are SIGKILLed one
at a time (what the OOM killer does). Prints the kills, the jobs sent and completed, and the time
to recover: until the next job finished after each kill, and until every job was done after the
last one.

    .venv/bin/python bench/worker_faults.py [--kills 10] [--every 2] [--rate 1.5] [--job 0.2] [--rounds 1]
"""

from __future__ import annotations

import argparse
import tempfile
import uuid
from pathlib import Path

import _setup  # noqa: F401  (path and settings)
from _setup import bench_database, disconnect_everybody_else, parse


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--every", type=float, default=2.0, help="seconds between kills")
    parser.add_argument("--rate", type=float, default=1.5, help="jobs enqueued per second")
    parser.add_argument("--job", type=float, default=0.2, help="seconds each job takes")
    parser.add_argument("--rounds", type=int, default=1)
    args = parse(parser, {"kills": 1, "every": 1.0, "rate": 2.0, "job": 0.1, "rounds": 1})
    with tempfile.TemporaryDirectory(prefix="clapilot-bench-faults-") as tmp, bench_database():
        try:
            for round_ in range(args.rounds):
                print(f"round {round_ + 1}: {run(args, Path(tmp))}", flush=True)
        finally:
            disconnect_everybody_else()


def run(args, tmp: Path) -> str:
    from django.db import connection

    from clapilot import broker
    from tests.core.pool_kills import kill_children_under_load
    from tests.faults import broker_of, process_env, worker
    from tests.live import database_url

    queue = f"bench-{uuid.uuid4().hex[:8]}"
    env = process_env(database_url(connection.settings_dict), CLAPILOT_BROKER_VISIBILITY_TIMEOUT="3")
    with (
        broker_of(broker.url_for(connection.settings_dict)),
        worker(tmp, env, queue, "--concurrency", "2", "--include", "tests.core.fault_jobs") as proc,
    ):
        figures = kill_children_under_load(
            proc.process.pid,
            queue,
            prefix=f"{queue}-",
            kills=args.kills,
            every=args.every,
            rate=args.rate,
            job_seconds=args.job,
            drain_timeout=120,
        )
    return figures.line()


if __name__ == "__main__":
    main()
