"""Jobs sent by name: `enqueue("apps.memory.jobs.check", memory.pk)`.

A service queues the background work it causes without importing the app's `jobs.py` (which
imports the services back): the task is found by its registered name, its module imported on
first use. The message leaves once the current transaction commits, so a worker never looks for
a row that is not there yet, and a rolled-back write sends nothing.

A send that fails because the broker is away (the database restarting under the embedded broker,
Redis down) is kept in this process and sent again: by a thread every REDRIVE_SECONDS, and at once
after the next send that gets through, so the job leaves within seconds of the broker's return
instead of waiting for its app's sweep (which remains for a process that dies meanwhile)."""

from __future__ import annotations

import logging
import os
import threading
from collections import deque
from importlib import import_module
from typing import Any

from celery import Task, current_app
from django.db import transaction
from kombu.exceptions import KombuError
from sqlalchemy.exc import SQLAlchemyError

logger = logging.getLogger(__name__)

# How often jobs whose send failed are tried again, and how many one process keeps (the oldest
# go first when more fail: their apps' sweeps find that work).
REDRIVE_SECONDS = 5.0
REDRIVE_MAX = 10_000
# What a broker that is away raises (Celery wraps connection errors in kombu's OperationalError).
BROKER_DOWN: tuple[type[BaseException], ...] = (KombuError, OSError, SQLAlchemyError)

_Job = tuple[str, tuple[Any, ...], str | None, dict[str, Any]]
_failed: deque[_Job] = deque(maxlen=REDRIVE_MAX)
_failed_lock = threading.Lock()
_wake = threading.Event()
_redriver: tuple[int, threading.Thread] | None = None  # (pid, thread): a forked child starts its own


def task_named(task_name: str) -> Task:
    """The registered Celery task `task_name` ("apps.<app>.jobs.<job>"); its module is imported
    when no job module of the process has been yet (a web process sends, it does not discover)."""
    tasks = current_app.tasks
    if task_name not in tasks:
        import_module(task_name.rpartition(".")[0])
    return tasks[task_name]


def send(task_name: str, *args: Any, queue: str | None = None, **kwargs: Any) -> None:
    """Send the job now (the caller is already after its commit). `queue` routes it to a queue of
    its own (a deployment's CPU-heavy extraction, say); otherwise the task's default."""
    task = task_named(task_name)
    if queue:
        task.apply_async(args=args, kwargs=kwargs, queue=queue)
    else:
        task.delay(*args, **kwargs)


def enqueue(task_name: str, *args: Any, queue: str | None = None, **kwargs: Any) -> None:
    """Send the job once the current transaction commits (at once outside one). A broker that
    fails then is logged, never raised into the committed request, and the job is sent again
    once the broker is back (see the module's docstring)."""
    job = (task_name, args, queue, kwargs)

    def send_after_commit() -> None:  # a function: Django logs a robust callback's __qualname__
        send_or_keep(job)

    transaction.on_commit(send_after_commit, robust=True)


def send_or_keep(job: _Job) -> bool:
    """Send `job`; if the broker is away, keep it for the re-drive. True when it was sent."""
    task_name, args, queue, kwargs = job
    try:
        send(task_name, *args, queue=queue, **kwargs)
    except BROKER_DOWN as exc:
        with _failed_lock:
            _failed.append(job)
        logger.warning(
            "job %s not sent (%s: %s); sent again when the broker is back", task_name, type(exc).__name__, exc
        )
        _start_redriver()
        return False
    if _failed:
        _wake.set()  # the broker is back: what failed before goes now
    return True


def pending_redrive() -> int:
    """How many jobs of this process wait to be sent again."""
    return len(_failed)


def redrive() -> int:
    """Send the jobs kept after failed sends, oldest first, until one fails again; how many went."""
    sent = 0
    while True:
        with _failed_lock:
            if not _failed:
                return sent
            job = _failed.popleft()
        task_name, args, queue, kwargs = job
        try:
            send(task_name, *args, queue=queue, **kwargs)
        except BROKER_DOWN:
            with _failed_lock:
                _failed.appendleft(job)
            return sent
        sent += 1
        logger.info("job %s sent again after a failed send", task_name)


def _start_redriver() -> None:
    global _redriver
    with _failed_lock:
        if _redriver is not None and _redriver[0] == os.getpid() and _redriver[1].is_alive():
            return
        thread = threading.Thread(target=_redrive_loop, name="enqueue-redrive", daemon=True)
        _redriver = (os.getpid(), thread)
    thread.start()


def _redrive_loop() -> None:
    while True:
        _wake.wait(REDRIVE_SECONDS)
        _wake.clear()
        try:
            redrive()
        except Exception:  # never let the thread die: the next round tries again
            logger.exception("re-driving failed job sends")
