"""A reopened chat draws a staged call's step as waiting (⏸), not as failed, until it is decided."""

from __future__ import annotations

import pytest
from django.urls import reverse

from apps.agent.models import Run
from apps.tasks.models import Board, Task
from tests.agent.conftest import model, provider  # noqa: F401  (fixtures)
from tests.agent.helpers import ask

pytestmark = pytest.mark.django_db


def test_a_waiting_call_is_drawn_waiting_after_a_reload(client, user, model, fake_openai, statuses):  # noqa: F811
    board = Board.objects.create(name="Kanzlei", visibility=Board.Visibility.SHARED)
    task = Task.objects.create(title="Umsatzsteuer Q3", board=board, status=statuses["offen"])
    fake_openai.tool_calls(("aufgaben_list_tasks", {}), ("aufgaben_delete_task", {"task_id": task.pk}))

    run = ask(user, "Lösche die Aufgabe Umsatzsteuer Q3")
    run.refresh_from_db()
    assert run.status == Run.Status.WAITING

    client.force_login(user)
    body = client.get(reverse("chat:session", args=[run.session_id])).content.decode()
    steps = body.split('<ul class="tool-lines">', 1)[1].split("</ul>", 1)[0]
    assert steps.count('class="ok"') == 1 and steps.count('class="waiting"') == 1
    assert 'class="failed"' not in steps
