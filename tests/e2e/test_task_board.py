"""A user has the board open; a task created through the tool API appears without a reload;
dragging it to another column persists."""

import json
import urllib.request

import pytest

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from apps.tasks.models import Board, Task
from tests.e2e.helpers import log_in
from tests.factories import UserFactory
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e


def execute_tool(base_url: str, key: str, tool: str, arguments: dict) -> dict:
    request = urllib.request.Request(
        f"{base_url}/api/v1/tools/execute",
        data=json.dumps({"tool": tool, "arguments": arguments}).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_card_appears_live_and_drag_persists(server, page, statuses):
    open_status, doing = statuses["offen"], statuses["in_arbeit"]
    board = Board.objects.create(name="Steuern")
    user = UserFactory(email="anna@kanzlei.example", role="admin", is_superuser=True)
    # A colleague's API client: live notices are only for other people's changes.
    colleague = UserFactory(email="ben@kanzlei.example", role="admin", is_superuser=True)
    _, key = keys.create_api_key(Principal.for_user(colleague), name="e2e", scopes=["tools:execute"])

    log_in(page, server, user.email)
    page.goto(f"{server}/aufgaben/?board={board.pk}")
    page.wait_for_selector("#kanban")
    page.wait_for_function("window.performance.getEntriesByType('resource').length > 0")
    page.wait_for_timeout(500)  # let the mutation socket connect

    result = execute_tool(
        server, key, "aufgaben_create_task", {"title": "Live-Karte aus der API", "board_id": board.pk}
    )
    assert result["ok"], result
    task_id = result["output"]["task"]["id"]
    card = page.locator(f'.column[data-status-id="{open_status.pk}"] .task-card[data-task-id="{task_id}"]')
    card.wait_for(state="visible", timeout=5000)  # no reload happened: the socket delivered it
    # the semantic announce_key is spoken in the user's language (German) in a live region
    page.locator("#live-announcer").get_by_text("Aufgabe angelegt: Live-Karte aus der API").wait_for(
        timeout=5000
    )

    card.drag_to(page.locator(f'.column[data-status-id="{doing.pk}"] .cards'))
    page.locator(f'.column[data-status-id="{doing.pk}"] .task-card[data-task-id="{task_id}"]').wait_for(
        timeout=5000
    )
    wait_for(lambda: Task.objects.get(pk=task_id).status_id == doing.pk, timeout=5)
    assert Task.objects.get(pk=task_id).status_id == doing.pk
    page.reload()
    page.locator(f'.column[data-status-id="{doing.pk}"] .task-card[data-task-id="{task_id}"]').wait_for(
        timeout=5000
    )
