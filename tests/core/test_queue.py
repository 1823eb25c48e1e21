"""Jobs sent by name (`apps.core.queue`): a name that names no task fails here, not in a worker's
log, and a job leaves only once its transaction commits."""

import re
from pathlib import Path

import pytest
from django.db import transaction

import apps.ops.jobs  # noqa: F401  (registers the heartbeat job, still named after its old module)
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


@pytest.mark.django_db(transaction=True)
def test_a_job_whose_send_failed_is_sent_again_within_a_minute():
    """The broker is away when the transaction commits (a database restart): the job is kept in
    the process and sent once the broker is back, well within a minute, not at the next sweep."""
    from apps.core.models import Heartbeat
    from tests.faults import broker_of
    from tests.waiting import wait_for
    from tests.workers import in_process_worker

    assert queue.REDRIVE_SECONDS <= 10
    with broker_of("clapilot-sqla+postgresql+psycopg://nobody@127.0.0.1:9/none"):
        with transaction.atomic():
            queue.enqueue("apps.core.jobs.heartbeat", component="redriven")
        assert queue.pending_redrive() == 1
    with in_process_worker():
        assert wait_for(lambda: Heartbeat.objects.filter(component="redriven").exists(), timeout=60)
    assert queue.pending_redrive() == 0


def test_a_failed_send_goes_again_with_the_next_send_that_gets_through(monkeypatch):
    from kombu.exceptions import OperationalError

    sent, down = [], [True]

    def delay(*args):
        if down[0]:
            raise OperationalError("broker away")
        sent.append(args)

    monkeypatch.setattr(queue.task_named("apps.core.jobs.heartbeat"), "delay", delay)
    monkeypatch.setattr(queue, "REDRIVE_SECONDS", 3600.0)  # only the wake-up of a good send
    assert queue.send_or_keep(("apps.core.jobs.heartbeat", ("a",), None, {})) is False
    down[0] = False
    assert queue.send_or_keep(("apps.core.jobs.heartbeat", ("b",), None, {})) is True
    from tests.waiting import wait_for

    assert wait_for(lambda: len(sent) == 2, timeout=10)
    assert sorted(sent) == [("a",), ("b",)] and queue.pending_redrive() == 0


def test_an_error_of_the_job_itself_is_not_sent_again(monkeypatch):
    def delay(*args):
        raise ValueError("a bug, not a broker away")

    monkeypatch.setattr(queue.task_named("apps.core.jobs.heartbeat"), "delay", delay)
    with pytest.raises(ValueError):
        queue.send_or_keep(("apps.core.jobs.heartbeat", ("c",), None, {}))
    assert queue.pending_redrive() == 0


@pytest.mark.django_db(transaction=True)
def test_an_error_of_the_job_at_commit_is_logged_not_raised_into_the_committed_request(monkeypatch, caplog):
    def delay(*args, **kwargs):
        raise ValueError("a bug, not a broker away")

    monkeypatch.setattr(queue.task_named("apps.core.jobs.heartbeat"), "delay", delay)
    with transaction.atomic():
        queue.enqueue("apps.core.jobs.heartbeat", component="bug")
    assert "a bug, not a broker away" in caplog.text and queue.pending_redrive() == 0
