"""Housekeeping services: heartbeats and the periodic schedule that drives them."""

from __future__ import annotations

import json
import socket

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from apps.core.models import Heartbeat

HEARTBEAT_TASK = "apps.core.jobs.heartbeat"


def record_heartbeat(component: str) -> Heartbeat:
    """Upsert the component's heartbeat in one statement-safe transaction."""
    now = timezone.now()
    with transaction.atomic():
        updated = Heartbeat.objects.filter(component=component).update(
            beat_at=now, hostname=socket.gethostname(), count=F("count") + 1
        )
        if not updated:
            Heartbeat.objects.get_or_create(
                component=component, defaults={"beat_at": now, "hostname": socket.gethostname(), "count": 1}
            )
    return Heartbeat.objects.get(component=component)


def heartbeat_age_seconds(component: str) -> float | None:
    beat = Heartbeat.objects.filter(component=component).values_list("beat_at", flat=True).first()
    return None if beat is None else (timezone.now() - beat).total_seconds()


def ensure_periodic_tasks() -> None:
    """Register the instance's periodic jobs with django-celery-beat (idempotent).

    Admins may disable or retime them in the admin; we only create what is missing."""
    from django_celery_beat.models import IntervalSchedule, PeriodicTask

    every, _ = IntervalSchedule.objects.get_or_create(
        every=settings.CLAPILOT_HEARTBEAT_SECONDS, period=IntervalSchedule.SECONDS
    )
    PeriodicTask.objects.get_or_create(
        name="Housekeeping heartbeat",
        defaults={"task": HEARTBEAT_TASK, "interval": every, "kwargs": json.dumps({"component": "beat"})},
    )


def get_setting(key: str, default=None):
    from apps.core.models import InstanceSetting

    row = InstanceSetting.objects.filter(key=key).values_list("value", flat=True).first()
    return default if row is None else row


def set_setting(key: str, value) -> None:
    from apps.core.models import InstanceSetting

    InstanceSetting.objects.update_or_create(key=key, defaults={"value": value})
