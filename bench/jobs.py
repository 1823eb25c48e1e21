"""Job throughput figures (issue #28): a real Celery worker process drains jobs through the
embedded database broker ("before": kombu's fixed 1 s polling sleep, prefetch 1, no batching of
the memory check; "after": the broker that wakes on acknowledgements and the configuration of
`--concurrency`/`--prefetch`) and through Redis, side by side in one run (same machine load).
Without `--redis` the bench starts a redis-server of its own on a free loopback port (none shared
with other processes of the machine); `--redis URL` uses that server instead.

For each configuration: jobs/s of a tiny job (one row written), and memory checks/s: `--checks`
memories stored by 10 people, their check jobs sent at once, timed until none is `checking`.
Beside each rate, the CPU seconds per job of the worker (main process and pool) and of the
servers it talks to (the embedded PostgreSQL, the bench's own Redis): on the shared machine the
wall-clock rate follows everybody's load, the CPU cost does not, and `cores / CPU per job` is the
rate the configuration reaches when it has the machine's cores to itself.

Then, per broker, the wait of a job whose send failed (the broker away for `--outage` seconds,
the queue idle): from its commit until it was sent again (`apps.core.queue`'s re-drive) and
until it ran.

    .venv/bin/python bench/jobs.py [--checks 300] [--jobs 300] [--concurrency 2] [--prefetch 4]
        [--redis redis://127.0.0.1:6379/9] [--outage 3] [--only before,after,redis]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import _setup  # noqa: F401  (path and settings)
from _cpu import tree_cpu
from _setup import bench_database, disconnect_everybody_else, parse, point_channel_layer_at_bench_database


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--checks", type=int, default=300, help="memory checks per configuration")
    parser.add_argument("--jobs", type=int, default=300, help="tiny jobs per configuration")
    parser.add_argument("--concurrency", type=int, default=2, help="pool processes (after, redis)")
    parser.add_argument("--prefetch", type=int, default=4, help="prefetch multiplier (after, redis)")
    parser.add_argument(
        "--redis",
        default=os.environ.get("BENCH_REDIS_URL", ""),
        help="a Redis server's URL (default: a redis-server the bench starts)",
    )
    parser.add_argument("--outage", type=float, default=3.0, help="seconds the broker is away")
    parser.add_argument("--only", default="before,after,redis", help="also: after-p1, after-c4")
    args = parse(parser, {"checks": 10, "jobs": 10, "outage": 1.0, "only": "after"})
    with tempfile.TemporaryDirectory(prefix="clapilot-bench-jobs-") as tmp, bench_database():
        try:
            with redis_server(args, Path(tmp)) as (redis_url, redis_pid):
                run(args, Path(tmp), redis_url, redis_pid)
        finally:
            disconnect_everybody_else()


@contextmanager
def redis_server(args, tmp: Path):
    """(URL, pid of the server or None): `--redis`'s server, or one this bench starts when the
    run needs Redis (None, None when it cannot)."""
    if "redis" not in args.only.split(",") or args.redis:
        yield args.redis or None, None
        return
    binary = shutil.which("redis-server")
    if binary is None:
        print("redis: no redis-server on PATH and no --redis: the Redis figures are left out")
        yield None, None
        return
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = ["--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"]
    log = (tmp / "redis.log").open("w")
    server = subprocess.Popen([binary, *config, "--dir", str(tmp)], stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: _listening(port) or server.poll() is not None, timeout=20)
        if server.poll() is not None:
            raise RuntimeError(
                f"redis-server exited with {server.returncode}: {(tmp / 'redis.log').read_text()}"
            )
        yield f"redis://127.0.0.1:{port}/0", server.pid
    finally:
        server.terminate()
        server.wait(timeout=10)
        log.close()


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def run(args, tmp: Path, redis_url: str | None, redis_pid: int | None) -> None:
    from django.conf import settings
    from django.db import connection

    from apps.accounts.models import User
    from apps.memory.jobs import CHECK_BATCH
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
    # The servers whose CPU a job costs besides the worker's: only those no other process uses
    database_pid = postmaster_pid() if settings.EMBEDDED_DATABASE else None
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
        "redis": (redis_url, {"REDIS_URL": redis_url or ""}, after, "", None),
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
    cores = os.cpu_count() or 1
    print(f"load average at start: {load()}; {cores} cores")
    if database_pid is None:
        print("(the database is not the embedded one: its CPU is left out of the CPU per job)")
    for name in args.only.split(","):
        url, extra_env, options, include, batch = configs[name]
        if url is None:
            print(f"{name}: no Redis server, left out")
            continue
        env = process_env(database, **extra_env)
        includes = ",".join(filter(None, ["tests.core.fault_jobs", include]))
        is_redis = "REDIS_URL" in extra_env
        servers = [pid for pid in (database_pid, redis_pid if is_redis else None) if pid]
        label = f"{name:6} ({'redis' if is_redis else 'database'}, {' '.join(options)}"
        label += f", check batch {CHECK_BATCH if batch is None else batch})"
        with on_queue(url) as queue, worker_on(tmp, env, queue, *options, "--include", includes) as proc:
            tiny_cpu, check_cpu = CpuMeter(proc.process.pid, servers), CpuMeter(proc.process.pid, servers)
            tiny = tiny_jobs(args.jobs, queue, tiny_cpu)
            checks = memory_checks(args.checks, people, batch, check_cpu, salt=name)
            print(
                f"{label}: load {load()}\n"
                f"  tiny jobs {tiny:.1f}/s {tiny_cpu.per(args.jobs, cores)}\n"
                f"  memory checks {checks:.1f}/s {check_cpu.per(args.checks, cores, 'check')}",
                flush=True,
            )
            if name in ("after", "redis"):
                print(f"  failed enqueue: {failed_enqueue(args.outage, queue, is_redis)}", flush=True)
    print(f"load average at end: {load()}")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def postmaster_pid() -> int | None:
    """The embedded PostgreSQL's main process (its first line of postmaster.pid)."""
    from clapilot import embedded_db

    try:
        return int((embedded_db.data_dir() / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


class CpuMeter:
    """The CPU the worker (its first pid) and the servers use between `start()` and `stop()`."""

    def __init__(self, worker: int, servers: list[int]):
        self.pids = [worker, *servers]
        self.started: list[float] = []
        self.used: list[float] = []

    def start(self) -> None:
        self.started = [tree_cpu(pid) for pid in self.pids]

    def stop(self) -> None:
        self.used = [tree_cpu(pid) - start for pid, start in zip(self.pids, self.started, strict=True)]

    def per(self, jobs: int, cores: int, what: str = "job") -> str:
        worker, servers = self.used[0] / jobs, sum(self.used[1:]) / jobs
        total = worker + servers
        rate = f"{cores / total:.0f}/s" if total else "?"
        return (
            f"(CPU per {what}: worker {worker * 1000:.1f} ms + servers {servers * 1000:.1f} ms"
            f" = {total * 1000:.1f} ms: {rate} with the {cores} cores to itself)"
        )


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


def tiny_jobs(count: int, queue: str, meter: CpuMeter) -> float:
    """Jobs/s of `tests.core.fault_jobs.mark` (one heartbeat row each): sent at once, timed until
    every row is there (after a warm-up of 10)."""
    from apps.core.models import Heartbeat
    from apps.core.queue import send

    prefix = f"{queue}-"
    for i in range(10):
        send("tests.core.fault_jobs.mark", f"{prefix}w{i}")
    wait_until(lambda: Heartbeat.objects.filter(component__startswith=f"{prefix}w").count() == 10)
    meter.start()
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
    meter.stop()
    return count / (time.perf_counter() - started)


def memory_checks(count: int, people: list, batch: int | None, meter: CpuMeter, salt: str) -> float:
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
    meter.start()
    started = time.perf_counter()
    for pk in held:
        send(CHECK_JOB, pk, **kwargs)
    wait_until(lambda: not Memory.objects.filter(checking=True).exists())
    meter.stop()
    return len(held) / (time.perf_counter() - started)


def store(services, user, text: str) -> int:
    from apps.accounts.principal import Principal
    from apps.core.inputs import build
    from apps.memory.contracts import MemoryStore

    return services.store(Principal.for_user(user), build(MemoryStore, text=text, scope="personal")).memory.pk


def idle(queue: str) -> None:
    """Wait until the worker has run what was queued before (the memory checks' jobs that found
    their memory done): a job sent now runs when it ran."""
    from apps.core.models import Heartbeat
    from apps.core.queue import send

    key = f"{queue}-idle-{uuid.uuid4().hex[:6]}"
    send("tests.core.fault_jobs.mark", key)
    wait_until(lambda: Heartbeat.objects.filter(component=key).exists())


def failed_enqueue(outage: float, queue: str, redis: bool) -> str:
    """A job enqueued on the idle queue while the broker is away (sends refused for `outage`
    seconds): the time from its commit until it was sent again and until it ran."""
    from django.db import transaction

    from apps.core import queue as jobqueue
    from apps.core.models import Heartbeat
    from tests.faults import broker_of

    idle(queue)
    key = f"{queue}-failed"
    away = "redis://127.0.0.1:9/0" if redis else "clapilot-sqla+postgresql+psycopg://nobody@127.0.0.1:9/none"
    resent: list[float] = []
    with broker_of(away):
        started = time.perf_counter()
        with transaction.atomic():
            jobqueue.enqueue("tests.core.fault_jobs.mark", key)
        kept = jobqueue.pending_redrive()
        time.sleep(max(0.0, outage - (time.perf_counter() - started)))
    back = time.perf_counter()

    def ran() -> bool:
        if not resent and jobqueue.pending_redrive() == 0:
            resent.append(time.perf_counter())
        return Heartbeat.objects.filter(component=key).exists()

    wait_until(ran, timeout=120)
    done = time.perf_counter()
    sent_again = f"sent again {resent[0] - started:.1f} s after its commit" if resent else "never kept"
    return (
        f"kept for re-drive: {kept}; {sent_again}, ran {done - started:.1f} s after its commit, "
        f"{done - back:.1f} s after the broker was back (outage {back - started:.1f} s, "
        f"re-drive every {jobqueue.REDRIVE_SECONDS:.0f} s)"
    )


if __name__ == "__main__":
    main()
