"""Jobs only the fault tests and bench/worker_faults.py load into their worker processes
(`celery worker --include tests.core.fault_jobs`): a small job that takes a little while, so a
pool child killed under load is usually killed in the middle of one."""

from __future__ import annotations

import time

from celery import shared_task

from apps.core import services


@shared_task(name="tests.core.fault_jobs.mark")
def mark(key: str, seconds: float = 0.0) -> int:
    """Wait `seconds`, then record `key` as done (a heartbeat row per job: running it twice bumps
    its count, so a test sees every job that ran and how often)."""
    time.sleep(seconds)
    return services.record_heartbeat(key).count
