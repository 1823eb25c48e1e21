"""Tasks link a Mandant: `client_id` on the aufgaben_* tools, the REST API and the pages, checked
against the clients the principal can see; records carry the client's id and name."""

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from apps.apikeys import services as keys
from apps.clients.models import Client
from apps.mutations.models import MutationEvent
from apps.tasks.models import Task
from apps.tools.dispatcher import dispatch
from tests.factories import ClientFactory

pytestmark = pytest.mark.django_db


def call(ctx, tool_name, **args):
    return dispatch(tool_name, args, ctx)


def test_create_update_clear_and_filter_by_client(anna_ctx, shared_board, statuses, meier):
    created = call(anna_ctx, "aufgaben_create_task", title="Einspruch prüfen", client_id=meier.pk)
    assert created.ok, created.message
    task = created.output["task"]
    assert task["client_id"] == meier.pk
    assert task["client"] == {
        "id": meier.pk,
        "name": "Meier GmbH",
        "client_number": "10003",
        "url": reverse("clients:detail", args=[meier.pk]),
    }
    live = MutationEvent.objects.get(pk=created.mutation_event_id).ui_actions  # shared: the fan-out
    upsert = next(a for a in live if a["type"] == "upsert")
    assert upsert["record"]["client_id"] == meier.pk  # open client pages can tell it is theirs
    call(anna_ctx, "aufgaben_create_task", title="Ohne Mandant")

    listed = call(anna_ctx, "aufgaben_list_tasks", client_id=meier.pk).output
    assert [t["title"] for t in listed["tasks"]] == ["Einspruch prüfen"] and listed["total"] == 1

    other = ClientFactory(name="Schreinerei Vogel")
    moved = call(anna_ctx, "aufgaben_update_task", task_id=task["id"], client_id=other.pk)
    assert moved.ok and moved.output["task"]["client"]["name"] == "Schreinerei Vogel"
    cleared = call(anna_ctx, "aufgaben_update_task", task_id=task["id"], clear_fields=["client_id"])
    assert cleared.ok and cleared.output["task"]["client"] is None
    assert Task.objects.get(pk=task["id"]).client_id is None


def test_query_matches_the_client_name(anna_ctx, make_task, meier):
    make_task("Bescheid prüfen", client=meier)
    make_task("Meier anrufen")
    make_task("Etwas anderes")
    found = call(anna_ctx, "aufgaben_list_tasks", query="meier").output
    assert sorted(t["title"] for t in found["tasks"]) == ["Bescheid prüfen", "Meier anrufen"]


@pytest.mark.parametrize("client_id", [424242, "hidden"])
def test_unknown_or_invisible_client_is_refused_and_nothing_written(
    anna_ctx, shared_board, statuses, make_task, hidden_client, client_id
):
    client_id = hidden_client.pk if client_id == "hidden" else client_id
    task = make_task("Vorhanden")
    created = call(anna_ctx, "aufgaben_create_task", title="Neu", client_id=client_id)
    assert not created.ok and created.code == "client_not_found"
    assert created.output["field_errors"] == {"client_id": created.message}
    updated = call(anna_ctx, "aufgaben_update_task", task_id=task.pk, client_id=client_id)
    assert updated.code == "client_not_found"
    assert call(anna_ctx, "aufgaben_list_tasks", client_id=client_id).code == "client_not_found"
    assert Task.objects.count() == 1 and Task.objects.get().client_id is None
    assert Task.objects.get().version == 1 and not MutationEvent.objects.exists()
    assert "Geheim" not in str(created.message)


def test_an_invisible_client_name_does_not_match_a_query(anna_ctx, make_task, hidden_client):
    make_task("Bescheid prüfen", client=hidden_client)
    assert call(anna_ctx, "aufgaben_list_tasks", query="geheim").output["total"] == 0


def test_list_tool_query_count_is_constant_with_clients(anna_ctx, anna, make_task):
    def count_queries():
        with CaptureQueriesContext(connection) as ctx:
            assert dispatch("aufgaben_list_tasks", {"limit": 200}, anna_ctx).ok
        return len(ctx.captured_queries)

    make_task("a", client=ClientFactory(), assignee=anna)  # every kind of relation the list reads
    count_queries()  # warm the per-process caches (module install state) before counting
    few = count_queries()
    for i in range(25):
        make_task(f"b{i}", client=ClientFactory(), assignee=anna)
    assert count_queries() == few


# --- REST API ---------------------------------------------------------------------------------
@pytest.fixture
def api(anna):
    cache.clear()
    _, token = keys.issue_device_token(anna, "iPhone")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_api_create_filter_patch_with_client(api, shared_board, statuses, meier):
    created = api.post("/api/v1/tasks/", {"title": "Belege", "client_id": meier.pk}, format="json")
    assert created.status_code == 201, created.content
    task = created.json()["task"]
    assert task["client"]["name"] == "Meier GmbH"
    api.post("/api/v1/tasks/", {"title": "Andere"}, format="json")
    listed = api.get("/api/v1/tasks/", {"client_id": meier.pk}).json()
    assert [t["id"] for t in listed["tasks"]] == [task["id"]]
    patched = api.patch(f"/api/v1/tasks/{task['id']}", {"client_id": None}, format="json")
    assert patched.status_code == 200 and patched.json()["task"]["client"] is None


def test_api_unknown_client_is_a_clear_error(api, shared_board, statuses):
    response = api.post("/api/v1/tasks/", {"title": "Belege", "client_id": 424242}, format="json")
    assert response.status_code == 404 and response.json()["code"] == "client_not_found"
    assert response.json()["details"]["field_errors"]["client_id"]
    assert not Task.objects.exists()


# --- pages ------------------------------------------------------------------------------------
def test_detail_picker_links_and_unlinks_a_client(web, make_task, meier):
    task = make_task("Einspruch")
    url = reverse("tasks:detail", args=[task.pk])
    form = web.get(url).context["form"]
    assert (str(meier.pk), "Meier GmbH (10003)") in form.fields["client"].choices
    data = {name: form.initial.get(name, "") for name in form.fields}
    data["client"] = str(meier.pk)
    assert web.post(url, data).status_code == 302
    assert Task.objects.get(pk=task.pk).client_id == meier.pk
    body = web.get(url).content.decode()
    assert reverse("clients:detail", args=[meier.pk]) in body
    form = web.get(url).context["form"]
    data = {name: form.initial.get(name, "") for name in form.fields}
    data["client"] = ""
    assert web.post(url, data).status_code == 302
    assert Task.objects.get(pk=task.pk).client_id is None


def test_list_page_shows_and_filters_by_client(web, make_task, meier):
    make_task("Einspruch Meier", client=meier)
    make_task("Kanzleiaufgabe")
    body = web.get(reverse("tasks:list")).content.decode()
    assert "Meier GmbH" in body
    body = web.get(reverse("tasks:list"), {"client": meier.pk}).content.decode()
    assert "Einspruch Meier" in body and "Kanzleiaufgabe" not in body


def test_board_and_list_query_counts_stay_constant_with_clients(web, make_task, shared_board):
    make_task("erste", client=ClientFactory())
    board_url = f"{reverse('tasks:board')}?board={shared_board.pk}"
    web.get(board_url)
    with CaptureQueriesContext(connection) as board_few, CaptureQueriesContext(connection):
        web.get(board_url)
    with CaptureQueriesContext(connection) as list_few:
        web.get(reverse("tasks:list"))
    for i in range(15):
        make_task(f"weitere {i}", client=ClientFactory())
    with CaptureQueriesContext(connection) as board_many:
        web.get(board_url)
    with CaptureQueriesContext(connection) as list_many:
        web.get(reverse("tasks:list"))
    assert len(board_many) == len(board_few) and len(list_many) == len(list_few)
    assert Client.objects.count() == 16
