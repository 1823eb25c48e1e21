"""The board's counters stay right after quick-add, drag, a keyboard move and live events (each
compared with the cards on the page and with the database), and a focused card moves to the
next/previous column with Alt+→/← through the move endpoint, announced in the live region."""

import pytest

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from apps.approvals.models import Policy
from apps.tasks.models import Board, Task
from tests.e2e.helpers import execute_tool, log_in
from tests.factories import UserFactory
from tests.waiting import wait_for

pytestmark = pytest.mark.e2e

COUNTERS = """() => Object.fromEntries([...document.querySelectorAll('#kanban .column')].map((c) => [
  c.dataset.statusId,
  [Number(c.querySelector('.count').textContent), c.querySelectorAll('.task-card').length],
]))"""


def expected(board) -> dict[str, list[int]]:
    from apps.tasks.models import TaskStatus

    return {
        str(s.pk): [n := Task.objects.filter(board=board, status=s).count(), n]
        for s in TaskStatus.objects.all()
    }


def counters_match(page, board) -> bool:
    """Every column's counter equals its cards on the page and the database's count."""
    return wait_for(lambda: page.evaluate(COUNTERS) == expected(board), timeout=15)


def test_counters_after_quick_add_drag_keyboard_and_live_events(server, page, statuses):
    offen, doing, done = statuses["offen"], statuses["in_arbeit"], statuses["erledigt"]
    board = Board.objects.create(name="Steuern")
    user = UserFactory(
        email="anna@kanzlei.example", full_name="Anna Schmidt", role="admin", is_superuser=True
    )
    _, key = keys.create_api_key(Principal.for_user(user), name="e2e", scopes=["tools:execute"])
    # This office lets the copilot delete tasks without asking (a task delete waits for a person by
    # default since the approvals step; this test is about the board's live counters).
    Policy.objects.create(tool="aufgaben_delete_task", allowed=["delete"])
    first = Task.objects.create(title="Umsatzsteuervoranmeldung", board=board, status=offen, assignee=user)
    Task.objects.create(title="Lohnabrechnung", board=board, status=offen, position=1)

    log_in(page, server, user.email)
    page.goto(f"{server}/aufgaben/?board={board.pk}")
    page.wait_for_selector("#kanban")
    page.wait_for_timeout(500)  # let the mutation socket connect
    assert page.locator(f'.task-card[data-task-id="{first.pk}"] .avatar').inner_text() == "AS"
    assert counters_match(page, board)

    # quick-add: its response and its own live event must not count (or show) the card twice
    page.fill(f"#qa-{offen.pk}", "Neue Karte per Schnelleingabe")
    page.press(f"#qa-{offen.pk}", "Enter")
    page.locator(".task-card", has_text="Neue Karte per Schnelleingabe").first.wait_for(timeout=10000)
    page.wait_for_timeout(800)  # the live event of the new task arrives too
    assert page.locator(".task-card", has_text="Neue Karte per Schnelleingabe").count() == 1
    assert counters_match(page, board), page.evaluate(COUNTERS)
    added = Task.objects.get(title="Neue Karte per Schnelleingabe")

    # drag to "in Arbeit"
    page.locator(f'.task-card[data-task-id="{added.pk}"]').drag_to(
        page.locator(f'.column[data-status-id="{doing.pk}"] .cards')
    )
    assert wait_for(lambda: Task.objects.get(pk=added.pk).status_id == doing.pk, timeout=10)
    assert counters_match(page, board), page.evaluate(COUNTERS)

    # keyboard: Alt+→ moves the focused card one column right, through the same endpoint
    card = page.locator(f'.task-card[data-task-id="{first.pk}"]')
    card.focus()
    page.keyboard.press("Alt+ArrowRight")
    assert wait_for(lambda: Task.objects.get(pk=first.pk).status_id == doing.pk, timeout=10)
    assert counters_match(page, board), page.evaluate(COUNTERS)
    page.locator("#board-status", has_text="verschoben").wait_for(state="attached", timeout=8000)
    page.wait_for_timeout(600)  # its own live event re-renders the card: focus stays on it
    assert page.evaluate("document.activeElement.dataset.taskId") == str(first.pk)
    page.keyboard.press("Alt+ArrowLeft")
    assert wait_for(lambda: Task.objects.get(pk=first.pk).status_id == offen.pk, timeout=10)
    # The page has applied the move (the card sits, focused, in the first column) before the next key.
    page.wait_for_function(
        """([id, column]) => {
          const card = document.activeElement;
          return card?.dataset.taskId === id && card.closest(".column")?.dataset.statusId === column;
        }""",
        arg=[str(first.pk), str(offen.pk)],
        timeout=10000,
    )
    page.keyboard.press("Alt+ArrowLeft")  # the first column: nothing further left
    page.locator("#board-status", has_text="keine weitere Spalte").wait_for(state="attached", timeout=8000)
    assert Task.objects.get(pk=first.pk).status_id == offen.pk
    assert counters_match(page, board), page.evaluate(COUNTERS)

    # live events from someone else (the tool API): created, moved, deleted
    created = execute_tool(
        server, key, "aufgaben_create_task", {"title": "Live von außen", "board_id": board.pk}
    )
    assert created["ok"], created
    live_id = created["output"]["task"]["id"]
    page.locator(f'.task-card[data-task-id="{live_id}"]').wait_for(timeout=10000)
    assert counters_match(page, board), page.evaluate(COUNTERS)
    moved = execute_tool(server, key, "aufgaben_move_task", {"task_id": live_id, "status_id": done.pk})
    assert moved["ok"], moved
    page.locator(f'.column[data-status-id="{done.pk}"] .task-card[data-task-id="{live_id}"]').wait_for(
        timeout=10000
    )
    assert counters_match(page, board), page.evaluate(COUNTERS)
    deleted = execute_tool(server, key, "aufgaben_delete_task", {"task_id": added.pk})
    assert deleted["ok"], deleted
    page.locator(f'.task-card[data-task-id="{added.pk}"]').wait_for(state="detached", timeout=10000)
    assert counters_match(page, board), page.evaluate(COUNTERS)

    page.reload()  # the server's counts agree with what the page showed
    page.wait_for_selector("#kanban")
    assert counters_match(page, board)
