"""The Celery app. Jobs live in `apps/<domain>/jobs.py` so that "tasks" always means Aufgaben."""

import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clapilot.settings")

app = Celery("clapilot")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(related_name="jobs")


@signals.import_modules.connect(sender=app, dispatch_uid="clapilot.start_embedded_database")
def start_embedded_database(sender=None, **kwargs) -> None:
    """A worker or beat loads its job modules before it touches the broker or the database
    (`celery -A clapilot worker|beat` on its own, without the run command): start or attach to
    the embedded PostgreSQL then. Processes that only send jobs (web) never get here; the tests'
    in-process workers attach to the server the test run started."""
    from django.conf import settings

    if getattr(settings, "EMBEDDED_DATABASE", False):
        from clapilot import embedded_db

        embedded_db.ensure_running()
