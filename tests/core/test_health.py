import pytest
from django.urls import reverse

from apps.core.services import record_heartbeat

pytestmark = pytest.mark.django_db(transaction=True)


def test_healthz_is_green_when_every_component_answers(client):
    record_heartbeat("beat")
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    data = response.json()
    assert data["ok"] is True
    assert set(data["checks"]) == {"database", "broker", "channel_layer", "heartbeat"}
    assert "pgvector" in data["checks"]["database"]["detail"]


def test_healthz_is_red_without_a_heartbeat_and_says_which_part(client):
    response = client.get(reverse("healthz"))
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["heartbeat"]["ok"] is False
    assert checks["database"]["ok"] is True


def test_healthz_reports_a_stale_heartbeat(client, settings):
    from datetime import timedelta

    from django.utils import timezone

    from apps.core.models import Heartbeat

    Heartbeat.objects.create(component="beat", beat_at=timezone.now() - timedelta(hours=1))
    assert client.get(reverse("healthz")).json()["checks"]["heartbeat"]["ok"] is False
