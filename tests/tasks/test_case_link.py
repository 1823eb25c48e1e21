"""Tasks link an Akte: `case_id` on the aufgaben_* tools, the REST API and the pages. The case
decides the client when none is named; a case the caller cannot see answers `case_not_found`, a
case of another client `case_client_mismatch`; nothing is half-written."""

import pytest
from django.core.cache import cache
from django.urls import reverse
from rest_framework.test import APIClient

from apps.apikeys import services as keys
from apps.clients.models import Case
from apps.mutations.models import MutationEvent
from apps.tasks.models import Task
from apps.tools.dispatcher import dispatch
from tests.factories import ClientFactory

pytestmark = pytest.mark.django_db


def call(ctx, tool_name, **args):
    return dispatch(tool_name, args, ctx)


@pytest.fixture
def akte(meier):
    return Case.objects.create(client=meier, reference="2026-0042", subject="Einspruch ESt 2024")


@pytest.fixture
def hidden_case(monkeypatch, meier):
    """A case the visibility rule hides (cases are office-wide today: the one rule is patched)."""
    from apps.clients import visibility

    hidden = Case.objects.create(client=meier, reference="2026-0666", subject="Geheimsache")
    original = visibility.visible_cases
    monkeypatch.setattr(
        visibility, "visible_cases", lambda principal: original(principal).exclude(pk=hidden.pk)
    )
    return hidden


def test_create_with_a_case_takes_its_client_and_filters(anna_ctx, shared_board, statuses, akte, meier):
    created = call(anna_ctx, "aufgaben_create_task", title="Einspruch begründen", case_id=akte.pk)
    assert created.ok, created.message
    task = created.output["task"]
    assert task["case_id"] == akte.pk and task["client_id"] == meier.pk
    assert task["case"] == {
        "id": akte.pk,
        "reference": "2026-0042",
        "subject": "Einspruch ESt 2024",
        "url": reverse("clients:case", args=[akte.pk]),
    }
    upsert = next(
        a for a in MutationEvent.objects.get(pk=created.mutation_event_id).ui_actions if a["type"] == "upsert"
    )
    assert upsert["record"]["case_id"] == akte.pk  # open case pages can tell it is theirs
    call(anna_ctx, "aufgaben_create_task", title="Ohne Akte", client_id=meier.pk)
    listed = call(anna_ctx, "aufgaben_list_tasks", case_id=akte.pk).output
    assert [t["title"] for t in listed["tasks"]] == ["Einspruch begründen"]


def test_update_links_and_clears_the_case(anna_ctx, make_task, akte, meier):
    task = make_task("Belege")
    linked = call(anna_ctx, "aufgaben_update_task", task_id=task.pk, case_id=akte.pk)
    assert linked.ok and linked.output["task"]["client_id"] == meier.pk
    cleared = call(anna_ctx, "aufgaben_update_task", task_id=task.pk, clear_fields=["case_id"])
    assert cleared.ok and cleared.output["task"]["case"] is None
    assert cleared.output["task"]["client_id"] == meier.pk  # the client stays


@pytest.mark.parametrize("which", ["unknown", "hidden"])
def test_unknown_or_invisible_case_is_refused_and_nothing_written(anna_ctx, make_task, hidden_case, which):
    case_id = hidden_case.pk if which == "hidden" else 424242
    task = make_task("Vorhanden")
    created = call(anna_ctx, "aufgaben_create_task", title="Neu", case_id=case_id)
    assert not created.ok and created.code == "case_not_found"
    assert created.output["field_errors"] == {"case_id": created.message}
    assert "Geheimsache" not in created.message
    assert call(anna_ctx, "aufgaben_update_task", task_id=task.pk, case_id=case_id).code == "case_not_found"
    assert call(anna_ctx, "aufgaben_list_tasks", case_id=case_id).code == "case_not_found"
    assert Task.objects.count() == 1 and Task.objects.get().version == 1
    assert not MutationEvent.objects.exists()


def test_a_case_of_another_client_is_refused(anna_ctx, make_task, akte):
    vogel = ClientFactory(name="Schreinerei Vogel")
    created = call(anna_ctx, "aufgaben_create_task", title="Neu", client_id=vogel.pk, case_id=akte.pk)
    assert not created.ok and created.code == "case_client_mismatch"
    assert "2026-0042" in created.message and created.output["field_errors"]["case_id"]
    task = make_task("Vogel", client=vogel)
    assert (
        call(anna_ctx, "aufgaben_update_task", task_id=task.pk, case_id=akte.pk).code
        == "case_client_mismatch"
    )
    linked = make_task("In der Akte", client=akte.client, case=akte)
    moved = call(anna_ctx, "aufgaben_update_task", task_id=linked.pk, client_id=vogel.pk)
    assert moved.code == "case_client_mismatch"  # the client cannot change under its case
    assert Task.objects.filter(title="Neu").count() == 0
    assert (
        Task.objects.get(pk=task.pk).case_id is None
        and Task.objects.get(pk=linked.pk).client_id == akte.client_id
    )
    assert not MutationEvent.objects.exists()


# --- REST API ---------------------------------------------------------------------------------
@pytest.fixture
def api(anna):
    cache.clear()
    _, token = keys.issue_device_token(anna, "iPhone")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_api_create_filter_and_clear_the_case(api, shared_board, statuses, akte):
    created = api.post("/api/v1/tasks/", {"title": "Belege", "case_id": akte.pk}, format="json")
    assert created.status_code == 201, created.content
    task = created.json()["task"]
    assert task["case"]["reference"] == "2026-0042" and task["client"]["id"] == akte.client_id
    api.post("/api/v1/tasks/", {"title": "Andere"}, format="json")
    listed = api.get("/api/v1/tasks/", {"case_id": akte.pk}).json()
    assert [t["id"] for t in listed["tasks"]] == [task["id"]]
    patched = api.patch(f"/api/v1/tasks/{task['id']}", {"case_id": None}, format="json")
    assert patched.status_code == 200 and patched.json()["task"]["case"] is None


def test_api_errors(api, shared_board, statuses, akte):
    missing = api.post("/api/v1/tasks/", {"title": "Belege", "case_id": 424242}, format="json")
    assert missing.status_code == 404 and missing.json()["code"] == "case_not_found"
    other = ClientFactory()
    mismatch = api.post(
        "/api/v1/tasks/", {"title": "Belege", "case_id": akte.pk, "client_id": other.pk}, format="json"
    )
    assert mismatch.status_code == 400 and mismatch.json()["code"] == "case_client_mismatch"
    assert not Task.objects.exists()


# --- pages ------------------------------------------------------------------------------------
def test_detail_picker_links_a_case(web, make_task, akte):
    task = make_task("Einspruch")
    url = reverse("tasks:detail", args=[task.pk])
    form = web.get(url).context["form"]
    assert str(akte.pk) in dict(form.fields["case"].choices)
    data = {name: form.initial.get(name, "") for name in form.fields}
    data["case"] = str(akte.pk)
    assert web.post(url, data).status_code == 302
    task.refresh_from_db()
    assert task.case_id == akte.pk and task.client_id == akte.client_id
    assert reverse("clients:case", args=[akte.pk]) in web.get(url).content.decode()


def test_detail_picker_shows_a_mismatch_on_the_form(web, make_task, akte):
    vogel = ClientFactory(name="Schreinerei Vogel")
    task = make_task("Einspruch", client=vogel)
    url = reverse("tasks:detail", args=[task.pk])
    form = web.get(url).context["form"]
    data = {name: form.initial.get(name, "") for name in form.fields}
    data["case"] = str(akte.pk)
    response = web.post(url, data)
    assert response.status_code == 200 and response.context["form"].errors["case"]
    assert Task.objects.get(pk=task.pk).case_id is None


def test_quick_add_on_the_case_page(web, shared_board, statuses, akte):
    url = reverse("clients:case", args=[akte.pk])
    response = web.post(
        reverse("tasks:quick-add"), {"title": "Vollmacht holen", "case": akte.pk, "next": url}
    )
    assert response.status_code == 302 and response.url == url
    task = Task.objects.get()
    assert task.case_id == akte.pk and task.client_id == akte.client_id
    assert "Vollmacht holen" in web.get(url).content.decode()


def test_list_page_filters_by_case(web, make_task, akte):
    make_task("In der Akte", client=akte.client, case=akte)
    make_task("Kanzleiaufgabe")
    body = web.get(reverse("tasks:list"), {"case": akte.pk}).content.decode()
    assert "In der Akte" in body and "Kanzleiaufgabe" not in body
