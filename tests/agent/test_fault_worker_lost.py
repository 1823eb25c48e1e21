"""A Celery worker killed with SIGKILL in the middle of a copilot answer (issue 23, item 2),
through real processes: the worker that runs the loop, then beat and a fresh worker that run the
lost-run sweep. The scripted model server streams the answer slowly, so the kill lands after a
tool call and some streamed words. The run must be finished as `worker_lost` within a minute,
with what it had done, the chat must take the next message (which continues from the recovery
checkpoint), the person must be told exactly once, and the model must not be asked again for the
lost round."""

from __future__ import annotations

import json
import time

import pytest
from django.db import connection
from django_celery_beat.models import IntervalSchedule, PeriodicTask

from apps.accounts.principal import Principal
from apps.agent import services
from apps.agent.jobs import SWEEP_TASK
from apps.agent.models import Message, Run, RunEvent
from apps.core.services import ensure_periodic_tasks
from apps.notifications.models import Notification
from apps.tasks.models import Task
from clapilot import broker
from tests.agent.helpers import say
from tests.faults import broker_of, celery_process, process_env, started_together, worker
from tests.live import database_url
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

LEASE_SECONDS = 2  # short for the test (default 30)
SWEEP_SECONDS = 1  # short for the test (default 15)
WORDS = 80  # the slow answer: one word a second, far longer than the test waits


def _queue() -> str:
    from clapilot.celery import app

    return app.conf.task_default_queue


def _only_the_sweep_scheduled() -> None:
    """Beat of this test runs the lost-run sweep every SWEEP_SECONDS and nothing else."""
    ensure_periodic_tasks()
    every, _ = IntervalSchedule.objects.get_or_create(every=SWEEP_SECONDS, period=IntervalSchedule.SECONDS)
    assert PeriodicTask.objects.filter(task=SWEEP_TASK).update(interval=every, enabled=True) == 1
    PeriodicTask.objects.exclude(task=SWEEP_TASK).update(enabled=False)


def test_a_worker_killed_mid_answer_is_finished_as_worker_lost_within_a_minute(
    user, model, fake_openai, statuses, board, tmp_path, settings
):
    settings.CLAPILOT_RUN_LEASE_SECONDS = LEASE_SECONDS
    env = process_env(
        database_url(connection.settings_dict),
        CLAPILOT_RUN_LEASE_SECONDS=str(LEASE_SECONDS),
        CLAPILOT_RUN_SWEEP_SECONDS=str(SWEEP_SECONDS),
    )
    fake_openai.tool_calls(("aufgaben_create_task", {"title": "Bescheid prüfen"}))
    fake_openai.reply("Die Aufgabe ist angelegt. " + " ".join(["Weiter"] * WORDS), delay=1.0)
    fake_openai.reply("Hier mache ich weiter.")
    principal = Principal.for_user(user)
    session = services.create_session(principal)
    queue = _queue()

    with broker_of(broker.url_for(connection.settings_dict)):
        with worker(tmp_path, env, queue) as first:
            run = say(principal, session.pk, "Lege die Aufgabe an und erkläre sie")
            streamed = wait_for(
                lambda: RunEvent.objects.filter(run=run, kind=RunEvent.Kind.TOKEN).count() >= 2, timeout=60
            )
            assert streamed, first.output()
            held = Run.objects.get(pk=run.pk)
            assert held.status == Run.Status.RUNNING and held.worker.endswith(f":{_pid_of_job(first)}")
            # The worker renews the lease while the run runs.
            assert wait_for(lambda: Run.objects.get(pk=run.pk).lease_expires_at > held.lease_expires_at, 10)
            first.kill_group()
            killed = time.monotonic()
        assert Run.objects.get(pk=run.pk).status == Run.Status.RUNNING  # nobody finished it

        # While the run is orphaned the chat refuses a new message ...
        with pytest.raises(Exception) as busy:
            say(principal, session.pk, "Hallo?")
        assert busy.value.code == "run_in_progress"

        _only_the_sweep_scheduled()
        with started_together(
            worker(tmp_path, env, f"{queue},celery"),
            celery_process("beat", tmp_path, env, "-l", "INFO", ready="beat: Starting"),
        ) as (second, beat):
            lost = wait_for(
                lambda: Run.objects.filter(pk=run.pk).exclude(status=Run.Status.RUNNING).first(), 60
            )
            recovered = time.monotonic() - killed
            assert lost is not None, second.output() + beat.output()
            assert (lost.status, lost.error_code) == (Run.Status.FAILED, "worker_lost")
            assert recovered < 60

            diagnosis = lost.diagnostics
            assert diagnosis["completed_tools"] == [{"name": "aufgaben_create_task", "ok": True, "code": ""}]
            assert diagnosis["partial_answer"].startswith("Die Aufgabe")
            assert diagnosis["last_event"] == {"kind": "turn", "round": 2}  # lost in the second round
            status = lost.events.order_by("-seq").values_list("kind", "payload").first()
            assert status[0] == "status"
            assert {k: status[1][k] for k in ("status", "error_code", "reason")} == {
                "status": "failed",
                "error_code": "worker_lost",
                "reason": "worker_lost",
            }
            assert status[1]["message"]  # the person's language, never the code alone

            # ... and takes the next one once the run is finished; it continues from the checkpoint.
            again = say(principal, session.pk, "Mach bitte weiter")
            answered = wait_for(lambda: Run.objects.filter(pk=again.pk, status__in=Run.FINAL).first(), 60)
            assert answered is not None and answered.status == Run.Status.COMPLETED, second.output()

    assert Task.objects.filter(title="Bescheid prüfen").count() == 1
    # Three calls of the loop (streamed; the chat title's call is not): the tool round and the lost
    # round of the killed run, then the next run. The lost round was not asked again.
    loop_calls = [r for r in fake_openai.chat_requests if r.get("stream")]
    assert len(loop_calls) == 3
    context = json.dumps(loop_calls[2]["messages"], ensure_ascii=False)
    assert "Recovery checkpoint" in context and "worker_lost" in context
    checkpoint = Message.objects.get(run=run, metadata__recovery_checkpoint__isnull=False)
    assert checkpoint.metadata["recovery_checkpoint"]["consumed_by"] == again.pk
    notes = Notification.objects.filter(user=user)
    assert [n.key for n in notes] == [f"agent.run.{run.pk}.worker_lost"]
    print(f"\nworker killed mid-answer: finished as worker_lost after {recovered:.1f} s")


def _pid_of_job(proc) -> int:
    """The pid of the pool process that runs jobs (prefork: the worker's only child)."""
    import psutil

    children = psutil.Process(proc.process.pid).children(recursive=True)
    return children[0].pid if children else proc.process.pid
