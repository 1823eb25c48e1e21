"""Housekeeping services: heartbeats and the periodic schedule that drives them."""

from __future__ import annotations

import json
import socket

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, transaction
from django.db.models import F
from django.utils import timezone

from apps.core import plugins
from apps.core.models import Heartbeat


def record_heartbeat(component: str, using: str = DEFAULT_DB_ALIAS) -> Heartbeat:
    """Upsert the component's heartbeat in one statement-safe transaction (`using`: another alias
    of the same database, e.g. one without a connection pool)."""
    now = timezone.now()
    rows = Heartbeat.objects.using(using)
    with transaction.atomic(using=using):
        updated = rows.filter(component=component).update(
            beat_at=now, hostname=socket.gethostname(), count=F("count") + 1
        )
        if not updated:
            rows.get_or_create(
                component=component, defaults={"beat_at": now, "hostname": socket.gethostname(), "count": 1}
            )
    return rows.get(component=component)


def heartbeat_age_seconds(component: str) -> float | None:
    beat = Heartbeat.objects.filter(component=component).values_list("beat_at", flat=True).first()
    return None if beat is None else (timezone.now() - beat).total_seconds()


def ensure_periodic_tasks() -> None:
    """Register every app's periodic jobs with django-celery-beat (idempotent): the one writer of
    beat rows. Admins may disable or retime them in the admin; we only create what is missing,
    and mark the protected ones, which nobody may delete."""
    from django_celery_beat.models import CrontabSchedule, IntervalSchedule, PeriodicTask

    from apps.core.models import ProtectedJob

    for app, job in ((c.label, job) for c in plugins.domain_apps() for job in c.periodic_jobs):
        schedule: dict = {}
        if job.every_seconds is not None:
            schedule["interval"], _ = IntervalSchedule.objects.get_or_create(
                every=job.every_seconds, period=IntervalSchedule.SECONDS
            )
        else:
            minute, hour, day_of_month, month, day_of_week = (job.crontab or "0 3 * * *").split()
            schedule["crontab"], _ = CrontabSchedule.objects.get_or_create(
                minute=minute,
                hour=hour,
                day_of_month=day_of_month,
                month_of_year=month,
                day_of_week=day_of_week,
                timezone=settings.TIME_ZONE,
            )
        task, _ = PeriodicTask.objects.get_or_create(
            name=job.name, defaults={"task": job.task, "kwargs": json.dumps(job.kwargs), **schedule}
        )
        if job.protected:
            ProtectedJob.objects.get_or_create(task=task, defaults={"app": app})


def get_setting(key: str, default=None):
    from apps.core.models import InstanceSetting

    row = InstanceSetting.objects.filter(key=key).values_list("value", flat=True).first()
    return default if row is None else row


def set_setting(key: str, value) -> None:
    from apps.core.models import InstanceSetting

    InstanceSetting.objects.update_or_create(key=key, defaults={"value": value})
