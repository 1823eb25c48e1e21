"""In Chromium: a case page (Akte) is open. A task linked to the case over REST appears without a
reload, so does a Frist created through the tool API and a task a colleague adds from their own
session on the same case page; a task of another case never appears; unlinking the task from the
case removes it live. The facts refresh when the case itself changes."""

import datetime as dt
import json
import urllib.request

import pytest

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from apps.clients.models import Case
from apps.tasks.models import Board
from tests.e2e.helpers import execute_tool, log_in
from tests.factories import ClientFactory, UserFactory

pytestmark = pytest.mark.e2e


def rest(base_url: str, token: str, method: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(
        f"{base_url}{path}",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
        method=method,
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_case_page_shows_linked_changes_live(server, browser, page, statuses):
    Board.objects.create(name="Steuern")
    anna = UserFactory(email="anna@kanzlei.example", role="admin", is_superuser=True)
    ben = UserFactory(email="ben@kanzlei.example")
    _, key = keys.create_api_key(Principal.for_user(anna), name="e2e", scopes=["tools:execute"])
    _, token = keys.issue_device_token(anna, "iPhone")
    meier = ClientFactory(name="Meier GmbH", client_number="10003")
    akte = Case.objects.create(client=meier, reference="2026-0042", subject="Einspruch ESt 2024")
    andere = Case.objects.create(client=meier, reference="2026-0043", subject="Lohn 2025")

    log_in(page, server, anna.email)
    page.goto(f"{server}/mandanten/akten/{akte.pk}/")
    page.locator("#case-tasks").wait_for(timeout=5000)
    assert "Einspruch ESt 2024" in page.locator("h1").inner_text()
    page.wait_for_timeout(700)  # let the mutation socket connect
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    elsewhere = rest(
        server, token, "POST", "/api/v1/tasks/", {"title": "Lohnabrechnung", "case_id": andere.pk}
    )
    created = rest(
        server, token, "POST", "/api/v1/tasks/", {"title": "Einspruch begründen", "case_id": akte.pk}
    )
    task_id = created["task"]["id"]
    row = page.locator(f'#case-tasks [data-list="tasks"] [data-record-id="{task_id}"]')
    row.wait_for(state="visible", timeout=5000)  # no reload: the socket delivered it
    assert "Einspruch begründen" in row.inner_text()
    assert page.locator("#case-linked").get_by_text(elsewhere["task"]["title"]).count() == 0

    due = (dt.date.today() + dt.timedelta(days=5)).isoformat()
    frist = execute_tool(
        server,
        key,
        "calendar_create_event",
        {"title": "Einspruchsfrist", "kind": "deadline", "start": due, "all_day": True, "case_id": akte.pk,
         "criticality": "critical"},
    )  # fmt: skip
    assert frist["ok"], frist
    assert frist["output"]["event"]["client_id"] == meier.pk  # the case decided the client
    deadline_row = page.locator(f'#case-deadlines [data-record-id="{frist["output"]["event"]["id"]}"]')
    deadline_row.wait_for(state="visible", timeout=5000)
    assert deadline_row.locator(".badge.critical").count() == 1

    # A colleague adds a task from their own session on the same case page.
    other = browser.new_context(locale="de-DE")
    try:
        ben_page = other.new_page()
        log_in(ben_page, server, ben.email)
        ben_page.goto(f"{server}/mandanten/akten/{akte.pk}/")
        ben_page.fill("#case-task-title", "Vollmacht anfordern")
        ben_page.click("form.client-quick-add button[type=submit]")
        ben_page.wait_for_load_state()
        page.locator("#case-tasks").get_by_text("Vollmacht anfordern").wait_for(timeout=5000)
    finally:
        other.close()

    # Unlinked from the case: it leaves the page live.
    rest(server, token, "PATCH", f"/api/v1/tasks/{task_id}", {"case_id": None})
    row.wait_for(state="detached", timeout=5000)

    # The case itself changes: its facts follow.
    closed = execute_tool(server, key, "cases_update", {"case_id": akte.pk, "status": "closed"})
    assert closed["ok"], closed
    page.locator("#case-facts .badge").get_by_text("Geschlossen").wait_for(timeout=5000)
    assert errors == []
