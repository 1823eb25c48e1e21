"""Housekeeping services: heartbeats and the periodic schedule that drives them."""

from __future__ import annotations

import importlib
import json
import socket
from dataclasses import dataclass, field

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


@dataclass(frozen=True)
class PeriodicJob:
    """A job an app wants beat to run. Apps list theirs as `PERIODIC_JOBS` in their `jobs.py`."""

    name: str
    task: str
    every_seconds: int | None = None
    crontab: str | None = None  # "minute hour day_of_month month day_of_week", in TIME_ZONE
    kwargs: dict = field(default_factory=dict)


def _declared_jobs() -> list[PeriodicJob]:
    from django.apps import apps

    jobs = []
    for config in apps.get_app_configs():
        if config.name.startswith("apps."):
            try:
                module = importlib.import_module(f"{config.name}.jobs")
            except ModuleNotFoundError as exc:
                if exc.name != f"{config.name}.jobs":
                    raise
                continue
            jobs.extend(getattr(module, "PERIODIC_JOBS", []))
    return jobs


def ensure_periodic_tasks() -> None:
    """Register every app's periodic jobs with django-celery-beat (idempotent).

    Admins may disable or retime them in the admin; we only create what is missing."""
    from django_celery_beat.models import CrontabSchedule, IntervalSchedule, PeriodicTask

    for job in _declared_jobs():
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
        PeriodicTask.objects.get_or_create(
            name=job.name, defaults={"task": job.task, "kwargs": json.dumps(job.kwargs), **schedule}
        )


def get_setting(key: str, default=None):
    from apps.core.models import InstanceSetting

    row = InstanceSetting.objects.filter(key=key).values_list("value", flat=True).first()
    return default if row is None else row


def set_setting(key: str, value) -> None:
    from apps.core.models import InstanceSetting

    InstanceSetting.objects.update_or_create(key=key, defaults={"value": value})
