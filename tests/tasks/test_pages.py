"""The Aufgaben pages: render, filter, write through the services, constant query counts."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.tasks.models import Comment, Task

pytestmark = pytest.mark.django_db


def test_board_renders_columns_in_status_order_with_cards(web, make_task, statuses):
    make_task("Einkommensteuer Hoffmann")
    make_task("Erledigtes", status="erledigt")
    body = web.get(reverse("tasks:board")).content.decode()
    assert body.index("Offen") < body.index("In Arbeit") < body.index("Erledigt")
    assert "Einkommensteuer Hoffmann" in body and 'data-task-id="' in body


def test_board_empty_state(web, statuses):
    body = web.get(reverse("tasks:board")).content.decode()
    assert "create-board" in body or "Board" in body
    assert 'id="kanban"' not in body


def test_board_search_filters_cards(web, make_task):
    make_task("Meier GmbH Einspruch")
    make_task("Schulz Bäckerei")
    body = web.get(reverse("tasks:board"), {"q": "meier"}).content.decode()
    assert "Meier GmbH Einspruch" in body and "Schulz Bäckerei" not in body


def test_board_and_list_query_counts_are_constant(web, make_task, anna):
    def queries(url):
        with CaptureQueriesContext(connection) as ctx:
            assert web.get(url).status_code == 200
        return len(ctx.captured_queries)

    for i in range(3):
        make_task(f"a{i}", assignee=anna)
    board_few, list_few = queries(reverse("tasks:board")), queries(reverse("tasks:list"))
    for i in range(30):
        make_task(f"b{i}", assignee=anna)
    assert queries(reverse("tasks:board")) == board_few
    assert queries(reverse("tasks:list")) == list_few


def test_list_paginates_and_filters(web, make_task):
    for i in range(55):
        make_task(f"Aufgabe {i:02d}")
    first = web.get(reverse("tasks:list")).content.decode()
    assert "Aufgabe 00" in first and "Aufgabe 54" not in first
    second = web.get(reverse("tasks:list"), {"page": 2}).content.decode()
    assert "Aufgabe 54" in second
    assert (
        "Keine Aufgaben" in web.get(reverse("tasks:list"), {"q": "zzz"}).content.decode()
        or "No tasks" in web.get(reverse("tasks:list"), {"q": "zzz"}).content.decode()
    )


def test_quick_add_creates_a_card(web, shared_board, statuses):
    response = web.post(
        reverse("tasks:quick-add"),
        {"title": "Neue Aufgabe", "board": shared_board.pk, "status": statuses["offen"].pk},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200 and "Neue Aufgabe" in response.content.decode()
    assert Task.objects.get().source_type == "manual"


def test_quick_add_rejects_an_empty_title(web, shared_board, statuses):
    response = web.post(
        reverse("tasks:quick-add"), {"title": "", "board": shared_board.pk, "status": statuses["offen"].pk}
    )
    assert response.status_code == 400 and not Task.objects.exists()


def test_move_endpoint_persists_and_refuses_unknown_status(web, make_task, statuses):
    task = make_task("ziehen")
    ok = web.post(reverse("tasks:move", args=[task.pk]), {"status": statuses["in_arbeit"].pk, "position": 0})
    assert ok.status_code == 200
    task.refresh_from_db()
    assert task.status == statuses["in_arbeit"]
    bad = web.post(reverse("tasks:move", args=[task.pk]), {"status": 999999})
    assert bad.status_code == 404 and bad.json()["code"] == "status_not_found"


def test_detail_saves_only_fields_the_user_changed(web, make_task, statuses):
    task = make_task("Original", description="alt", priority="normal")
    page = web.get(reverse("tasks:detail", args=[task.pk]))
    assert page.status_code == 200
    # meanwhile the agent changes the priority
    Task.objects.filter(pk=task.pk).update(priority="urgent")
    form = {
        "title": "Neuer Titel",
        "base_title": "Original",
        "description": "alt",
        "base_description": "alt",
        "status": statuses["offen"].pk,
        "base_status": statuses["offen"].pk,
        "board": task.board_id,
        "base_board": task.board_id,
        "assignee": "",
        "base_assignee": "",
        "priority": "normal",
        "base_priority": "normal",
        "due_date": "",
        "base_due_date": "",
        "follow_up_date": "",
        "base_follow_up_date": "",
    }
    response = web.post(reverse("tasks:detail", args=[task.pk]), form)
    assert response.status_code == 302
    task.refresh_from_db()
    assert task.title == "Neuer Titel" and task.priority == "urgent"  # the agent's change survives


def test_detail_shows_field_errors_and_keeps_the_task(web, make_task, statuses):
    task = make_task("Bleibt")
    form = {
        "title": "",
        "base_title": "Bleibt",
        "status": statuses["offen"].pk,
        "board": task.board_id,
        "priority": "normal",
    }
    response = web.post(reverse("tasks:detail", args=[task.pk]), form)
    assert response.status_code == 200 and 'class="error"' in response.content.decode()
    task.refresh_from_db()
    assert task.title == "Bleibt"


def test_comment_and_delete(web, make_task):
    task = make_task("mit Kommentar")
    web.post(reverse("tasks:comment", args=[task.pk]), {"body": "Rückruf erledigt"})
    assert Comment.objects.get().author_type == "user"
    assert "Rückruf erledigt" in web.get(reverse("tasks:detail", args=[task.pk])).content.decode()
    assert web.post(reverse("tasks:delete", args=[task.pk])).status_code == 302
    assert not Task.objects.exists()


def test_other_users_private_task_is_404(client, ben, anna, private_board, statuses):
    task = Task.objects.create(title="privat", board=private_board, status=statuses["offen"])
    client.force_login(ben)
    assert client.get(reverse("tasks:detail", args=[task.pk])).status_code == 404
    assert client.post(reverse("tasks:delete", args=[task.pk])).status_code == 404
    assert client.get(reverse("tasks:card", args=[task.pk])).status_code == 404
    assert Task.objects.filter(pk=task.pk).exists()
