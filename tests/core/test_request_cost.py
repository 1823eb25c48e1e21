"""What one signed-in request costs on the routes of the mixed load (bench/load.py) and the pages
people wait for under it: database queries per request, counted with CaptureQueriesContext after a
warm-up request (the cost of every later request), held under ceilings so the shared request path
(middleware, session, principal, navigation and its badges, context processors) cannot grow back.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import time
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from apps.accounts.principal import Principal
from apps.apikeys import services as apikeys
from apps.clients import services as clients
from apps.clients.contracts import ClientCreate
from apps.core.inputs import build
from apps.tasks import services as tasks
from apps.tasks.contracts import BoardCreate, TaskCreate
from apps.tasks.models import TaskStatus
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def badge_memo(settings):
    """On as in production (pytest turns it off for the other apps' query-count tests)."""
    settings.CLAPILOT_BADGE_MEMO = os.environ.get("REQUEST_COST_MEMO", "1") == "1"  # 0: the report before


@pytest.fixture
def office(client):
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
    user = UserFactory(role="admin")
    principal = Principal.for_user(user)
    board = tasks.create_board(principal, build(BoardCreate, name="Kanzlei"))
    for i in range(5):
        tasks.create_task(principal, build(TaskCreate, title=f"Aufgabe {i}", board_id=board.pk))
    mandant = clients.create_client(principal, build(ClientCreate, name="Muster GmbH", kind="company"))
    _, key = apikeys.create_api_key(principal, name="last", scopes=["tools:execute", "notifications:read"])
    _, token = apikeys.issue_device_token(user, "last")
    client.force_login(user)
    return {"user": user, "key": key, "token": token, "client_id": mandant.pk, "board": board.pk}


@pytest.fixture
def api_client():
    """REST and tool calls as the load sends them: a key or token, no session cookie."""
    from django.test import Client

    return Client()


def routes(office):
    key = {"HTTP_AUTHORIZATION": f"Bearer {office['key']}"}
    token = {"HTTP_AUTHORIZATION": f"Token {office['token']}"}
    tool = json.dumps({"tool": "aufgaben_list_tasks", "arguments": {"limit": 10}})
    create = json.dumps(
        {"tool": "aufgaben_create_task", "arguments": {"title": "Last", "board_id": office["board"]}}
    )
    return {
        "page /": ("get", "/", {}, None),
        "page /aufgaben/": ("get", "/aufgaben/", {}, None),
        "page /kalender/fristen/": ("get", "/kalender/fristen/", {}, None),
        "page /mandanten/<id>/": ("get", f"/mandanten/{office['client_id']}/", {}, None),
        "REST /api/v1/tools": ("get", "/api/v1/tools", key, None),
        "REST /api/v1/notifications": ("get", "/api/v1/notifications", key, None),
        "REST /api/v1/tasks/boards": ("get", "/api/v1/tasks/boards", token, None),
        "REST /api/v1/tasks/": ("get", "/api/v1/tasks/?limit=20", token, None),
        "tool aufgaben_list_tasks": ("post", "/api/v1/tools/execute", key, tool),
        "tool aufgaben_create_task": ("post", "/api/v1/tools/execute", key, create),
    }


def pick(name, client, api_client):
    return client if name.startswith("page") else api_client


def measure(client, method, path, headers, body, times=20):
    def call():
        if method == "post":
            return client.post(path, body, content_type="application/json", **headers)
        return client.get(path, **headers)

    with CaptureQueriesContext(connection):
        assert call().status_code == 200  # warm: first-use caches filled
    with CaptureQueriesContext(connection) as queries:
        response = call()
    assert response.status_code == 200, (path, response.content[:300])
    sql = [q["sql"] for q in queries.captured_queries]
    return sql, cost(call, times) if times else (0.0, 0.0)


def cost(call, times: int = 20) -> tuple[float, float]:
    """Median CPU and wall milliseconds of `times` calls (CPU: this process only, the database's
    work is in the wall figure and the query count)."""
    cpu, wall = [], []
    for _ in range(times):
        started_cpu, started_wall = time.process_time(), time.perf_counter()
        call()
        cpu.append((time.process_time() - started_cpu) * 1000)
        wall.append((time.perf_counter() - started_wall) * 1000)
    return statistics.median(cpu), statistics.median(wall)


@pytest.mark.skipif(not os.environ.get("REQUEST_COST_REPORT"), reason="a report, not a test")
def test_report(client, api_client, office):
    only = os.environ.get("REQUEST_COST_ROUTES", "")  # a part of the route names: only those
    for name, (method, path, headers, body) in routes(office).items():
        if only and only not in name:
            continue
        sql, (cpu, wall) = measure(pick(name, client, api_client), method, path, headers, body)
        print(f"\n{name}: {len(sql)} queries, {cpu:.1f} ms CPU, {wall:.1f} ms wall (medians of 20)")
        if os.environ.get("REQUEST_COST_REPORT") == "sql":
            for q in sql:
                print("   ", q[:240])
        if os.environ.get("REQUEST_COST_REPORT") == "profile":
            profile(pick(name, client, api_client), method, path, headers, body)


def profile(client, method, path, headers, body):
    """The functions one request spends its CPU in (REQUEST_COST_REPORT=profile)."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(5):
        if method == "post":
            client.post(path, body, content_type="application/json", **headers)
        else:
            client.get(path, **headers)
    profiler.disable()
    pstats.Stats(profiler).sort_stats(os.environ.get("REQUEST_COST_SORT", "cumulative")).print_stats(
        int(os.environ.get("REQUEST_COST_TOP", "40"))
    )


# Queries of a warm request, measured on this office (5 tasks, one client, nothing else). Pages:
# session, user, the bell (1), the live cursor shared with the navigation's badges (1) plus the
# page's own; the badges are counted again only after a live event (see the tests below). Before
# the cuts of tests/core/test_cheaper_requests.py: 20, 11, 11, 24, 2, 3, 2, 5, 10, 17.
CEILINGS = {
    "page /": 13,
    "page /aufgaben/": 8,
    "page /kalender/fristen/": 10,
    "page /mandanten/<id>/": 15,
    "REST /api/v1/tools": 2,
    "REST /api/v1/notifications": 3,
    "REST /api/v1/tasks/boards": 2,
    "REST /api/v1/tasks/": 5,  # the rows' people in a query of their own (`records_by_ids`)
    "tool aufgaben_list_tasks": 9,
    "tool aufgaben_create_task": 14,
}


def test_query_ceilings_per_route(client, api_client, office, monkeypatch):
    from apps.core.surfaces import navigation

    # The badges' memo entry of the first page must outlive the test on a slow machine (it is
    # counted anew after BADGE_TTL, which would land in whichever route is measured then).
    monkeypatch.setattr(navigation, "BADGE_TTL", 3600.0)
    counts, statements = {}, {}
    for name, (method, path, headers, body) in routes(office).items():
        sql, _ = measure(pick(name, client, api_client), method, path, headers, body, times=0)
        counts[name], statements[name] = len(sql), [q[:100] for q in sql]
    over = {name: (n, CEILINGS[name]) for name, n in counts.items() if n > CEILINGS[name]}
    assert not over, f"queries above the ceiling (measured, ceiling): {over} {[statements[n] for n in over]}"


def page_queries(client, path="/aufgaben/"):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    assert response.status_code == 200
    return response.content.decode(), len(queries)


def approvals_badge(html):
    match = re.search(r'data-nav-badge="approvals"[^>]*>(\d*)<', html)
    assert match, "the approvals entry carries its badge"
    return int(match.group(1))


def stage_call(user):
    from apps.approvals.decisions import announce_staged
    from apps.approvals.models import StagedCall

    staged = StagedCall.objects.create(
        tool="aufgaben_delete_task",
        operation="delete",
        arguments={"task_id": 1},
        arguments_digest="x",
        preview="Löscht etwas",
        user=user,
        expires_at=timezone.now() + timedelta(hours=1),
    )
    announce_staged(staged)
    return staged


def test_badges_are_counted_once_until_an_event_then_anew(client, office):
    from apps.mutations.services import record_mutation

    html, first = page_queries(client)
    assert approvals_badge(html) == 0
    html, warm = page_queries(client)
    assert warm < first  # the badge counts came from the process's memo
    record_mutation(audience="all", topic="aufgaben.task", refresh_topic="aufgaben")
    html, other_topic = page_queries(client)
    assert other_topic == warm + 1  # one query finds no event of a badge's topic: counts kept
    stage_call(office["user"])  # records the live event the page's badge listens to
    html, after_event = page_queries(client)
    assert approvals_badge(html) == 1
    assert after_event == first + 1  # that query, then counted anew


def test_badges_are_counted_anew_after_the_ttl(client, office, monkeypatch):
    from apps.approvals.models import StagedCall
    from apps.core.surfaces import navigation

    page_queries(client)
    # A change no event announces (here: a row written behind the services' back).
    StagedCall.objects.create(
        tool="t",
        operation="delete",
        arguments={},
        arguments_digest="x",
        preview="p",
        user=office["user"],
        expires_at=timezone.now() + timedelta(hours=1),
    )
    assert approvals_badge(page_queries(client)[0]) == 0  # within the TTL: the memo
    monkeypatch.setattr(navigation, "BADGE_TTL", 0.0)
    assert approvals_badge(page_queries(client)[0]) == 1


def test_badges_endpoint_always_counts_anew(client, office):
    from apps.approvals.models import StagedCall

    page_queries(client)
    StagedCall.objects.create(
        tool="t",
        operation="delete",
        arguments={},
        arguments_digest="x",
        preview="p",
        user=office["user"],
        expires_at=timezone.now() + timedelta(hours=1),
    )
    assert client.get(reverse("navigation-badges")).json()["approvals"] == 1


def test_a_permission_change_shows_on_the_next_page(client, office):
    user = office["user"]
    assert 'data-nav-badge="review"' in page_queries(client)[0]
    user.role = "staff"
    user.save(update_fields=["role"])
    html, _ = page_queries(client)
    assert 'data-nav-badge="review"' not in html  # visibility is never kept across requests
    user.role = "admin"
    user.save(update_fields=["role"])
    assert 'data-nav-badge="review"' in page_queries(client)[0]


def test_a_new_notification_shows_on_the_next_page(client, office):
    from apps.notifications.services import notify

    before, _ = page_queries(client)
    notify(office["user"], kind="system", title="Frist läuft ab")
    after, _ = page_queries(client)
    assert "Frist läuft ab" in after and "Frist läuft ab" not in before


def test_the_live_cursor_is_the_navigations_event_id(client, office):
    from apps.mutations.services import head_id

    stage_call(office["user"])
    html, _ = page_queries(client)
    assert f"connectMutations({{ after: {head_id()} }})" in html


CALLS: list[int] = []


def counting_badge(user) -> int:
    CALLS.append(user.pk)
    return len(CALLS)


def test_the_memo_is_kept_until_an_event_of_a_badges_topic(office):
    from apps.core.plugins import NavEntry
    from apps.core.surfaces import navigation
    from apps.mutations.services import head_id, record_mutation

    def event(**fields) -> int:
        record_mutation(audience="all", **fields)
        return head_id()

    user = office["user"]
    entry = NavEntry(
        "probe", "Probe", "tasks:index", badge=f"{__name__}.counting_badge", badge_topics=("probe",)
    )
    entries = [entry]
    CALLS.clear()
    head = event(topic="aufgaben.task")
    assert navigation.badge_counts(user, entries, token=head) == {"probe": 1}
    assert navigation.badge_counts(user, entries, token=head) == {"probe": 1}  # kept
    head = event(topic="aufgaben.task", refresh_topic="aufgaben")
    assert navigation.badge_counts(user, entries, token=head) == {"probe": 1}  # another topic's event
    head = event(topic="probe.item")
    assert navigation.badge_counts(user, entries, token=head) == {"probe": 2}  # below the badge's topic
    assert navigation.badge_counts(user, entries, token=head) == {"probe": 2}
    head = event(topic="elsewhere", refresh_topic="probe")
    assert navigation.badge_counts(user, entries, token=head) == {"probe": 3}  # its refresh topic
    head = event(topic="elsewhere", ui_actions=[{"type": "reload_topic", "topic": "aufgaben"}])
    assert navigation.badge_counts(user, entries, token=head) == {"probe": 3}  # another topic's reload
    head = event(topic="elsewhere", ui_actions=[{"type": "reload_topic", "topic": "probe.list"}])
    assert navigation.badge_counts(user, entries, token=head) == {"probe": 4}  # a reload of the topic
    head = event(topic="probes")  # a topic that only starts with the same letters
    assert navigation.badge_counts(user, entries, token=head) == {"probe": 4}
    user.role = "staff"
    assert navigation.badge_counts(user, entries, token=head) == {"probe": 5}  # another role
    user.is_active = False
    assert navigation.badge_counts(user, entries, token=head) == {"probe": 6}
    assert navigation.badge_counts(user, entries) == {"probe": 7}  # no token: always counted


def test_an_event_committed_late_below_the_counted_head_is_not_missed(office):
    """Ids are taken at insert, rows appear at commit: an event of the badge's topic with an id
    below the head the count saw (its transaction still open then) still makes the next page
    count anew."""
    from apps.core.plugins import NavEntry
    from apps.core.surfaces import navigation
    from apps.mutations.models import MutationEvent
    from apps.mutations.services import head_id, record_mutation

    user = office["user"]
    entries = [
        NavEntry("probe", "Probe", "tasks:index", badge=f"{__name__}.counting_badge", badge_topics=("probe",))
    ]
    CALLS.clear()
    record_mutation(audience="all", topic="aufgaben.task")
    late = record_mutation(audience="all", topic="probe")
    record_mutation(audience="all", topic="aufgaben.task")
    head = head_id()
    hidden = MutationEvent.objects.filter(pk=late.pk)
    row = hidden.values().get()
    hidden.delete()  # not committed yet when the page counts
    assert navigation.badge_counts(user, entries, token=head) == {"probe": 1}
    MutationEvent.objects.create(**row)  # commits now, with its older id
    record_mutation(audience="all", topic="aufgaben.task")
    assert navigation.badge_counts(user, entries, token=head_id()) == {"probe": 2}
