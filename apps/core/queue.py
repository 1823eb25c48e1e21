"""Jobs sent by name: `enqueue("apps.memory.jobs.check", memory.pk)`.

A service queues the background work it causes without importing the app's `jobs.py` (which
imports the services back): the task is found by its registered name, its module imported on
first use. The message leaves once the current transaction commits, so a worker never looks for
a row that is not there yet, and a rolled-back write sends nothing."""

from __future__ import annotations

import logging
from functools import partial
from importlib import import_module
from typing import Any

from celery import Task, current_app
from django.db import transaction

logger = logging.getLogger(__name__)


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
    fails then is logged, never raised into the committed request: every job here has a sweep or
    a retry that finds the work left undone."""
    transaction.on_commit(partial(send, task_name, *args, queue=queue, **kwargs), robust=True)
