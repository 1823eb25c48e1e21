"""In Chromium: the client page is open; a task created for that client through the tool API
appears without a reload, a new Frist for the client shows up with its countdown, and deleting the
task removes it again; a task for another client never appears."""

import datetime as dt

import pytest

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from apps.approvals.models import Policy
from apps.tasks.models import Board
from tests.e2e.helpers import execute_tool, log_in
from tests.factories import ClientFactory, UserFactory

pytestmark = pytest.mark.e2e


def test_client_page_shows_linked_changes_live(server, page, statuses):
    board = Board.objects.create(name="Steuern")
    user = UserFactory(email="anna@kanzlei.example", role="admin", is_superuser=True)
    _, key = keys.create_api_key(Principal.for_user(user), name="e2e", scopes=["tools:execute"])
    # This office lets the copilot delete tasks without asking (a task delete waits for a person by
    # default since the approvals step; this test is about the client page's live sections).
    Policy.objects.create(tool="aufgaben_delete_task", allowed=["delete"])
    meier = ClientFactory(name="Meier GmbH", client_number="10003")
    other = ClientFactory(name="Autohaus König", client_number="10004")

    log_in(page, server, user.email)
    page.goto(f"{server}/mandanten/{meier.pk}/")
    page.locator("#client-tasks").wait_for(timeout=5000)
    page.wait_for_timeout(700)  # let the mutation socket connect

    elsewhere = execute_tool(
        server,
        key,
        "aufgaben_create_task",
        {"title": "Für König", "board_id": board.pk, "client_id": other.pk},
    )
    assert elsewhere["ok"], elsewhere
    result = execute_tool(
        server,
        key,
        "aufgaben_create_task",
        {"title": "Einspruch Bescheid 2023 prüfen", "board_id": board.pk, "client_id": meier.pk},
    )
    assert result["ok"], result
    task_id = result["output"]["task"]["id"]
    row = page.locator(f'#client-tasks [data-list="tasks"] [data-record-id="{task_id}"]')
    row.wait_for(state="visible", timeout=5000)  # no reload: the socket delivered it
    assert "Einspruch Bescheid 2023 prüfen" in row.inner_text()
    assert page.locator("#client-tasks").get_by_text("Für König").count() == 0

    due = (dt.date.today() + dt.timedelta(days=5)).isoformat()
    frist = execute_tool(
        server,
        key,
        "calendar_create_event",
        {"title": "Einspruchsfrist", "kind": "deadline", "start": due, "all_day": True, "client_id": meier.pk,
         "criticality": "critical"},
    )  # fmt: skip
    assert frist["ok"], frist
    deadline_row = page.locator(f'#client-deadlines [data-record-id="{frist["output"]["event"]["id"]}"]')
    deadline_row.wait_for(state="visible", timeout=5000)
    assert deadline_row.locator(".badge.critical").count() == 1

    assert execute_tool(server, key, "aufgaben_delete_task", {"task_id": task_id})["ok"]
    row.wait_for(state="detached", timeout=5000)
