"""The cuts behind the request-cost ceilings (tests/core/test_request_cost.py), each held to its
query count and checked for the answer it must still give: the tool catalog kept per visible set,
the bell in one query, a page's total read off a page that is not full, the client page's sections
reusing the page's client, the Kanban columns counted with their statuses."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from apps.accounts.principal import Principal
from apps.apikeys import services as apikeys
from apps.clients import services as clients
from apps.clients.contracts import ClientCreate
from apps.core.db.paging import total_of
from apps.core.inputs import build
from apps.notifications import services as notifications
from apps.tasks import services as tasks
from apps.tasks.contracts import BoardCreate, TaskCreate, TaskFilter
from apps.tasks.models import Task, TaskStatus
from apps.tools import gating, registry
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def statuses():
    for i, (key, name, category) in enumerate(
        [
            ("offen", "Offen", "open"),
            ("in_arbeit", "In Arbeit", "in_progress"),
            ("erledigt", "Erledigt", "done"),
        ]
    ):
        TaskStatus.objects.get_or_create(
            key=key, defaults={"name": name, "category": category, "sort_order": i}
        )


@pytest.fixture
def chef():
    return UserFactory(role="admin", email="chef@kanzlei.example")


def key_client(user) -> Client:
    _, key = apikeys.create_api_key(Principal.for_user(user), name="k", scopes=["tools:execute"])
    return Client(HTTP_AUTHORIZATION=f"Bearer {key}")


def catalog_names(client) -> list[str]:
    response = client.get("/api/v1/tools")
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "application/json"
    return [t["name"] for t in json.loads(response.content)["tools"]]


# --- GET /api/v1/tools ------------------------------------------------------------------------
def test_the_catalog_is_the_same_document_whether_kept_or_built(chef):
    from apps.tools import api, catalog
    from apps.tools import contracts as c
    from apps.tools.context import ToolContext

    client = key_client(chef)
    first = client.get("/api/v1/tools").content
    assert client.get("/api/v1/tools").content == first  # from the process's memo
    ctx = ToolContext(principal=Principal.for_user(chef), surface="api", scopes=frozenset({"tools:execute"}))
    built = {"tools": [catalog.describe(t) for t in catalog.visible_tools(ctx)]}
    assert json.loads(first) == c.ToolCatalog.model_validate(built).model_dump(mode="json")
    api.forget_catalogs()
    assert client.get("/api/v1/tools").content == first


def test_the_kept_catalog_follows_the_callers_rights(chef):
    full = catalog_names(key_client(chef))
    gated = next(registry.get(name) for name in full if registry.get(name).is_gated)
    gating.set_installed(gated.module, False)
    without = catalog_names(key_client(chef))
    assert gated.name not in without
    assert not {name for name in without if registry.get(name).module == gated.module}
    gating.set_installed(gated.module, True)
    assert gated.name in catalog_names(key_client(chef))


def test_a_registry_change_is_a_new_catalog(chef, monkeypatch):
    from dataclasses import replace

    client = key_client(chef)
    name = catalog_names(client)[0]
    changed = replace(registry.get(name), description="Eine neue Beschreibung.")
    monkeypatch.setitem(registry._REGISTRY, name, changed)
    tools = json.loads(client.get("/api/v1/tools").content)["tools"]
    assert next(t for t in tools if t["name"] == name)["description"] == "Eine neue Beschreibung."


def test_the_browsable_api_still_renders_the_catalog(chef):
    response = key_client(chef).get("/api/v1/tools", HTTP_ACCEPT="text/html")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert "clapilot_context_status" in response.content.decode()


# --- the bell ---------------------------------------------------------------------------------
def test_the_bell_is_one_query_and_counts_what_it_does_not_show(chef):
    principal = Principal.for_user(chef)
    with CaptureQueriesContext(connection) as empty:
        assert notifications.bell(principal) == {"unread": 0, "items": []}
    assert len(empty) == 1
    sent = [
        notifications.notify(chef, kind="system", title=f"N{i}") for i in range(notifications.BELL_ITEMS + 3)
    ]
    notifications.mark_read(principal, [sent[-1].pk, sent[0].pk])
    notifications.notify(UserFactory(), kind="system", title="someone else's")
    with CaptureQueriesContext(connection) as queries:
        bell = notifications.bell(principal)
    assert len(queries) == 1
    assert bell["unread"] == len(sent) - 2 == notifications.unread_count(principal)
    assert [n.pk for n in bell["items"]] == [n.pk for n in reversed(sent)][: notifications.BELL_ITEMS]
    notifications.mark_all_read(principal)
    bell = notifications.bell(principal)
    assert bell["unread"] == 0 and len(bell["items"]) == notifications.BELL_ITEMS


# --- totals read off the page ----------------------------------------------------------------
def test_a_total_is_counted_only_when_the_page_cannot_tell_it(chef, statuses):
    principal = Principal.for_user(chef)
    board = tasks.create_board(principal, build(BoardCreate, name="Kanzlei"))
    for i in range(5):
        tasks.create_task(principal, build(TaskCreate, title=f"A{i}", board_id=board.pk))
    qs = Task.objects.all()
    cases = [
        # (offset, limit, counted?)
        (0, 10, False),  # not full: all there is
        (2, 10, False),  # not full past the start: offset + shown
        (0, 5, True),  # full: there may be more
        (0, 3, True),
        (10, 5, True),  # empty past the end: the total is below the offset
    ]
    for offset, limit, counted in cases:
        page = list(qs.order_by("id")[offset : offset + limit])
        with CaptureQueriesContext(connection) as queries:
            assert total_of(qs, page, offset=offset, limit=limit) == 5
        assert len(queries) == (1 if counted else 0), (offset, limit)
    assert total_of(Task.objects.none(), [], offset=0, limit=10) == 0
    for limit, offset, queries_expected in [(2, 0, 4), (10, 0, 4), (2, 4, 4), (10, 4, 4), (5, 10, 3)]:
        # the visible boards, the ids with the total, the rows, their people (`records_by_ids`);
        # past the end a COUNT and no rows
        with CaptureQueriesContext(connection) as queries:
            found, total = tasks.list_tasks(principal, TaskFilter(limit=limit, offset=offset))
        assert total == 5 and len(found) == min(limit, max(0, 5 - offset)), (limit, offset)
        assert len(queries) == queries_expected, (limit, offset)
    found, total = tasks.list_tasks(principal, TaskFilter(query="A3"))
    assert [t.title for t in found] == ["A3"] and total == 1
    assert tasks.list_tasks(principal, TaskFilter(query="nichts dergleichen")) == ([], 0)


# --- the client page --------------------------------------------------------------------------
def test_the_client_pages_sections_reuse_its_client(chef, statuses):
    principal = Principal.for_user(chef)
    mandant = clients.create_client(principal, build(ClientCreate, name="Muster GmbH", kind="company"))
    page_client = clients.get_client(principal, mandant.pk)
    with CaptureQueriesContext(connection) as outside:
        clients.resolve_client(principal, mandant.pk)
    assert len(outside) == 1
    with clients.shown(principal, page_client), CaptureQueriesContext(connection) as inside:
        assert clients.resolve_client(principal, str(mandant.pk)) is page_client
        assert clients.get_client(principal, mandant.pk) is page_client
    assert len(inside) == 0
    other = clients.create_client(principal, build(ClientCreate, name="Andere AG", kind="company"))
    someone = Principal.for_user(UserFactory(role="admin"))
    with clients.shown(principal, page_client), CaptureQueriesContext(connection) as not_it:
        assert clients.resolve_client(principal, other.pk).pk == other.pk  # another id: read
        assert clients.resolve_client(someone, mandant.pk).pk == mandant.pk  # another caller: read
        assert clients.get_client(principal, mandant.pk, for_update=True).pk == mandant.pk
    assert len(not_it) == 3
    with pytest.raises(clients.ClientNotFound), clients.shown(principal, page_client):
        clients.resolve_client(principal, "x")


def test_the_client_page_shows_its_linked_rows_in_a_fixed_number_of_queries(client, chef, statuses):
    principal = Principal.for_user(chef)
    mandant = clients.create_client(principal, build(ClientCreate, name="Muster GmbH", kind="company"))
    board = tasks.create_board(principal, build(BoardCreate, name="Kanzlei"))
    client.force_login(chef)
    url = f"/mandanten/{mandant.pk}/"
    client.get(url)
    with CaptureQueriesContext(connection) as few:
        client.get(url)
    for i in range(60):  # more than the section shows (LINKED_TASKS): counted then
        tasks.create_task(
            principal, build(TaskCreate, title=f"Für Muster {i}", board_id=board.pk, client_id=mandant.pk)
        )
    with CaptureQueriesContext(connection) as many:
        html = client.get(url).content.decode()
    assert "Für Muster 0" in html
    # The tasks' rows, one query per kind of row they name (people, clients: `records_by_ids`),
    # and their count once the list is full; never one per task.
    assert len(many) <= len(few) + 4


# --- the Kanban board -------------------------------------------------------------------------
def test_the_board_counts_each_column_with_its_status(chef, statuses):
    principal = Principal.for_user(chef)
    board = tasks.create_board(principal, build(BoardCreate, name="Kanzlei"))
    other = tasks.create_board(principal, build(BoardCreate, name="Andere"))
    for i in range(7):
        tasks.create_task(principal, build(TaskCreate, title=f"A{i}", board_id=board.pk))
    tasks.create_task(principal, build(TaskCreate, title="elsewhere", board_id=other.pk))
    with CaptureQueriesContext(connection) as queries:
        _, columns = tasks.board_columns(principal, board.pk, TaskFilter(), per_column=3)
    assert len(queries) == 3  # the board, the statuses with their counts, the cards
    by_key = {c["status"].key: c for c in columns}
    assert [c["status"].key for c in columns] == ["offen", "in_arbeit", "erledigt"]
    assert by_key["offen"]["total"] == 7 and len(by_key["offen"]["tasks"]) == 3
    assert by_key["erledigt"]["total"] == 0 and by_key["erledigt"]["tasks"] == []
    with CaptureQueriesContext(connection) as none:
        assert all(t.status.key == "offen" and t.board.pk == board.pk for t in by_key["offen"]["tasks"])
    assert len(none) == 0
    with CaptureQueriesContext(connection) as read_board:  # the page passes the board it listed
        again, same = tasks.board_columns(principal, board, TaskFilter(), per_column=3)
    assert len(read_board) == 2 and again is board
    assert [c["total"] for c in same] == [c["total"] for c in columns]


# --- the Fristen summary ----------------------------------------------------------------------
def test_the_fristen_summary_is_one_query_and_counts_each_frist_once(chef):
    import datetime as dt

    from django.utils import timezone

    from apps.calendar import fristen
    from tests.notifications.fristen_rows import frist

    today = timezone.localdate()
    frist(
        "Heute",
        today,
        responsible=chef,
        pre=[today, today - dt.timedelta(days=2), today - dt.timedelta(days=1)],
    )
    frist("Überfällig", today - dt.timedelta(days=3), responsible=chef, pre=[today], criticality="critical")
    frist("Später", today + dt.timedelta(days=40), responsible=chef, pre=[today + dt.timedelta(days=30)])
    frist("Erledigt", today, responsible=chef, status="done", pre=[today])
    principal = Principal.for_user(chef)
    with CaptureQueriesContext(connection) as queries:
        counts = fristen.summary(principal, fristen.FristenFilter(person_id=chef.pk))
    assert len(queries) == 1
    assert counts["open"] == 3 and counts["overdue"] == 1 and counts["critical"] == 1
    assert counts["pre_deadlines_today"] == 2  # the open Fristen's Vorfristen due today
    assert counts["this_week"] == 1


# --- a new task -------------------------------------------------------------------------------
def test_a_new_task_answers_as_it_reads_back_without_reading_it_back(chef, statuses):
    import datetime as dt

    from apps.clients.models import Case
    from apps.tasks.contracts import TaskOut

    principal = Principal.for_user(chef)
    board = tasks.create_board(principal, build(BoardCreate, name="Kanzlei"))
    mandant = clients.create_client(principal, build(ClientCreate, name="Muster GmbH", kind="company"))
    akte = Case.objects.create(reference="AZ-7", subject="Einspruch", client=mandant)
    colleague = UserFactory(full_name="Carla Kollegin")
    full = build(
        TaskCreate,
        title="Belege anfordern",
        board_id=board.pk,
        assignee_id=colleague.pk,
        case_id=akte.pk,
        due_date=dt.date(2031, 5, 6),
        description="bis Freitag",
    )
    for data in (full, build(TaskCreate, title="Nur ein Titel", board_id=board.pk)):
        created = tasks.create_task(principal, data)
        with CaptureQueriesContext(connection) as answering:
            answer = TaskOut.of(created).model_dump(mode="json")
        assert len(answering) == 0
        assert answer == TaskOut.of(tasks.get_task(principal, created.pk)).model_dump(mode="json")
    assert answer["assignee"] is None and answer["case"] is None


# --- the dashboard's Fristen cards ------------------------------------------------------------
def test_the_overdue_and_week_cards_come_from_one_query_each_in_due_order(chef):
    import datetime as dt

    from django.utils import timezone

    from apps.dashboard import today as heute
    from tests.notifications.fristen_rows import frist

    day = timezone.localdate()
    late = [frist(f"Ü{i}", day - dt.timedelta(days=i), responsible=chef) for i in range(1, 11)]
    due = [frist(f"H{i}", day, responsible=chef) for i in range(10)]
    frist("Nächste Woche", day + dt.timedelta(days=8), responsible=chef)
    principal = Principal.for_user(chef)
    with CaptureQueriesContext(connection) as queries:
        overdue, week = heute._due_cards(principal, day, day + dt.timedelta(days=6 - day.weekday()))
    assert len(queries) == 1
    assert [e.title for e in overdue] == [e.title for e in reversed(late)][: heute.SHOWN]
    assert [e.title for e in week] == [e.title for e in due][: heute.SHOWN]
    assert overdue[0].late == 10 and week[0].days == 0 and week[0].late == 0


# --- a tool call over REST --------------------------------------------------------------------
def test_a_rest_tool_call_reads_the_active_flag_once_and_a_run_each_call(chef, statuses):
    from apps.tools.context import ToolContext
    from apps.tools.dispatcher import dispatch

    client = key_client(chef)
    body = json.dumps({"tool": "aufgaben_list_tasks", "arguments": {"limit": 5}})
    call = lambda: client.post("/api/v1/tools/execute", body, content_type="application/json")  # noqa: E731
    assert call().status_code == 200
    with CaptureQueriesContext(connection) as queries:
        assert call().json()["ok"] is True
    assert not [q for q in queries.captured_queries if q["sql"].startswith("SELECT is_active")]
    # A run's context is not checked by a request: each call reads the flag, and a disabled
    # person's next call is refused.
    ctx = ToolContext(principal=Principal.for_user(chef))
    assert dispatch("aufgaben_list_tasks", {"limit": 5}, ctx).ok
    type(chef).objects.filter(pk=chef.pk).update(is_active=False)
    assert dispatch("aufgaben_list_tasks", {"limit": 5}, ctx).code == "forbidden"
    assert call().status_code == 401  # and the key of a disabled creator is refused at once
