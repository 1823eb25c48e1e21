"""In Chromium: from a client page a person opens a new Akte (the Aktenzeichen filled by the
office's scheme), lands on the case page, links an existing Frist of the client from the picker
and sees it in the case's Fristen; then closes the case and reopens it."""

import datetime as dt

import pytest
from django.utils import timezone

from apps.calendar.models import CalendarEvent
from apps.clients.models import Case
from tests.e2e.helpers import log_in
from tests.factories import ClientFactory, UserFactory

pytestmark = pytest.mark.e2e


def test_open_a_case_from_the_client_page_and_link_a_frist(server, page):
    anna = UserFactory(email="anna@kanzlei.example", full_name="Anna Berger")
    meier = ClientFactory(name="Meier GmbH", client_number="10003")
    due = timezone.now() + dt.timedelta(days=6)
    frist = CalendarEvent.objects.create(
        title="Einspruchsfrist KSt 2023", kind="deadline", start=due, end=due, client=meier, all_day=True
    )
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    log_in(page, server, anna.email)
    page.goto(f"{server}/mandanten/{meier.pk}/")
    page.locator("#client-cases").get_by_role("link", name="Neue Akte").click()
    page.wait_for_url("**/akten/neu/")
    year = timezone.localdate().year
    assert page.locator("#id_reference").get_attribute("placeholder") == f"{year}-0001"
    page.locator("#id_subject").fill("Einspruch Körperschaftsteuer 2023")
    page.get_by_role("button", name="Akte anlegen").click()

    case = Case.objects.get()
    page.wait_for_url(f"**/mandanten/akten/{case.pk}/")
    assert case.reference == f"{year}-0001" and case.client_id == meier.pk
    assert "Einspruch Körperschaftsteuer 2023" in page.locator("h1").inner_text()
    assert f"Akte {year}-0001 angelegt." in page.content()

    page.locator("#case-link-item").select_option(f"deadlines:{frist.pk}")
    page.get_by_role("button", name="Verknüpfen").click()
    row = page.locator(f'#case-deadlines [data-record-id="{frist.pk}"]')
    row.wait_for(state="visible", timeout=5000)
    assert "Einspruchsfrist KSt 2023" in row.inner_text()
    frist.refresh_from_db()
    assert frist.case_id == case.pk
    assert page.locator("#case-link-item option[value^='deadlines:']").count() == 0  # linked now

    page.get_by_role("button", name="Akte schließen").click()
    page.locator("#case-closed").wait_for(timeout=5000)
    assert "Anna Berger" in page.locator("#case-closed").inner_text()
    page.get_by_role("button", name="Akte wieder öffnen").click()
    page.get_by_role("button", name="Akte schließen").wait_for(timeout=5000)
    assert Case.objects.get().status == "open"
    assert errors == []
