"""Celery jobs of durable memory (thin: they call services). Scheduled by `periodic_jobs`."""

import logging

from celery import shared_task

logger = logging.getLogger(__name__)

CHECK_TASK = "apps.memory.jobs.check"
REEMBED_TASK = "apps.memory.jobs.reembed"
# A check job drains up to this many other memories still waiting for their check (oldest first).
CHECK_BATCH = 50
# Namespace of the advisory locks that claim one memory's check (two pool processes, one memory).
_CHECK_LOCK = 0x6D656D  # "mem"


@shared_task(name=CHECK_TASK, acks_late=True)
def check(memory_id: int, batch: int = CHECK_BATCH) -> str | None:
    """Embed a memory just stored and check it for near-duplicates and contradictions; then
    check up to `batch` other memories still waiting (`checking`). When stores outrun the worker,
    one job drains many and the jobs queued behind it find theirs done (a redelivered job is a
    no-op: `checking.run` is idempotent), and a memory whose job was never sent (the broker away
    at its commit) is checked by the next store's job. Returns the verdict of `memory_id`."""
    from apps.memory.models import Memory

    verdict = _check_claimed(int(memory_id))
    waiting = Memory.objects.filter(checking=True).exclude(pk=memory_id).order_by("id")
    for other in waiting.values_list("id", flat=True)[: max(0, int(batch))]:
        try:
            _check_claimed(other)
        except Exception:  # that memory's own job (or the sweep) tries it again; this job stands
            logger.exception("memory %s: check failed while draining", other)
    return verdict


def _check_claimed(memory_id: int) -> str | None:
    """`checking.run` under a session advisory lock on the memory: a memory another pool process
    is checking right now is skipped (its check stands). The lock dies with the connection."""
    from django.db import connection

    from apps.memory import checking

    key = [_CHECK_LOCK, memory_id % 2_147_483_647]
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", key)
        if not cursor.fetchone()[0]:
            return None
    try:
        return checking.run(memory_id)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", key)


@shared_task(name=REEMBED_TASK)
def reembed(batch: int = 200) -> int:
    """Memories whose check job was lost are checked; memories without a vector of the current
    embedding model get one (a failed provider at store time, a changed model); memories stored
    before subjects were read get their subject anchors; idempotent, bounded per run."""
    from apps.memory import maintenance

    return (
        maintenance.recheck(batch=batch)
        + maintenance.reembed(batch=batch)
        + maintenance.read_subjects(batch=batch)
    )
