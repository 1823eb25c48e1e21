"""Job throughput figures (issue #28): a real Celery worker process drains jobs through the
embedded database broker ("before": kombu's fixed 1 s polling sleep, prefetch 1, no batching of
the memory check; "after": the broker that wakes on acknowledgements and the configuration of
`--concurrency`/`--prefetch`) and through Redis, side by side in one run (same machine load).

For each configuration: jobs/s of a tiny job (one row written), and memory checks/s: `--checks`
memories stored by 10 people, their check jobs sent at once, timed until none is `checking`. Then
the time a job waits whose send failed (the broker away for `--outage` seconds): until it ran.

    .venv/bin/python bench/jobs.py [--checks 300] [--jobs 300] [--concurrency 2] [--prefetch 4]
        [--redis redis://127.0.0.1:6379/9] [--outage 3] [--only before,after,redis]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import _setup  # noqa: F401  (path and settings)
from _setup import bench_database, disconnect_everybody_else, parse, point_channel_layer_at_bench_database


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--checks", type=int, default=300, help="memory checks per configuration")
    parser.add_argument("--jobs", type=int, default=300, help="tiny jobs per configuration")
    parser.add_argument("--concurrency", type=int, default=2, help="pool processes (after, redis)")
    parser.add_argument("--prefetch", type=int, default=4, help="prefetch multiplier (after, redis)")
    parser.add_argument("--redis", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/9"))
    parser.add_argument("--outage", type=float, default=3.0, help="seconds the broker is away")
    parser.add_argument("--only", default="before,after,redis", help="also: after-p1, after-c4")
    args = parse(parser, {"checks": 10, "jobs": 10, "outage": 1.0, "only": "after"})
    with tempfile.TemporaryDirectory(prefix="clapilot-bench-jobs-") as tmp, bench_database():
        try:
            run(args, Path(tmp))
        finally:
            disconnect_everybody_else()


def run(args, tmp: Path) -> None:
    from django.db import connection

    from apps.accounts.models import User
    from clapilot import broker
    from tests.faults import process_env
    from tests.live import database_url

    point_channel_layer_at_bench_database()
    people = [
        User.objects.create_user(f"staff{i}@kanzlei.example", "x" * 20, full_name=f"Staff {i}")
        for i in range(10)
    ]
    database = database_url(connection.settings_dict)
    embedded = broker.url_for(connection.settings_dict)
    after = ("--concurrency", str(args.concurrency), "--prefetch-multiplier", str(args.prefetch))
    configs = {
        "before": (
            embedded,
            {},
            ("--concurrency", "2", "--prefetch-multiplier", "1"),
            "bench._before_broker",
            0,
        ),
        "after": (embedded, {}, after, "", None),
        "redis": (args.redis, {"REDIS_URL": args.redis}, after, "", None),
        # variants of "after" for choosing the defaults
        "after-p1": (
            embedded,
            {},
            ("--concurrency", str(args.concurrency), "--prefetch-multiplier", "1"),
            "",
            None,
        ),
        "after-c4": (
            embedded,
            {},
            ("--concurrency", "4", "--prefetch-multiplier", str(args.prefetch)),
            "",
            None,
        ),
    }
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    for name in args.only.split(","):
        url, extra_env, options, include, batch = configs[name]
        env = process_env(database, **extra_env)
        includes = ",".join(filter(None, ["tests.core.fault_jobs", include]))
        with on_queue(url) as queue, worker_on(tmp, env, queue, *options, "--include", includes):
            tiny = tiny_jobs(args.jobs, queue)
            checks = memory_checks(args.checks, people, batch, salt=name)
            label = f"{name:6} ({'redis' if 'REDIS_URL' in extra_env else 'database'}, {' '.join(options)}"
            label += ", check batch 0)" if batch == 0 else ", check batch 50)"
            print(f"{label}: tiny jobs {tiny:.1f}/s, memory checks {checks:.1f}/s", flush=True)
            if name == "after":
                print(f"  failed enqueue: {failed_enqueue(args.outage, queue, url)}", flush=True)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


@contextmanager
def on_queue(url: str):
    """This process sends to `url`'s broker, on a queue of its own."""
    from clapilot.celery import app
    from tests.faults import broker_of

    queue = f"bench-jobs-{uuid.uuid4().hex[:8]}"
    with broker_of(url):
        for cached in ("queues", "router"):
            app.amqp.__dict__.pop(cached, None)
        app.conf.task_default_queue = queue
        try:
            yield queue
        finally:
            with app.connection_for_write() as conn:
                conn.default_channel.queue_purge(queue)


@contextmanager
def worker_on(tmp: Path, env: dict, queue: str, *options: str):
    from tests.faults import celery_process

    with celery_process("worker", tmp, env, "-Q", queue, "-l", "INFO", *options, ready=" ready.") as proc:
        yield proc


def wait_until(done, timeout: float = 600.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise RuntimeError("timed out")
        time.sleep(0.05)


def tiny_jobs(count: int, queue: str) -> float:
    """Jobs/s of `tests.core.fault_jobs.mark` (one heartbeat row each): sent at once, timed until
    every row is there (after a warm-up of 10)."""
    from apps.core.models import Heartbeat
    from apps.core.queue import send

    prefix = f"{queue}-"
    for i in range(10):
        send("tests.core.fault_jobs.mark", f"{prefix}w{i}")
    wait_until(lambda: Heartbeat.objects.filter(component__startswith=f"{prefix}w").count() == 10)
    started = time.perf_counter()
    for i in range(count):
        send("tests.core.fault_jobs.mark", f"{prefix}{i}")
    wait_until(
        lambda: (
            Heartbeat.objects.filter(component__startswith=prefix)
            .exclude(component__startswith=f"{prefix}w")
            .count()
            >= count
        )
    )
    return count / (time.perf_counter() - started)


def memory_checks(count: int, people: list, batch: int | None, salt: str) -> float:
    """Checks/s: `count` memories stored by the people in turn with their jobs held back, then the
    jobs sent at once (the backlog of stores outrunning the worker), timed until none is checking.
    `batch` 0: each job checks its own memory only (as before batching)."""
    import random

    from memory import memory_text

    from apps.core import queue as jobqueue
    from apps.memory import services
    from apps.memory.models import Memory
    from apps.memory.services import CHECK_JOB

    rng = random.Random(f"{salt}-{count}")  # new texts per configuration: no exact duplicates
    base = 100_000 * (1 + sum(map(ord, salt)))
    kwargs = {} if batch is None else {"batch": batch}
    held: list[int] = []
    send = jobqueue.send
    jobqueue.send = lambda name, *a, **kw: held.append(a[0]) if name == CHECK_JOB else send(name, *a, **kw)
    try:
        warm = [store(services, people[i], memory_text(rng, base + i)[1]) for i in range(6)]
        for pk in warm:
            send(CHECK_JOB, pk, **kwargs)
        wait_until(lambda: not Memory.objects.filter(pk__in=warm, checking=True).exists())
        held.clear()
        for i in range(count):
            store(services, people[i % len(people)], memory_text(rng, base + 10_000 + i)[1])
    finally:
        jobqueue.send = send
    started = time.perf_counter()
    for pk in held:
        send(CHECK_JOB, pk, **kwargs)
    wait_until(lambda: not Memory.objects.filter(checking=True).exists())
    return len(held) / (time.perf_counter() - started)


def store(services, user, text: str) -> int:
    from apps.accounts.principal import Principal
    from apps.core.inputs import build
    from apps.memory.contracts import MemoryStore

    return services.store(Principal.for_user(user), build(MemoryStore, text=text, scope="personal")).memory.pk


def failed_enqueue(outage: float, queue: str, url: str) -> str:
    """A job enqueued while the broker is away (sends refused for `outage` seconds): the time from
    its commit until it ran, and how long after the broker came back."""
    from django.db import transaction

    from apps.core import queue as jobqueue
    from apps.core.models import Heartbeat
    from tests.faults import broker_of

    key = f"{queue}-failed"
    with broker_of("clapilot-sqla+postgresql+psycopg://nobody@127.0.0.1:9/none"):
        started = time.perf_counter()
        with transaction.atomic():
            jobqueue.enqueue("tests.core.fault_jobs.mark", key)
        kept = jobqueue.pending_redrive()
        time.sleep(max(0.0, outage - (time.perf_counter() - started)))
    back = time.perf_counter()
    wait_until(lambda: Heartbeat.objects.filter(component=key).exists(), timeout=120)
    ran = time.perf_counter()
    return (
        f"kept for re-drive: {kept}; ran {ran - started:.1f} s after its commit, "
        f"{ran - back:.1f} s after the broker was back (outage {back - started:.1f} s, "
        f"re-drive every {jobqueue.REDRIVE_SECONDS:.0f} s)"
    )


if __name__ == "__main__":
    main()
