"""Celery jobs of the notifications (thin: they call services)."""

import zoneinfo

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from apps.notifications import digest

DIGEST_TASK = "apps.notifications.jobs.send_morning_digest"


@shared_task(name=DIGEST_TASK)
def send_morning_digest() -> int:
    """07:00 office time: each person's digest of the day (once a day, see digest.py)."""
    return digest.send_morning_digest(
        timezone.localtime(timezone.now(), zoneinfo.ZoneInfo(settings.TIME_ZONE)).date()
    )
