"""In Chromium: the header bell updates live. A notify() on the server (as a reminder job would)
raises the count and puts the notification in the list without a reload; "mark all as read"
clears it in the background; the dashboard's "Heute" counts the unread notification and a new
Frist live, too."""

import datetime as dt

import pytest
from django.utils import timezone

from apps.accounts.principal import Principal
from apps.calendar import services as calendar
from apps.calendar.contracts import EventCreate
from apps.core.inputs import build
from apps.notifications.models import Notification
from apps.notifications.services import notify
from tests.e2e.helpers import log_in
from tests.factories import UserFactory
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e

COUNT = "#notification-count"


def test_bell_count_and_list_update_live(server, page):
    anna = UserFactory(email="anna@kanzlei.example", full_name="Anna Berger")
    ben = UserFactory(email="ben@kanzlei.example")
    log_in(page, server, anna.email)
    page.goto(f"{server}/kalender/")
    page.locator("#notification-bell").wait_for(timeout=5000)
    assert page.locator(COUNT).is_hidden()
    page.wait_for_timeout(700)  # let the mutation socket connect

    notify(anna, kind="deadline.due", title="Frist heute: Einspruch Meier", url="/kalender/", key="e2e:1")
    notify(ben, kind="deadline.due", title="Bens Frist", url="/kalender/")
    page.locator(f"{COUNT}:not([hidden])").wait_for(timeout=5000)  # live, no reload
    assert page.locator(COUNT).inner_text() == "1"
    notify(anna, kind="deadline.pre_deadline", title="Vorfrist: Klage Schulz", url="/kalender/")
    page.locator(COUNT, has_text="2").wait_for(timeout=5000)

    page.locator("#notification-bell summary").click()
    items = page.locator("#notification-panel .bell-item.unread")
    items.first.wait_for(timeout=5000)
    titles = items.all_inner_texts()
    assert any("Vorfrist: Klage Schulz" in t for t in titles) and any("Einspruch Meier" in t for t in titles)
    assert page.get_by_text("Bens Frist").count() == 0

    page.locator("#notification-panel button", has_text="Alle als gelesen markieren").click()
    page.locator(f"{COUNT}[hidden]").wait_for(state="attached", timeout=5000)
    assert wait_for(
        lambda: not Notification.objects.filter(user=anna, read_at__isnull=True).exists(), timeout=5
    )
    assert page.locator("#notification-panel .bell-item.unread").count() == 0
    assert page.url == f"{server}/kalender/"  # marked in the background, the page stayed


def test_dashboard_counts_update_live(server, page):
    anna = UserFactory(email="anna@kanzlei.example", full_name="Anna Berger")
    log_in(page, server, anna.email)
    page.goto(f"{server}/")
    unread = page.locator('[data-figure="unread"] strong')
    week = page.locator('[data-figure="this_week"] strong')
    unread.wait_for(timeout=5000)
    assert unread.inner_text() == "0" and week.inner_text() == "0"
    page.wait_for_timeout(700)

    notify(anna, kind="reminder", title="Vollmacht fehlt", url="/kalender/")
    page.locator('[data-figure="unread"] strong', has_text="1").wait_for(timeout=5000)
    page.locator('#today [data-card="notifications"] a', has_text="Vollmacht fehlt").wait_for(timeout=5000)

    due = dt.datetime.combine(timezone.localdate(), dt.time(12), tzinfo=timezone.get_current_timezone())
    calendar.create_event(
        Principal.for_user(anna),
        build(
            EventCreate,
            title="Einspruch Live",
            kind="deadline",
            start=due.isoformat(),
            responsible_id=anna.pk,
        ),
    )
    page.locator('[data-figure="this_week"] strong', has_text="1").wait_for(timeout=5000)
    page.locator('#today [data-card="week"] a', has_text="Einspruch Live").wait_for(timeout=5000)
