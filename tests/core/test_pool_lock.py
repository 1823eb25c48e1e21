"""The pool's locks (clapilot/pool.py) die with their holder, unlike the semaphore they replace;
and the worker's stuck-job check (clapilot/celery.py) tells a wedged pool from a busy one."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

from clapilot.pool import KernelLock, Pool, TaskPool


def _hold(lock, ready) -> None:
    lock.acquire()
    ready.set()
    time.sleep(60)


def _killed_holder(lock) -> None:
    context = multiprocessing.get_context("fork")
    ready = context.Event()
    holder = context.Process(target=_hold, args=(lock, ready))
    holder.start()
    assert ready.wait(10)
    os.kill(holder.pid, signal.SIGKILL)
    holder.join(10)


def test_a_lock_whose_holder_was_killed_can_be_taken():
    lock = KernelLock()
    _killed_holder(lock)
    assert lock.acquire(timeout=2)
    lock.release()


def test_the_semaphore_it_replaces_stays_taken_for_ever():
    """What wedged the worker: billiard's queue lock after its holder was SIGKILLed."""
    lock = multiprocessing.get_context("fork").Lock()
    _killed_holder(lock)
    assert not lock.acquire(timeout=1)


def test_a_lock_excludes_another_process_while_held():
    lock = KernelLock()
    context = multiprocessing.get_context("fork")
    ready = context.Event()
    holder = context.Process(target=_hold, args=(lock, ready))
    holder.start()
    try:
        assert ready.wait(10)
        assert not lock.acquire(block=False)
        assert not lock.acquire(timeout=0.3)
    finally:
        holder.kill()
        holder.join(10)


def test_the_worker_pool_uses_them():
    assert TaskPool.BlockingPool is Pool
    pool = Pool(processes=1)
    try:
        assert isinstance(pool._inqueue._rlock, KernelLock)
        assert isinstance(pool._outqueue._wlock, KernelLock)
        assert pool.apply_async(pow, (2, 10)).get(timeout=30) == 1024
    finally:
        pool.terminate()
        pool.join()


class _Request:
    def __init__(self, request_id: str):
        self.id = request_id


def test_a_job_waiting_while_a_pool_process_is_free_is_stuck(monkeypatch):
    from celery.worker import state

    from clapilot import celery

    waiting, running = _Request("waiting"), _Request("running")
    monkeypatch.setattr(state, "reserved_requests", {waiting, running})
    monkeypatch.setattr(state, "active_requests", {running})
    monkeypatch.setattr(celery, "_received", {"waiting": 100.0, "running": 90.0, "gone": 1.0})
    assert celery.stuck_job(limit=2, stuck_seconds=30, now=120.0) is None  # 20 s: not yet
    assert celery.stuck_job(limit=2, stuck_seconds=30, now=131.0) == ("waiting", 31.0)
    assert "gone" not in celery._received  # finished jobs are forgotten
    # Every pool process busy: the job waits its turn, nothing is wedged.
    assert celery.stuck_job(limit=1, stuck_seconds=30, now=500.0) is None
