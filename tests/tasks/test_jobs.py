"""The Wiedervorlage job, through a real Celery worker."""

import datetime as dt

import pytest

from apps.tasks.jobs import resurface_follow_ups
from apps.tasks.models import Task
from tests.waiting import wait_for
from tests.workers import in_process_worker

pytestmark = pytest.mark.django_db(transaction=True)


def test_due_follow_ups_come_back_through_the_worker(make_task, statuses):
    due = make_task("Wiedervorlage fällig", status="wiedervorlage", follow_up_date=dt.date(2020, 1, 1))
    later = make_task("Noch nicht", status="wiedervorlage", follow_up_date=dt.date(2999, 1, 1))
    with in_process_worker():
        resurface_follow_ups.delay()
        wait_for(lambda: Task.objects.get(pk=due.pk).status_id == statuses["offen"].pk)
    assert Task.objects.get(pk=due.pk).status == statuses["offen"]
    assert Task.objects.get(pk=later.pk).status == statuses["wiedervorlage"]
