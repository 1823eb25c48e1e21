"""The Freigaben page, the card endpoints the chat uses, the navigation badge and the review queue."""

from __future__ import annotations

import pytest

from apps.approvals.models import StagedCall, StandingApproval
from apps.core.inputs import build
from apps.tasks import services as tasks
from apps.tasks.contracts import TaskCreate
from apps.tasks.models import Board, Task
from tests.approvals.decide_helpers import stage, waiting_run

DELETE = "aufgaben_delete_task"


@pytest.fixture(autouse=True)
def no_worker(monkeypatch):
    from apps.agent import services as agent

    monkeypatch.setattr(agent, "_enqueue", lambda run_id: None)


@pytest.fixture
def task(as_anna, statuses):
    board = Board.objects.create(name="Kanzlei", visibility=Board.Visibility.SHARED)
    return tasks.create_task(as_anna, build(TaskCreate, title="Umsatzsteuer Q3", board_id=board.pk))


def test_the_page_lists_pending_calls_with_their_buttons(web, anna, task):
    stage(
        anna,
        DELETE,
        {"task_id": task.pk},
        run=waiting_run(anna),
        preview="Löscht die Aufgabe »Umsatzsteuer Q3«",
    )
    page = web.get("/freigaben/")
    html = page.content.decode()
    assert page.status_code == 200
    assert "Löscht die Aufgabe »Umsatzsteuer Q3«" in html
    assert 'value="approve"' in html and 'value="deny"' in html and 'value="approve_alike"' in html
    assert "Freigeben und Gleichartiges künftig erlauben" in html


def test_the_empty_page_says_so(web):
    html = web.get("/freigaben/").content.decode()
    assert "Nichts wartet auf Ihre Freigabe." in html
    assert "approval-card" not in html


def test_the_page_is_closed_to_anonymous_visitors(client):
    response = client.get("/freigaben/")
    assert response.status_code == 302 and "next=/freigaben/" in response["Location"]


def test_the_page_paginates(web, anna, task):
    for _i in range(25):
        stage(anna, DELETE, {"task_id": task.pk})
    first = web.get("/freigaben/").content.decode()
    second = web.get("/freigaben/?page=2").content.decode()
    assert first.count('class="card approval-card"') == 20
    assert second.count('class="card approval-card"') == 5


def test_approving_on_the_page_executes_and_reports(web, anna, task):
    staged = stage(anna, DELETE, {"task_id": task.pk}, run=waiting_run(anna))
    response = web.post(
        f"/freigaben/{staged.pk}/entscheiden/", {"decision": "approve", "next": "/freigaben/"}
    )
    assert response.status_code == 302 and response["Location"] == "/freigaben/"
    assert not Task.objects.filter(pk=task.pk).exists()
    staged.refresh_from_db()
    assert staged.status == StagedCall.Status.EXECUTED


def test_the_card_endpoints_answer_json(web, anna, task):
    run = waiting_run(anna)
    staged = stage(anna, DELETE, {"task_id": task.pk}, run=run, preview="Löscht")
    card = web.get(f"/freigaben/{staged.pk}/").json()["staged"]
    assert card["status"] == "pending" and card["preview"] == "Löscht" and card["suggest"] is False
    listed = web.get(f"/freigaben/chat/{run.session_id}/").json()["staged"]
    assert [c["id"] for c in listed] == [staged.pk]
    decided = web.post(
        f"/freigaben/{staged.pk}/entscheiden/", {"decision": "deny"}, headers={"Accept": "application/json"}
    ).json()["staged"]
    assert decided["status"] == "denied" and decided["code"] == "approval_denied"
    again = web.post(
        f"/freigaben/{staged.pk}/entscheiden/",
        {"decision": "approve"},
        headers={"Accept": "application/json"},
    )
    assert again.status_code == 409 and again.json()["code"] == "approval_already_decided"
    assert again.json()["staged"]["status"] == "denied"
    assert Task.objects.filter(pk=task.pk).exists()


@pytest.mark.parametrize("web_user", ["ben"], indirect=True)
def test_another_persons_call_is_404_everywhere(web, anna, task):
    run = waiting_run(anna)
    staged = stage(anna, DELETE, {"task_id": task.pk}, run=run, preview="Anna-geheim")
    assert web.get(f"/freigaben/{staged.pk}/").status_code == 404
    assert web.post(f"/freigaben/{staged.pk}/entscheiden/", {"decision": "approve"}).status_code == 404
    foreign_chat = web.get(f"/freigaben/chat/{run.session_id}/")
    assert foreign_chat.status_code == 404 and foreign_chat.json()["code"] == "chat_session_not_found"
    assert "Anna-geheim" not in web.get("/freigaben/").content.decode()
    assert Task.objects.filter(pk=task.pk).exists()


def test_the_navigation_badge_counts_the_persons_pending_calls(web, anna, ben, task):
    stage(anna, DELETE, {"task_id": task.pk})
    stage(anna, DELETE, {"task_id": task.pk})
    stage(ben, DELETE, {"task_id": task.pk})
    assert web.get("/navigation/badges/").json()["approvals"] == 2


def test_admins_decide_in_the_review_queue(client, boss, anna, task):
    staged = stage(anna, DELETE, {"task_id": task.pk}, run=waiting_run(anna), preview="Aus der Prüfung")
    client.force_login(boss)
    page = client.get("/pruefen/?kind=approvals")
    assert page.status_code == 200 and "Aus der Prüfung" in page.content.decode()
    client.post("/pruefen/entscheiden/", {"kind": "approvals", "ids": staged.pk, "decision": "approve"})
    staged.refresh_from_db()
    assert staged.status == StagedCall.Status.EXECUTED and not Task.objects.filter(pk=task.pk).exists()


def test_standing_approvals_are_listed_and_revoked_on_the_page(web, anna, task):
    staged = stage(anna, DELETE, {"task_id": task.pk}, run=waiting_run(anna))
    web.post(f"/freigaben/{staged.pk}/entscheiden/", {"decision": "approve_alike", "days": "30"})
    row = StandingApproval.objects.get()
    assert (row.user, row.tool, row.operation, row.scope_kind) == (anna, DELETE, "delete", "")
    html = web.get("/freigaben/").content.decode()
    assert f'data-record-id="standing-{row.pk}"' in html
    web.post(f"/freigaben/dauerfreigaben/{row.pk}/widerrufen/")
    row.refresh_from_db()
    assert row.revoked_at is not None and row.revoked_by == anna
    assert f'data-record-id="standing-{row.pk}"' not in web.get("/freigaben/").content.decode()


def test_the_rules_page_is_for_admins(web, client, boss):
    assert web.get("/freigaben/richtlinien/").status_code == 403
    client.force_login(boss)
    page = client.get("/freigaben/richtlinien/")
    html = page.content.decode()
    assert page.status_code == 200 and f'name="{DELETE}:delete"' in html and "erlaubt" in html


def test_the_rules_page_saves_through_the_policy_service(client, boss):
    from apps.approvals.models import Policy

    client.force_login(boss)
    client.post("/freigaben/richtlinien/", {f"{DELETE}:delete": "allowed"})
    row = Policy.objects.get(tool=DELETE, group=None)
    assert (row.allowed, row.forbidden) == (["delete"], [])
    client.post("/freigaben/richtlinien/", {f"{DELETE}:delete": "ask"})
    assert not Policy.objects.filter(tool=DELETE).exists()


def test_a_group_rule_only_forbids(client, boss):
    from django.contrib.auth.models import Group

    from apps.approvals.models import Policy

    trainees = Group.objects.create(name="Azubis")
    client.force_login(boss)
    client.post(f"/freigaben/richtlinien/?gruppe={trainees.pk}", {f"{DELETE}:delete": "allowed"})
    assert not Policy.objects.exists()  # a group row never allows
    client.post(f"/freigaben/richtlinien/?gruppe={trainees.pk}", {f"{DELETE}:delete": "forbidden"})
    row = Policy.objects.get(tool=DELETE)
    assert (row.group, row.forbidden, row.allowed) == (trainees, ["delete"], [])
