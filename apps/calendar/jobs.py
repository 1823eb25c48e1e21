"""Celery jobs of the Kalender (thin: they call services)."""

from celery import shared_task

from apps.calendar import services

REMINDER_TASK = "apps.calendar.jobs.send_due_reminders"


@shared_task(name=REMINDER_TASK)
def send_due_reminders() -> int:
    """Every minute: notify people of entries whose reminder moment has come (idempotent)."""
    return services.send_due_reminders()
