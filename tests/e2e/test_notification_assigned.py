"""In Chromium: a colleague made Zuständig of a Frist, then given a task, sees the bell
notification live, without a reload; the person who acted sees nothing of her own."""

import datetime as dt

import pytest
from django.utils import timezone

from apps.accounts.principal import Principal
from apps.calendar import services as calendar
from apps.calendar.contracts import EventCreate
from apps.core.inputs import build
from apps.mutations.origin import operation
from apps.notifications.models import Notification
from apps.tasks.models import Board, Task, TaskStatus
from tests.e2e.helpers import log_in
from tests.factories import UserFactory

pytestmark = pytest.mark.e2e

COUNT = "#notification-count"


def test_colleague_made_responsible_sees_the_bell_live(server, page):
    anna = UserFactory(email="anna@kanzlei.example", full_name="Anna Berger")
    ben = UserFactory(email="ben@kanzlei.example", full_name="Ben Braun")
    log_in(page, server, ben.email)
    page.goto(f"{server}/kalender/")
    page.locator("#notification-bell").wait_for(timeout=5000)
    assert page.locator(COUNT).is_hidden()
    page.wait_for_timeout(700)  # let the mutation socket connect

    due = dt.datetime.combine(timezone.localdate() + dt.timedelta(days=20), dt.time(12))
    with operation(anna.pk):  # Anna acts (as her request would)
        calendar.create_event(
            Principal.for_user(anna),
            build(
                EventCreate,
                title="Einspruch Meier",
                kind="deadline",
                start=due.isoformat(),
                responsible_id=ben.pk,
            ),
        )
    page.locator(f"{COUNT}:not([hidden])").wait_for(timeout=5000)  # live, no reload
    assert page.locator(COUNT).inner_text() == "1"

    board = Board.objects.create(name="Steuern", visibility=Board.Visibility.SHARED)
    status = TaskStatus.objects.order_by("sort_order", "id").first() or TaskStatus.objects.create(
        key="offen", name="Offen", category="open"
    )
    with operation(anna.pk):
        task = Task.objects.create(title="Belege anfordern", board=board, status=status)
        task.assignee = ben
        task.save()
    page.locator(COUNT, has_text="2").wait_for(timeout=5000)

    page.locator("#notification-bell summary").click()
    items = page.locator("#notification-panel .bell-item.unread")
    items.first.wait_for(timeout=5000)
    titles = items.all_inner_texts()
    assert any("Sie sind zuständig für die Frist: Einspruch Meier" in t for t in titles)
    assert any("Ihnen wurde eine Aufgabe zugewiesen: Belege anfordern" in t for t in titles)
    assert not Notification.objects.filter(user=anna).exists()
