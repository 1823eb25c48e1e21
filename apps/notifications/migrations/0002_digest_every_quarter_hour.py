"""The morning digest went from one run at 07:00 (instance time) to a run every quarter hour that
sends at 07:00 in each person's zone. `ensure_periodic_tasks` only creates missing beat rows, so an
existing instance keeps the old time: retime the row here, unless an admin already retimed it."""

from django.conf import settings
from django.db import migrations

NAME = "Benachrichtigungen: Tagesüberblick am Morgen"


def retime(apps, schema_editor):
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    task = PeriodicTask.objects.filter(name=NAME).select_related("crontab").first()
    old = task and task.crontab
    if not old or (old.minute, old.hour, old.day_of_month, old.month_of_year, old.day_of_week) != (
        "0", "7", "*", "*", "*"
    ):
        return
    task.crontab, _ = CrontabSchedule.objects.get_or_create(
        minute="*/15", hour="*", day_of_month="*", month_of_year="*", day_of_week="*",
        timezone=settings.TIME_ZONE,
    )  # fmt: skip
    task.save(update_fields=["crontab"])


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0001_squashed_0002_key_and_unread"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(retime, migrations.RunPython.noop)]
