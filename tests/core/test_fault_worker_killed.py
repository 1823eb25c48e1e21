"""A Celery worker killed with SIGKILL in the middle of a job: the job is delivered again and its
side effect happens exactly once.

The job is the document workflow (apps/documents/jobs.py): it asks the model (the scripted
OpenAI-compatible server, over real HTTP) and files tasks and a deadline. The model server's first
answer blocks until the test has killed the worker, so the kill lands in the middle of the job.
Two kills: the pool child that runs the job (what the kernel's OOM killer does; the worker's main
process survives), and the whole worker (main process and children; a new worker starts).
"""

from __future__ import annotations

import json
import threading
import time

import psutil
import pytest
from django.db import connection

from apps.calendar.models import CalendarEvent
from apps.core.services import set_setting
from apps.documents import workflow
from apps.documents.models import DocumentWorkflow, WorkflowItem
from apps.llm.models import ModelConfig, Provider
from apps.tasks.models import Board, Task
from clapilot import broker
from tests.documents.factories import DocumentFactory
from tests.fakes.openai_server import FakeOpenAI
from tests.faults import broker_of, process_env, worker
from tests.live import database_url, own_redis
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

# Seconds after which a job whose worker died is delivered again (short for the test; leases are
# renewed while a worker lives, so a long job is never delivered twice).
LEASE_SECONDS = 3
BESCHEID = (
    "Finanzamt Musterstadt. Bescheid für 2024 über Einkommensteuer vom 02.12.2026. "
    "Gegen diesen Bescheid kann innerhalb eines Monats Einspruch eingelegt werden (§ 355 AO)."
)
ANSWER = {
    "summary": "Einkommensteuerbescheid 2024; Einspruchsfrist ein Monat.",
    "tasks": [{"title": "Bescheid prüfen", "due_date": "2026-12-20"}, {"title": "Mandant informieren"}],
    "deadline": {"title": "Einspruchsfrist ESt 2024", "due": "2027-01-04", "criticality": "high"},
}


@pytest.fixture
def setup(settings, tmp_path, anna, statuses, fake_openai):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    provider = Provider.objects.create(
        name="Fake", kind=Provider.Kind.OPENAI_COMPATIBLE, base_url=fake_openai.base_url, api_key="sk-test"
    )
    set_setting("default_chat_model", ModelConfig.objects.create(provider=provider, model_id="fake-model").pk)
    Board.objects.create(name="Steuern", visibility=Board.Visibility.SHARED)
    document = DocumentFactory(title="ESt-Bescheid 2024", extracted_text=BESCHEID, created_by=anna)
    env = process_env(
        database_url(connection.settings_dict), CLAPILOT_BROKER_VISIBILITY_TIMEOUT=str(LEASE_SECONDS)
    )
    return document, env


def _blocking_first_answer(fake_openai: FakeOpenAI) -> tuple[threading.Event, threading.Event]:
    """The model's first answer waits until `release` is set; `asked` says the job got there."""
    asked, release = threading.Event(), threading.Event()

    def hold(body: dict) -> None:
        asked.set()
        release.wait(60)

    fake_openai.reply(json.dumps(ANSWER), before=hold)
    fake_openai.reply(json.dumps(ANSWER))
    return asked, release


def _filed(document) -> tuple[int, int, int]:
    return (
        Task.objects.filter(source_type="document", source_id=str(document.pk)).count(),
        CalendarEvent.objects.filter(source_origin="document").count(),
        WorkflowItem.objects.filter(workflow__document=document).count(),
    )


def _queued_rows() -> int:
    """Messages of this run's queue still in the broker table (acked ones are deleted)."""
    from clapilot.celery import app

    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM kombu_message m JOIN kombu_queue q ON q.id = m.queue_id WHERE q.name = %s",
            [app.conf.task_default_queue],
        )
        return cur.fetchone()[0]


def _done(document):
    return DocumentWorkflow.objects.filter(
        document=document, status__in=["done", "failed", "skipped"]
    ).first()


def _assert_exactly_once(
    document, fake_openai, started_at: float, killed_at: float, redis_url: str | None = None
) -> dict:
    flow = wait_for(lambda: _done(document), timeout=60)
    assert flow is not None, (
        f"the job was not delivered again: {DocumentWorkflow.objects.get(document=document)}"
    )
    recovered = time.monotonic() - killed_at
    assert flow.status == "done", (flow.reason, flow.message)
    assert flow.runs == 2  # started once in the killed process, once more after redelivery
    assert _filed(document) == (2, 1, 3)
    # No third delivery later: the finished job's message is gone, and after two more lease
    # periods nothing ran again.
    time.sleep(2 * LEASE_SECONDS + 1)
    assert _filed(document) == (2, 1, 3)
    assert len(fake_openai.chat_requests) == 2
    assert DocumentWorkflow.objects.get(document=document).runs == 2
    if redis_url is None:
        assert _queued_rows() == 0
    else:
        import redis

        client = redis.Redis.from_url(redis_url)
        assert (client.llen(_queue()), client.hlen("unacked")) == (0, 0)
    return {
        "recovered_seconds": round(recovered, 1),
        "total_seconds": round(time.monotonic() - started_at, 1),
    }


def test_killed_pool_child_redelivers_the_job_once(setup, fake_openai, tmp_path):
    document, env = setup
    asked, release = _blocking_first_answer(fake_openai)
    started = time.monotonic()
    with broker_of(broker.url_for(connection.settings_dict)), worker(tmp_path, env, _queue()) as proc:
        workflow.request_runs([document.pk])
        assert asked.wait(60), proc.output()
        children = psutil.Process(proc.process.pid).children(recursive=True)
        assert len(children) == 1, children
        children[0].kill()
        killed = time.monotonic()
        release.set()
        figures = _assert_exactly_once(document, fake_openai, started, killed)
        assert "WorkerLostError" in proc.output(tail=100_000)
        # Checked. After losing a pool child the worker did not finish a warm shutdown (SIGTERM) in
        # 15 s, after which `worker` kills it anyway.
        proc.kill_group()
    print(f"\nkilled pool child: redelivered and done after {figures['recovered_seconds']} s")


@pytest.fixture
def redis_server(tmp_path):
    """A redis-server of this test's own on a free port (never the machine's Redis)."""
    with own_redis(tmp_path) as server:
        yield server.url


@pytest.mark.parametrize("broker_kind", ["database", "redis"])
def test_killed_worker_redelivers_the_job_once_to_the_next_worker(
    setup, fake_openai, tmp_path, request, broker_kind
):
    document, env = setup
    redis_url = None
    url = broker.url_for(connection.settings_dict)
    if broker_kind == "redis":
        url = redis_url = request.getfixturevalue("redis_server")
        env = {**env, "REDIS_URL": redis_url}
    asked, release = _blocking_first_answer(fake_openai)
    started = time.monotonic()
    with broker_of(url):
        with worker(tmp_path, env, _queue()) as first:
            workflow.request_runs([document.pk])
            assert asked.wait(60), first.output()
            first.kill_group()
            killed = time.monotonic()
        release.set()
        assert DocumentWorkflow.objects.get(document=document).status == "running"
        with worker(tmp_path, env, _queue()):
            figures = _assert_exactly_once(document, fake_openai, started, killed, redis_url)
    print(
        f"\nkilled worker ({broker_kind} broker): redelivered to the next worker and done after "
        f"{figures['recovered_seconds']} s"
    )


def _queue() -> str:
    from clapilot.celery import app

    return app.conf.task_default_queue
