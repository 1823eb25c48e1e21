"""Runs never stay orphaned (issue 23, item 2), in one process: the lease a run takes and its
renewal thread, the sweep that finishes runs whose lease lapsed (never a waiting run or a live
lease), cancel and delete of such a run, queued runs whose job was lost, and a redelivered job
that must not call the model twice. The SIGKILL of a real worker is in test_fault_worker_lost."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.principal import Principal
from apps.agent import leases, services, sse
from apps.agent.models import Message, Run, RunEvent
from apps.agent.runtime import run_agent
from apps.notifications.models import Notification
from tests.agent.helpers import say
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db


def _post(user, text: str = "Lege drei Aufgaben an") -> Run:
    principal = Principal.for_user(user)
    return say(principal, services.create_session(principal).pk, text)


def _running(run: Run, *, lease_in: float, worker: str = "gone-host:4242") -> Run:
    """The run as a worker left it mid-round: started, one tool call done, tokens streamed."""
    Run.objects.filter(pk=run.pk).update(
        status=Run.Status.RUNNING,
        started_at=timezone.now(),
        rounds=2,
        worker=worker,
        lease_expires_at=timezone.now() + timedelta(seconds=lease_in),
    )
    run.refresh_from_db()
    call = {"id": "c1", "name": "aufgaben_create_task", "arguments": '{"title": "A"}'}
    services.add_message(run, Message.Role.ASSISTANT, "", tool_calls=[call])
    result = {"ok": True, "output": {"task": {"id": 1, "title": "A"}}}
    services.add_message(
        run,
        Message.Role.TOOL,
        json.dumps(result),
        tool_call_id="c1",
        metadata={"name": "aufgaben_create_task", "ok": True, "code": ""},
    )
    services.record_event(run, RunEvent.Kind.TOOL_FINISHED, {"call_id": "c1", "name": "aufgaben_create_task"})
    services.record_event(run, RunEvent.Kind.TURN, {"round": 2})
    for text in ("Die erste Aufgabe ", "ist angelegt, die zweite"):
        services.record_event(run, RunEvent.Kind.TOKEN, {"text": text})
    return run


def test_start_run_takes_a_lease_and_finish_drops_it(user, model, settings):
    settings.CLAPILOT_RUN_LEASE_SECONDS = 30
    run = _post(user)
    assert run.lease_expires_at is not None  # while queued: the deadline for a worker to take it
    before = timezone.now()
    assert services.start_run(run)
    assert run.status == Run.Status.RUNNING and run.worker == services.worker_name()
    assert before + timedelta(seconds=29) < run.lease_expires_at < timezone.now() + timedelta(seconds=31)
    assert not services.start_run(run)  # a second job for the same run (a redelivery) does not start it
    services.finish_run(run, Run.Status.COMPLETED)
    run.refresh_from_db()
    assert run.lease_expires_at is None and run.status == Run.Status.COMPLETED


@pytest.mark.django_db(transaction=True)
def test_the_worker_renews_the_lease_while_running_and_stops_after(user, model, settings):
    settings.CLAPILOT_RUN_LEASE_SECONDS = 0.3
    run = _post(user)
    services.start_run(run)
    first = run.lease_expires_at
    lost: list = []
    renewer = leases.Renewer(run, on_lost=lost.append)
    with renewer:
        assert wait_for(lambda: renewer.renewals >= 3, timeout=10)
        renewed = Run.objects.get(pk=run.pk).lease_expires_at
        assert renewed > first
        services.finish_run(run, Run.Status.COMPLETED)
        # The next renewal finds the run is no longer this worker's: it stops renewing.
        assert wait_for(lambda: lost, timeout=10)
        count = renewer.renewals
        time.sleep(0.5)
        assert renewer.renewals == count and not renewer._thread.is_alive()
    assert lost == [Run.Status.COMPLETED]
    assert Run.objects.get(pk=run.pk).lease_expires_at is None
    # Stopping before any renewal ends the thread at once, without touching the run.
    quiet = leases.Renewer(Run.objects.get(pk=run.pk))
    with quiet:
        pass
    assert not quiet._thread.is_alive() and quiet.renewals == 0


def test_the_sweep_finishes_a_lapsed_run_with_a_diagnosis_once(user, model):
    run = _running(_post(user), lease_in=-5)
    outcome = leases.sweep()
    assert outcome["finished"] == 1

    run.refresh_from_db()
    assert (run.status, run.error_code) == (Run.Status.FAILED, "worker_lost")
    assert run.lease_expires_at is None and run.finished_at is not None
    diagnosis = run.diagnostics
    assert diagnosis["abort_cause"] == "worker_lost" and diagnosis["worker"] == "gone-host:4242"
    assert diagnosis["completed_tools"] == [{"name": "aufgaben_create_task", "ok": True, "code": ""}]
    assert diagnosis["partial_answer"] == "Die erste Aufgabe ist angelegt, die zweite"
    assert diagnosis["last_event"] == {"kind": "turn", "round": 2}
    # The checkpoint message the next run continues from, shown live as the run's final message.
    checkpoint = run.messages.filter(metadata__recovery_checkpoint__pending=True).get()
    assert checkpoint.metadata["recovery_checkpoint"]["code"] == "worker_lost"
    assert checkpoint.metadata["recovery_checkpoint"]["completed_tools"] == ["aufgaben_create_task"]
    assert checkpoint.content.startswith("Die erste Aufgabe ist angelegt, die zweite")
    kinds = list(run.events.order_by("seq").values_list("kind", "payload"))
    assert kinds[-2][0] == "final" and kinds[-2][1]["message_id"] == checkpoint.pk
    lost = {
        "status": "failed",
        "error_code": "worker_lost",
        "reason": "worker_lost",
        "message": "Der Copilot wurde unerwartet unterbrochen (zum Beispiel durch einen Neustart).",
    }
    assert kinds[-1] == ("status", lost)  # in the person's language
    # An open SSE stream of the run gets the status event and ends.
    streamed, final = sse._next(run.pk, 0)
    assert final and streamed[-1]["payload"] == lost
    # Told once: a second sweep (or a second beat) changes nothing.
    note = Notification.objects.get(user=user)
    assert note.key == f"agent.run.{run.pk}.worker_lost" and note.url == f"/chat/{run.session_id}/"
    assert leases.sweep() == {"finished": 0, "requeued": 0, "failed": 0}
    assert leases.finish_lost(run.pk) is None
    assert Notification.objects.filter(user=user).count() == 1
    # The chat accepts the next message, and an admin may delete the finished run.
    again = say(Principal.for_user(user), run.session_id, "Weiter bitte")
    assert again.status == Run.Status.QUEUED
    assert services.delete_run_as_admin(run.pk) == run.pk


def test_the_sweep_ignores_waiting_runs_and_live_leases(user, model):
    live = _running(_post(user), lease_in=20)
    waiting = _post(user)
    Run.objects.filter(pk=waiting.pk).update(
        status=Run.Status.WAITING, started_at=timezone.now(), lease_expires_at=None, worker=""
    )
    # Even a waiting run with a stale lease left on it is no orphan: it holds no worker.
    stale_waiting = _post(user)
    Run.objects.filter(pk=stale_waiting.pk).update(
        status=Run.Status.WAITING, lease_expires_at=timezone.now() - timedelta(hours=1)
    )
    assert leases.sweep() == {"finished": 0, "requeued": 0, "failed": 0}
    statuses = dict(Run.objects.values_list("pk", "status"))
    assert statuses[live.pk] == Run.Status.RUNNING
    assert statuses[waiting.pk] == statuses[stale_waiting.pk] == Run.Status.WAITING
    assert not Notification.objects.exists()


def test_a_stop_for_an_orphaned_run_finishes_it_at_once(user, model, settings):
    settings.CLAPILOT_AGENT_CANCEL_WAIT = 30  # an orphan must not make the caller wait at all
    run = _running(_post(user), lease_in=-1)
    api = APIClient()
    api.force_authenticate(user)
    started = time.monotonic()
    response = api.post(f"/api/v1/chat/runs/{run.pk}/cancel/")
    assert time.monotonic() - started < 10
    assert response.status_code == 200, response.content
    assert response.json()["run"]["status"] == "cancelled"
    run.refresh_from_db()
    assert run.diagnostics["abort_cause"] == "worker_lost" and run.error_code == ""
    assert run.messages.filter(metadata__recovery_checkpoint__pending=True).exists()
    assert not Notification.objects.exists()  # the person is there: no notification
    # The owner may delete the chat now.
    services.delete_session(Principal.for_user(user), run.session_id)


def test_a_stop_for_a_live_run_waits_for_its_worker(user, model):
    run = _running(_post(user), lease_in=30)
    assert services.request_cancel(run).status == Run.Status.CANCELLING


def test_a_worker_that_comes_back_does_not_overwrite_the_sweep(user, model):
    run = _running(_post(user), lease_in=-1)
    stale = Run.objects.get(pk=run.pk)  # what the cut-off worker still holds in memory
    leases.sweep()
    services.finish_run(stale, Run.Status.COMPLETED)
    run.refresh_from_db()
    assert (run.status, run.error_code) == (Run.Status.FAILED, "worker_lost")
    assert run.events.filter(kind=RunEvent.Kind.STATUS).count() == 1


def test_a_redelivered_job_does_not_call_the_model_again(user, model, fake_openai):
    live = _running(_post(user), lease_in=30, worker="other:1")
    assert run_agent(live.pk).status == Run.Status.RUNNING
    live.refresh_from_db()
    assert live.worker == "other:1" and live.rounds == 2
    lapsed = _running(_post(user), lease_in=-1, worker="other:2")
    assert run_agent(lapsed.pk).status == Run.Status.RUNNING  # the sweep finishes it, not a retry
    done = _post(user)
    Run.objects.filter(pk=done.pk).update(status=Run.Status.COMPLETED)
    assert run_agent(done.pk).status == Run.Status.COMPLETED
    assert fake_openai.chat_requests == []


def test_a_queued_run_whose_job_was_lost_is_sent_again_once_then_failed(
    user, model, monkeypatch, django_capture_on_commit_callbacks
):
    sent: list[int] = []
    monkeypatch.setattr(services, "enqueue_run", sent.append)
    run = _post(user)
    fresh = _post(user)
    Run.objects.filter(pk=run.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=True):
        assert leases.sweep() == {"finished": 0, "requeued": 1, "failed": 0}
    assert sent == [run.pk]
    run.refresh_from_db()
    assert run.status == Run.Status.QUEUED and run.lease_expires_at > timezone.now()
    assert leases.sweep() == {"finished": 0, "requeued": 0, "failed": 0}  # within its new deadline
    Run.objects.filter(pk=run.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    assert leases.sweep() == {"finished": 0, "requeued": 0, "failed": 1}
    assert sent == [run.pk]
    run.refresh_from_db()
    assert (run.status, run.error_code) == ("failed", "worker_lost")
    assert run.diagnostics["abort_cause"] == "queue_lost"
    assert Notification.objects.filter(user=user, key=f"agent.run.{run.pk}.worker_lost").count() == 1
    assert Run.objects.get(pk=fresh.pk).status == Run.Status.QUEUED  # within its deadline
    # A run queued again to resume (rounds > 0, no deadline) gets one now, not a second job.
    resumed = _post(user)
    Run.objects.filter(pk=resumed.pk).update(
        rounds=1, lease_expires_at=None, created_at=timezone.now() - timedelta(hours=2)
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert leases.sweep() == {"finished": 0, "requeued": 0, "failed": 0}
    assert sent == [run.pk]
    assert Run.objects.get(pk=resumed.pk).lease_expires_at > timezone.now() + timedelta(minutes=9)


def test_a_run_requeued_to_resume_continues_from_its_transcript(user, model, fake_openai):
    """What a decision on a staged call does (apps.agent.waiting): the paused run is queued again
    with rounds > 0; the worker continues it from its transcript and keeps its first start."""
    run = _running(_post(user), lease_in=30)
    first_start = run.started_at
    Run.objects.filter(pk=run.pk).update(status=Run.Status.QUEUED, lease_expires_at=None, worker="")
    fake_openai.reply("Alle drei Aufgaben sind angelegt.")
    run = run_agent(run.pk)
    assert run.status == Run.Status.COMPLETED and run.rounds == 3 and run.started_at == first_start
    sent = fake_openai.chat_requests[0]["messages"]
    assert sent[-1]["role"] == "tool" and sent[-2]["tool_calls"][0]["id"] == "c1"


@pytest.mark.django_db(transaction=True)
def test_a_cut_off_worker_stops_once_the_sweep_finished_its_run(user, model, fake_openai, settings):
    """A worker alive but cut off from its lease (the sweep finished its run meanwhile): its lease
    thread sees that, the running tool sees the stop, and the loop ends without asking the model
    again or touching the run's final status."""
    import threading

    from tests.agent import slow_tools

    settings.CLAPILOT_RUN_LEASE_SECONDS = 0.6
    settings.CLAPILOT_AGENT_CANCEL_POLL = 0.05
    probe = slow_tools.register()
    try:
        fake_openai.tool_calls(("test_slow_cooperative", {"seconds": 20})).reply("nie gesendet")
        run = _post(user)
        worker = threading.Thread(target=run_agent, args=(run.pk,), daemon=True)
        worker.start()
        assert probe.started.wait(30), "the tool never started"
        # The worker is cut off: its lease lapses and the sweep finishes the run.
        Run.objects.filter(pk=run.pk).update(
            lease_expires_at=timezone.now() - timedelta(seconds=5), worker="x:1"
        )
        assert wait_for(lambda: leases.finish_lost(run.pk) is not None, timeout=10)
        worker.join(30)
        assert not worker.is_alive() and probe.saw_cancel
        run.refresh_from_db()
        assert (run.status, run.error_code) == (Run.Status.FAILED, "worker_lost")
        assert run.events.filter(kind=RunEvent.Kind.STATUS).count() == 1
        assert len(fake_openai.chat_requests) == 1
    finally:
        probe.finished.wait(10)
        slow_tools.unregister()
