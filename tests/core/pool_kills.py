"""Killing a real worker's prefork pool children under load (what the OOM killer does), for
tests/core/test_fault_pool_child_killed.py and bench/worker_faults.py.

A feeder thread enqueues small jobs (tests/core/fault_jobs.py) at a steady rate while the pool's
children are SIGKILLed one at a time; each job records a heartbeat row named after it, so the
caller sees which jobs ran and how often."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import psutil

from tests.waiting import wait_for

JOB = "tests.core.fault_jobs.mark"


@dataclass
class Figures:
    kills: int = 0
    sent: int = 0
    completed: int = 0
    ran_twice: int = 0
    # per kill: seconds from the kill until the next job finished (the pool still runs jobs)
    next_job_seconds: list[float] = field(default_factory=list)
    # seconds from the last kill until every job sent had finished
    drained_seconds: float | None = None

    def line(self) -> str:
        worst = max(self.next_job_seconds, default=0.0)
        mean = sum(self.next_job_seconds) / len(self.next_job_seconds) if self.next_job_seconds else 0.0
        drained = "never" if self.drained_seconds is None else f"{self.drained_seconds:.1f} s"
        return (
            f"pool children killed: {self.kills}; jobs sent {self.sent}, completed {self.completed} "
            f"({self.ran_twice} ran twice); next job done after a kill: mean {mean:.1f} s, "
            f"worst {worst:.1f} s; all jobs done {drained} after the last kill"
        )


def _done(prefix: str) -> int:
    from apps.core.models import Heartbeat

    return Heartbeat.objects.filter(component__startswith=prefix).count()


def kill_children_under_load(
    worker_pid: int,
    queue: str,
    prefix: str,
    kills: int = 10,
    every: float = 2.0,
    rate: float = 1.5,
    job_seconds: float = 0.2,
    drain_timeout: float = 60.0,
) -> Figures:
    """Enqueue `rate` jobs a second (below what two pool processes on the database broker run:
    about 2 a second, it polls once a second for up to `prefetch` messages) to `queue` while SIGKILLing one pool child of the worker
    `worker_pid` every `every` seconds, `kills` times (the first child in turn: the idle one
    waiting for the next job as often as the busy one); then wait until every job finished."""
    from django.db import connection

    from clapilot.celery import app

    figures = Figures()
    stop = threading.Event()

    def feed() -> None:
        while not stop.is_set():
            app.send_task(JOB, args=[f"{prefix}{figures.sent}", job_seconds], queue=queue)
            figures.sent += 1
            stop.wait(1 / rate)

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    killed = time.monotonic()
    try:
        for i in range(kills):
            time.sleep(every)
            children = psutil.Process(worker_pid).children()
            if not children:  # a replacement not forked yet
                children = wait_for(lambda: psutil.Process(worker_pid).children(), timeout=10)
            assert children, "the worker has no pool process"
            before = _done(prefix)
            children[i % len(children)].kill()
            killed = time.monotonic()
            figures.kills += 1
            moved = wait_for(lambda before=before: _done(prefix) > before, timeout=every * 10, interval=0.05)
            if not moved:  # wedged: no job finished for a long while, killing more proves nothing
                figures.next_job_seconds.append(float("inf"))
                break
            figures.next_job_seconds.append(time.monotonic() - killed)
    finally:
        stop.set()
        feeder.join()
    last_kill = killed
    if wait_for(lambda: _done(prefix) >= figures.sent, timeout=drain_timeout, interval=0.2):
        figures.drained_seconds = time.monotonic() - last_kill
    figures.completed = _done(prefix)
    from apps.core.models import Heartbeat

    figures.ran_twice = Heartbeat.objects.filter(component__startswith=prefix, count__gt=1).count()
    connection.close()
    return figures
