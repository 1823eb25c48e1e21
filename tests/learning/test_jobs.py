"""Extraction and curator through a real Celery worker against the scripted model server: the
chat run's answer hook queues the extraction in the worker; beat's curator job runs there too."""

from __future__ import annotations

import json

import pytest
from django.db.models import ProtectedError

from apps.accounts.principal import Principal
from apps.agent import services as chat
from apps.agent.models import Run
from apps.core.inputs import build
from apps.learning import services
from apps.learning.contracts import LearningReview
from apps.learning.jobs import curate_job
from apps.learning.models import LearningDecision, LearningJobRun, LearningObject
from tests.agent.helpers import say
from tests.learning.conftest import fact
from tests.waiting import wait_for
from tests.workers import in_process_worker

S = LearningObject.Status
pytestmark = pytest.mark.django_db(transaction=True)


def extraction_json(*items) -> str:
    return json.dumps({"items": list(items)}, ensure_ascii=False)


def item(text, quote, *, subject="", confidence=0.95, kind="durable_fact", **kw) -> dict:
    return {"kind": kind, "text": text, "subject": subject, "quote": quote, "confidence": confidence, **kw}


def chat_and_learn(user, text: str, answer: str, fake_openai) -> LearningJobRun:
    """One chat turn in the worker; waits for the extraction job the answer queued."""
    fake_openai.reply(answer, model="chat-model")
    p = Principal.for_user(user)
    session = chat.create_session(p)
    run = say(p, session.pk, text)
    logged = wait_for(lambda: LearningJobRun.objects.filter(run_id=run.pk).first())
    assert logged, "the extraction job did not run"
    assert Run.objects.get(pk=run.pk).status == Run.Status.COMPLETED
    return logged


def test_extraction_activates_a_safe_fact_and_stages_a_correction(
    user, chat_model, extraction_model, fake_openai
):
    old = fact("Lohnabrechnungen macht Herr Roth.", subject="staff.payroll")
    said = (
        "Zur Info: Unsere Kanzlei ist freitags ab 13 Uhr geschlossen. "
        "Und Lohnabrechnungen macht ab sofort Frau Kern, nicht mehr Herr Roth."
    )
    fake_openai.reply(
        extraction_json(
            item(
                "Die Kanzlei ist freitags ab 13 Uhr geschlossen.",
                "Unsere Kanzlei ist freitags ab 13 Uhr geschlossen",
                subject="office.opening_hours",
            ),
            item(
                "Lohnabrechnungen macht Frau Kern.",
                "Lohnabrechnungen macht ab sofort Frau Kern",
                subject="staff.payroll",
                correction=True,
            ),
            item("Die Kanzlei hat einen Hund.", "wir haben einen Bürohund", subject="office.pets"),
        ),
        model="extractor",
    )
    with in_process_worker():
        logged = chat_and_learn(user, said, "Danke, ich merke es mir.", fake_openai)

    assert logged.outcome == "done", logged.reason
    assert logged.counts == {"proposed": 3, "activated": 1, "staged": 1, "confirmed": 0, "unquoted": 1}
    hours = LearningObject.objects.get(subject="office.opening_hours")
    assert hours.status == S.ACTIVE and hours.evidence.get().run_id == logged.run_id
    correction = LearningObject.objects.get(subject="staff.payroll", status=S.STAGED)
    assert correction.staged_reason == "correction" and correction.conflicts_with_id == old.pk
    old.refresh_from_db()
    assert old.status == S.ACTIVE  # a correction never silently overwrites
    assert not LearningObject.objects.filter(subject="office.pets").exists()  # invented quote
    (request,) = fake_openai.requests_for("extractor")
    sent = request["messages"][1]["content"]
    assert "Unsere Kanzlei ist freitags ab 13 Uhr geschlossen" in sent and request["stream"] is False
    assert "Kern" not in sent  # neutralized on the way out, restored in the quote that came back


def test_invalid_json_records_invalid_model_output_and_changes_nothing(
    user, chat_model, extraction_model, fake_openai
):
    fact("Die Kanzlei hat drei Standorte.")
    before = (LearningObject.objects.count(), LearningDecision.objects.count())
    fake_openai.reply('{"items": [{"kind": "durable_fact", "text": "Kaputt', model="extractor")
    with in_process_worker():
        logged = chat_and_learn(user, "Wir haben jetzt vier Standorte.", "Notiert.", fake_openai)
    assert logged.outcome == "invalid_model_output"
    assert "es wurde nichts geändert" in logged.reason  # stored in the office language
    assert (LearningObject.objects.count(), LearningDecision.objects.count()) == before


def test_valid_json_of_the_wrong_shape_is_invalid_model_output_too(
    user, chat_model, extraction_model, fake_openai
):
    fake_openai.reply(json.dumps({"items": [{"kind": "rumour", "text": "x"}]}), model="extractor")
    with in_process_worker():
        logged = chat_and_learn(user, "Hallo", "Hallo!", fake_openai)
    assert logged.outcome == "invalid_model_output" and "items.0" in logged.reason
    assert not LearningObject.objects.exists()


def test_no_extraction_model_skips_with_a_visible_reason(user, chat_model, fake_openai):
    with in_process_worker():
        logged = chat_and_learn(user, "Die Kanzlei ist freitags geschlossen.", "Ok.", fake_openai)
    assert logged.outcome == "skipped"
    assert "Kein Extraktionsmodell eingerichtet" in logged.reason
    assert fake_openai.requests_for("extractor") == [] and len(fake_openai.chat_requests) == 1
    assert not LearningObject.objects.exists()


def _curator_says(fake_openai, *decisions) -> None:
    fake_openai.reply(json.dumps({"decisions": list(decisions)}), model="curator")


def _run_curator() -> LearningJobRun:
    """What beat does: queue the curator job; waits for its log row."""
    seen = LearningJobRun.objects.filter(job="curation").order_by("-id").values_list("id", flat=True).first()
    curate_job.delay()
    return wait_for(lambda: LearningJobRun.objects.filter(job="curation", id__gt=seen or 0).first())


def test_curator_keeps_on_uncertainty_and_rejects_only_when_validated(admin_user, curator_model, fake_openai):
    false = fact("Die Kanzlei wurde 1850 gegründet.", subject="office.founded")
    unsure = fact("Herr Roth hat montags frei.", subject="staff.roth")
    no_reason = fact("Die Kanzlei hat 12 Parkplätze.", subject="office.parking")
    silent = fact("Der Drucker steht im Flur.", subject="office.printer")
    fake_dup = fact("Das WLAN heißt Kanzlei-Gast.", subject="office.wifi")
    fact("Schon geprüft.", subject="x")  # decided by a person below: not sent to the curator
    checked = LearningObject.objects.get(subject="x")
    services.review(
        Principal.for_user(admin_user),
        build(LearningReview, object_id=checked.pk, decision="edit", text="Schon geprüft, bleibt."),
    )
    _curator_says(
        fake_openai,
        {
            "id": false.pk,
            "verdict": "reject",
            "reason": "false",
            "confidence": 0.97,
            "note": "gegründet 1990",
        },
        {"id": unsure.pk, "verdict": "reject", "reason": "temporary", "confidence": 0.6},
        {"id": no_reason.pk, "verdict": "reject", "reason": "boring", "confidence": 0.99},
        {
            "id": fake_dup.pk,
            "verdict": "reject",
            "reason": "duplicate",
            "confidence": 0.95,
            "duplicate_of": 999,
        },
    )
    with in_process_worker():
        logged = _run_curator()

    assert logged.outcome == "done", logged.reason
    assert logged.counts == {"checked": 5, "kept": 4, "rejected": 1, "refused_rejects": 3}
    statuses = {o.pk: o.status for o in LearningObject.objects.all()}
    assert statuses[false.pk] == S.REJECTED
    assert all(statuses[o.pk] == S.ACTIVE for o in (unsure, no_reason, silent, fake_dup, checked))
    (request,) = fake_openai.requests_for("curator")
    prompt = request["messages"][1]["content"]
    assert "Schon geprüft" not in prompt and "evidence:" in prompt  # only unchecked, with evidence
    reject = LearningDecision.objects.get(learning_object=false, actor="curator")
    assert (reject.decision, reject.reason, reject.confidence) == ("reject", "false", 0.97)
    assert reject.model_label == curator_model.label and reject.before["status"] == "active"
    kept = LearningDecision.objects.get(learning_object=unsure, actor="curator")
    assert kept.decision == "keep" and kept.reason == "uncertain" and "unter 0.90" in kept.note

    # A person reverts the curator's reject: the fact is back, and the next pass leaves it alone.
    services.revert_decision(Principal.for_user(admin_user), reject.pk)
    false.refresh_from_db()
    assert false.status == S.ACTIVE and not false.needs_check
    with in_process_worker():
        again = _run_curator()
    assert again.counts == {"checked": 0}
    assert len(fake_openai.requests_for("curator")) == 1  # nothing to check: no model call


def test_curator_invalid_json_changes_nothing(curator_model, fake_openai):
    one = fact("Die Kanzlei hat drei Standorte.")
    fake_openai.reply("Ich finde alles gut!", model="curator")
    with in_process_worker():
        logged = _run_curator()
    assert logged.outcome == "invalid_model_output"
    one.refresh_from_db()
    assert one.status == S.ACTIVE and one.needs_check
    assert not LearningDecision.objects.filter(actor="curator").exists()


def test_curator_without_a_model_skips_with_a_visible_reason(chat_model, fake_openai):
    """The chat's default model is not used: the curator's model is chosen explicitly."""
    fact("Die Kanzlei hat drei Standorte.")
    with in_process_worker():
        logged = _run_curator()
    assert logged.outcome == "skipped" and "Kein Kurator-Modell eingerichtet" in logged.reason
    assert fake_openai.chat_requests == []


def test_the_curator_schedule_is_bundled_and_cannot_be_deleted():
    from django_celery_beat.models import PeriodicTask

    from apps.core.models import ProtectedJob
    from apps.core.services import ensure_periodic_tasks
    from apps.learning.apps import CURATOR_JOB

    ensure_periodic_tasks()
    task = PeriodicTask.objects.get(name=CURATOR_JOB)
    assert task.task == "apps.learning.jobs.curate_job"
    assert ProtectedJob.objects.get(task=task).app == "learning"
    with pytest.raises(ProtectedError):
        task.delete()
    task.enabled = False  # pausing stays the admin's choice
    task.save()
