"""In Chromium: Heute's "Meine | Ganze Kanzlei" switch opens the office cards for an admin and is
absent for staff; the results page finds a Frist and marks the searched word."""

import datetime as dt

import pytest
from django.utils import timezone

from tests.e2e.helpers import log_in
from tests.factories import UserFactory
from tests.notifications.fristen_rows import frist

pytestmark = pytest.mark.e2e


@pytest.fixture
def office(transactional_db):
    boss = UserFactory(
        email="chefin@kanzlei.example", full_name="Clara Chef", role="admin", is_superuser=True
    )
    anna = UserFactory(email="anna@kanzlei.example", full_name="Anna Berger")
    ben = UserFactory(email="ben@kanzlei.example", full_name="Ben Braun")
    gone = UserFactory(email="gone@kanzlei.example", full_name="Gerd Gegangen", is_active=False)
    today = timezone.localdate()
    frist("Einspruch Kormoran GmbH", today - dt.timedelta(days=2), responsible=ben)
    frist("Frist von Gerd", today + dt.timedelta(days=9), responsible=gone)
    return {"boss": boss, "anna": anna}


def test_office_switch_for_the_admin_only(server, page, office):
    page.set_viewport_size({"width": 1366, "height": 900})
    log_in(page, server, office["boss"].email)
    page.goto(f"{server}/")
    switch = page.locator("[data-scope=office]")
    switch.wait_for()
    assert page.locator("[data-office-view]").count() == 0
    switch.click()
    page.locator("[data-office-view]").wait_for()
    overdue = page.locator("[data-card=office_overdue]").inner_text()
    assert "Einspruch Kormoran GmbH" in overdue and "Ben Braun" in overdue
    assert "Frist von Gerd" in page.locator("[data-card=office_orphaned]").inner_text()
    assert page.locator("[data-card=office_deputies]").count() == 1
    assert page.locator("[data-card=office_tasks]").count() == 1
    assert page.locator("[data-scope=office][aria-current=page]").count() == 1

    page.context.clear_cookies()
    log_in(page, server, office["anna"].email)
    page.goto(f"{server}/?ansicht=kanzlei")
    page.locator("[data-card=overdue]").wait_for()
    assert page.locator("[data-scope]").count() == 0
    assert page.locator("[data-office-view]").count() == 0
    assert "Kormoran" not in page.content()


def test_search_finds_a_frist_and_marks_the_word(server, page, office):
    log_in(page, server, office["anna"].email)
    page.goto(f"{server}/suche/?q=kormoran")
    section = page.locator("[data-search-section=deadlines]")
    section.wait_for()
    assert "Einspruch Kormoran GmbH" in section.inner_text()
    mark = section.locator("mark").first
    assert mark.inner_text() == "Kormoran"
    section.get_by_role("link", name="Einspruch Kormoran GmbH").click()
    page.wait_for_url("**/kalender/*/")
