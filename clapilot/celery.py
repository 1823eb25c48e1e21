"""The Celery app. Jobs live in `apps/<domain>/jobs.py` so that "tasks" always means Aufgaben."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clapilot.settings")

app = Celery("clapilot")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(related_name="jobs")
