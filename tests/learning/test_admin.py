"""The admin is the control plane: models of the jobs, decisions through the review services,
the jobs' log, and the curator's schedule it cannot delete."""

from __future__ import annotations

import pytest
from django.urls import reverse

from apps.learning.models import LearningDecision, LearningJobRun, LearningObject, LearningSettings
from tests.learning.conftest import fact

pytestmark = pytest.mark.django_db
S = LearningObject.Status


def test_pages_render_and_actions_decide_through_the_services(client, admin_user):
    staged = fact("Die Kanzlei hat vier Standorte.", confidence=0.3)
    active = fact("Die Kanzlei hat einen Hof.")
    LearningJobRun.objects.create(job="extraction", outcome="skipped", reason="No extraction model")
    client.force_login(admin_user)
    for name in ("learningobject", "learningdecision", "learningjobrun", "learningsettings"):
        assert client.get(reverse(f"admin:learning_{name}_changelist")).status_code == 200
    assert client.get(reverse("admin:learning_learningobject_change", args=[staged.pk])).status_code == 200
    assert "No extraction model" in client.get(reverse("admin:learning_learningjobrun_changelist")).text

    url = reverse("admin:learning_learningobject_changelist")
    client.post(url, {"action": "approve", "_selected_action": [staged.pk]})
    client.post(url, {"action": "reject", "_selected_action": [active.pk]})
    statuses = dict(LearningObject.objects.values_list("pk", "status"))
    assert statuses == {staged.pk: S.ACTIVE, active.pk: S.REJECTED}
    rejected = LearningDecision.objects.get(learning_object=active, decision="reject")
    assert rejected.decided_by == admin_user

    decisions = reverse("admin:learning_learningdecision_changelist")
    client.post(decisions, {"action": "revert", "_selected_action": [rejected.pk]})
    active.refresh_from_db()
    assert active.status == S.ACTIVE


def test_saving_the_text_is_edit_then_approve(client, admin_user):
    staged = fact("Herr Maus mag Tee.", confidence=0.3)
    client.force_login(admin_user)
    url = reverse("admin:learning_learningobject_change", args=[staged.pk])
    response = client.post(
        url, {"text": "Herr Maus trinkt grünen Tee.", "note": "präzisiert", **_no_inlines()}
    )
    assert response.status_code == 302, response.content[:2000]
    staged.refresh_from_db()
    assert (staged.status, staged.text) == (S.ACTIVE, "Herr Maus trinkt grünen Tee.")
    assert staged.decisions.filter(decision="edit", note="präzisiert").exists()


def _no_inlines() -> dict:
    data = {}
    for prefix in ("evidence", "decisions"):
        data |= {f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0", f"{prefix}-MAX_NUM_FORMS": "0"}
    return data


def test_the_admin_chooses_the_models_among_offered_ones(client, admin_user, provider):
    from apps.llm.models import ModelConfig

    good = ModelConfig.objects.create(provider=provider, model_id="extractor")
    broken = ModelConfig.objects.create(provider=provider, model_id="broken", probe_failed=True)
    settings = LearningSettings.current()
    client.force_login(admin_user)
    url = reverse("admin:learning_learningsettings_change", args=[settings.pk])
    page = client.get(url).text
    assert "extractor" in page and "broken" not in page
    response = client.post(url, {"enabled": "on", "extraction_model": good.pk, "curator_model": broken.pk})
    assert response.status_code == 200  # refused: the broken model is not offered
    response = client.post(url, {"enabled": "on", "extraction_model": good.pk, "curator_model": good.pk})
    assert response.status_code == 302
    settings.refresh_from_db()
    assert settings.extraction_model == good and settings.curator_model == good


def test_the_curator_schedule_cannot_be_deleted_in_the_admin(client, admin_user):
    from django_celery_beat.models import PeriodicTask

    from apps.core.services import ensure_periodic_tasks
    from apps.learning.apps import CURATOR_JOB

    ensure_periodic_tasks()
    task = PeriodicTask.objects.get(name=CURATOR_JOB)
    client.force_login(admin_user)
    url = reverse("admin:django_celery_beat_periodictask_delete", args=[task.pk])
    page = client.get(url)
    assert page.status_code == 200 and "nicht löschen" in page.text  # "Kann … nicht löschen"
    client.post(url, {"post": "yes"})
    assert PeriodicTask.objects.filter(pk=task.pk).exists()
