"""Celery jobs of the notifications (thin: they call services)."""

from celery import shared_task
from django.utils import timezone

from apps.notifications import digest

DIGEST_TASK = "apps.notifications.jobs.send_morning_digest"


@shared_task(name=DIGEST_TASK)
def send_morning_digest() -> int:
    """Every 15 minutes: the digests due now, each at 07:00 in its person's time zone (digest.py)."""
    return digest.send_due_digests(timezone.now())
