"""Jobs sent by name (`apps.core.queue`): a name that names no task fails here, not in a worker's
log, and a job leaves only once its transaction commits."""

import re
from pathlib import Path

import pytest
from django.db import transaction

from apps.core import queue

ROOT = Path(__file__).resolve().parents[2]
# enqueue("apps.x.jobs.y", …) / send("apps.x.jobs.y", …) / X_JOB = "apps.x.jobs.y"
JOB_NAME = re.compile(
    r"""(?:(?:enqueue|send)\(\s*|^[A-Z_]+_JOB = )["'](apps\.[a-z_]+\.jobs\.[a-z_]+)["']""", re.M
)


def test_every_job_named_in_the_apps_is_a_registered_task():
    named = {
        name
        for path in (ROOT / "apps").rglob("*.py")
        if "migrations" not in path.parts
        for name in JOB_NAME.findall(path.read_text())
    }
    assert {
        "apps.memory.jobs.check",
        "apps.documents.jobs.extract_document",
        "apps.agent.jobs.title_job",
    } <= named
    for name in sorted(named):
        assert queue.task_named(name).name == name


@pytest.mark.django_db
def test_a_job_is_sent_after_the_commit_and_not_after_a_rollback(
    monkeypatch, django_capture_on_commit_callbacks
):
    sent = []
    monkeypatch.setattr(queue.task_named("apps.memory.jobs.check"), "delay", sent.append)
    with django_capture_on_commit_callbacks(execute=True):
        queue.enqueue("apps.memory.jobs.check", 7)
        assert sent == []
    assert sent == [7]

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        try:
            with transaction.atomic():
                queue.enqueue("apps.memory.jobs.check", 8)
                raise RuntimeError
        except RuntimeError:
            pass
    assert (sent, callbacks) == ([7], [])


def test_a_queue_routes_the_job(monkeypatch):
    routed = []
    task = queue.task_named("apps.documents.jobs.extract_document")
    monkeypatch.setattr(task, "apply_async", lambda **options: routed.append(options))
    queue.send("apps.documents.jobs.extract_document", 3, queue="documents")
    assert routed == [{"args": (3,), "kwargs": {}, "queue": "documents"}]
