"""The mobile REST API under /api/v1/tasks/ (device tokens, the same services)."""

import pytest
from rest_framework.test import APIClient

from apps.apikeys import services as keys
from apps.tasks.models import Task
from tests.factories import device_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(anna):
    return device_client(anna)


def test_task_lifecycle(api, shared_board, statuses):
    created = api.post(
        "/api/v1/tasks/", {"title": "Belege anfordern", "due_date": "2026-12-05"}, format="json"
    )
    assert created.status_code == 201, created.content
    task = created.json()["task"]
    assert task["source_type"] == "api" and task["board"]["id"] == shared_board.pk
    tid = task["id"]
    assert api.get(f"/api/v1/tasks/{tid}").json()["task"]["title"] == "Belege anfordern"
    patched = api.patch(f"/api/v1/tasks/{tid}", {"priority": "urgent", "expected_version": 1}, format="json")
    assert patched.status_code == 200 and patched.json()["task"]["version"] == 2
    stale = api.patch(f"/api/v1/tasks/{tid}", {"title": "alt", "expected_version": 1}, format="json")
    assert stale.status_code == 409 and stale.json()["code"] == "version_conflict"
    moved = api.post(f"/api/v1/tasks/{tid}/move", {"status_id": statuses["erledigt"].pk}, format="json")
    assert moved.json()["task"]["status"]["key"] == "erledigt"
    comment = api.post(f"/api/v1/tasks/{tid}/comments", {"body": "Erledigt"}, format="json")
    assert comment.status_code == 201
    assert len(api.get(f"/api/v1/tasks/{tid}/comments").json()["comments"]) == 1
    assert api.delete(f"/api/v1/tasks/{tid}").status_code == 204
    assert api.get(f"/api/v1/tasks/{tid}").status_code == 404


def test_lists_filters_and_pagination(api, make_task, statuses, anna):
    for i in range(5):
        make_task(f"Task {i}", assignee=anna)
    make_task("fertig", status="erledigt")
    data = api.get("/api/v1/tasks/", {"limit": 2, "offset": 2, "unfinished": "true"}).json()
    assert data["total"] == 5 and len(data["tasks"]) == 2
    assert api.get("/api/v1/tasks/", {"q": "fertig"}).json()["total"] == 1
    assert [b["name"] for b in api.get("/api/v1/tasks/boards").json()["boards"]] == ["Steuern"]
    assert len(api.get("/api/v1/tasks/statuses").json()["statuses"]) == 4


@pytest.mark.parametrize(
    ("method", "url", "body", "status", "code"),
    [
        ("post", "/api/v1/tasks/", {"title": "x" * 10_000}, 400, "invalid_request"),
        ("post", "/api/v1/tasks/", {"title": "ok", "due_date": "morgen"}, 400, "invalid_request"),
        ("post", "/api/v1/tasks/", {"title": "ok", "status_id": 999999}, 404, "status_not_found"),
        ("patch", "/api/v1/tasks/999999", {"title": "x"}, 404, "task_not_found"),
        ("get", "/api/v1/tasks/?due_from=gestern", None, 400, "invalid_request"),
    ],
)
def test_bad_input(api, shared_board, statuses, method, url, body, status, code):
    response = getattr(api, method)(url, body, format="json") if body is not None else api.get(url)
    assert response.status_code == status
    assert response.json()["code"] == code
    assert not Task.objects.exists()


def test_private_board_of_another_user_is_404(api, ben, statuses):
    from apps.tasks.models import Board

    board = Board.objects.create(name="Bens", visibility="private", owner=ben)
    task = Task.objects.create(title="geheim", board=board, status=statuses["offen"])
    assert api.get(f"/api/v1/tasks/{task.pk}").status_code == 404
    assert api.delete(f"/api/v1/tasks/{task.pk}").status_code == 404
    assert Task.objects.filter(pk=task.pk).exists()


def test_snapshot_etag(api, make_task):
    make_task("a")
    first = api.get("/api/v1/tasks/snapshot")
    assert first.status_code == 200 and first.json()["count"] == 1
    etag = first["ETag"]
    assert api.get("/api/v1/tasks/snapshot", HTTP_IF_NONE_MATCH=etag).status_code == 304
    make_task("b")
    changed = api.get("/api/v1/tasks/snapshot", HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed.json()["count"] == 2


def test_api_key_without_scope_cannot_use_the_task_api(anna, shared_board):
    from apps.accounts.principal import Principal
    from tests.factories import UserFactory

    admin = UserFactory(role="admin", is_superuser=True)
    _, plaintext = keys.create_api_key(Principal.for_user(admin), name="k", scopes=["tools:execute"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    assert client.get("/api/v1/tasks/").status_code == 403
    assert APIClient().get("/api/v1/tasks/").status_code in (401, 403)
