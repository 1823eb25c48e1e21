"""Celery jobs of the Kalender (thin: they call services)."""

from celery import shared_task

from apps.calendar import deadline_reminders, services

REMINDER_TASK = "apps.calendar.jobs.send_due_reminders"
DEADLINE_REMINDER_TASK = "apps.calendar.jobs.send_deadline_reminders"


@shared_task(name=REMINDER_TASK)
def send_due_reminders() -> int:
    """Every minute: notify people of entries whose reminder moment has come (idempotent)."""
    return services.send_due_reminders()


@shared_task(name=DEADLINE_REMINDER_TASK)
def send_deadline_reminders() -> int:
    """Every 15 minutes: Vorfrist, due-day and overdue reminders of the Fristen (each sent once,
    however often the job runs: the notifications' idempotency keys)."""
    return deadline_reminders.send_deadline_reminders()
