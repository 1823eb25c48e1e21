"""Dashboard "Heute": the person's figures equal the Fristenkontrolle page's (following each
figure's own link), every item links to its page, live data only, queries constant in rows, and
the prompt box starts a chat."""

import datetime as dt
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from apps.accounts.principal import Principal
from apps.agent.models import ChatSession, Message
from apps.calendar import fristen
from apps.calendar.contracts import EventCreate
from apps.core.inputs import build
from apps.documents.contracts import DocumentCreate
from apps.notifications.services import notify
from apps.tasks.models import Board, Task
from tests.factories import ClientFactory
from tests.notifications.fristen_rows import frist

pytestmark = pytest.mark.django_db


def figures(html: str) -> dict[str, int]:
    found = re.findall(r'href="([^"]*)" data-figure="(\w+)">\s*<strong>(\d+)</strong>', html)
    return {name: (int(value), href.replace("&amp;", "&")) for href, name, value in found}


@pytest.fixture
def fristen_of_anna(anna, ben):
    today = timezone.localdate()
    meier = ClientFactory(name="Meier GmbH", client_number="10003")
    rows = [
        frist("Überfällig 1", today - dt.timedelta(days=3), responsible=anna, client=meier),
        frist("Überfällig als Vertreterin", today - dt.timedelta(days=1), responsible=ben, deputy=anna),
        frist("Heute", today, responsible=anna, pre=[today - dt.timedelta(days=5)]),
        frist(
            "Später",
            today + dt.timedelta(days=30),
            responsible=anna,
            pre=[today, today + dt.timedelta(days=20)],
        ),
        frist("Erledigt", today - dt.timedelta(days=2), responsible=anna, status="done"),
        frist("Bens eigene", today, responsible=ben),
    ]
    sunday = today + dt.timedelta(days=6 - today.weekday())
    if sunday > today:
        rows.append(frist("Diese Woche", sunday, responsible=ben, deputy=anna, criticality="critical"))
    return rows


def test_figures_equal_the_fristen_page_for_the_same_person(client, anna, fristen_of_anna):
    client.force_login(anna)
    shown = figures(client.get(reverse("dashboard")).content.decode())
    assert set(shown) == {"overdue", "this_week", "pre_deadlines_today", "open", "unread"}
    summary = fristen.summary(Principal.for_user(anna), fristen.FristenFilter(person_id=anna.pk))
    assert shown["overdue"][0] == summary["overdue"] == 2
    assert shown["open"][0] == summary["open"]
    assert shown["this_week"][0] == summary["this_week"]
    assert shown["pre_deadlines_today"][0] == summary["pre_deadlines_today"] == 1
    # each figure links to the Fristenkontrolle page filtered the same way, which counts the same
    for name in ("overdue", "this_week", "open"):
        value, href = shown[name]
        page = client.get(href)
        assert page.status_code == 200, href
        assert page.context["total"] == value, (name, href)
    assert len(client.get(shown["open"][1]).context["vorfristen_today"]) == shown["pre_deadlines_today"][0]


def test_cards_list_the_persons_items_with_links(client, anna, ben, fristen_of_anna, statuses):
    today = timezone.localdate()
    board = Board.objects.create(name="Kanzlei")
    task = Task.objects.create(
        board=board, status=statuses["offen"], title="USt-Voranmeldung", assignee=anna, due_date=today
    )
    Task.objects.create(
        board=board, status=statuses["erledigt"], title="Erledigt", assignee=anna, due_date=today
    )
    Task.objects.create(
        board=board, status=statuses["offen"], title="Bens Aufgabe", assignee=ben, due_date=today
    )
    Task.objects.create(
        board=board,
        status=statuses["offen"],
        title="Nächsten Monat",
        assignee=anna,
        due_date=today + dt.timedelta(days=40),
    )
    note = notify(anna, kind="reminder", title="Bitte Vollmacht prüfen", url="/kalender/")
    client.force_login(anna)
    html = client.get(reverse("dashboard")).content.decode()
    overdue, heute = fristen_of_anna[0], fristen_of_anna[2]
    assert f'href="/kalender/{overdue.pk}/">Überfällig 1' in html and "Meier GmbH" in html
    assert f'href="/kalender/{heute.pk}/">Heute' in html
    assert "Bens eigene" not in html and ">Erledigt<" not in html
    assert f'href="{reverse("tasks:detail", args=[task.pk])}">USt-Voranmeldung' in html
    assert "Bens Aufgabe" not in html and "Nächsten Monat" not in html
    assert f'href="/benachrichtigungen/{note.pk}/oeffnen/">Bitte Vollmacht prüfen' in html
    vorfristen = html[html.index('data-card="pre_deadlines"') :]
    vorfristen = vorfristen[: vorfristen.index("</section>")]
    later = fristen_of_anna[3]
    assert f'href="/kalender/{later.pk}/">Später' in vorfristen and vorfristen.count("Später") == 1
    assert ">Heute<" not in vorfristen  # its Vorfrist was last week
    assert "tiles" not in html  # the navigation tiles are gone
    assert 'id="today-prompt"' in html


def test_recent_documents_of_my_clients(client, anna, ben):
    from apps.documents import services as documents

    mine = ClientFactory(name="Meier GmbH", client_number="10003", responsible=anna)
    other = ClientFactory(name="Schulz KG", client_number="10004", responsible=ben)
    documents.create_markdown(
        Principal.for_user(anna),
        build(DocumentCreate, title="Bescheid Meier", content="x", client_ids=[mine.pk]),
    )
    documents.create_markdown(
        Principal.for_user(anna),
        build(DocumentCreate, title="Bescheid Schulz", content="x", client_ids=[other.pk]),
    )
    client.force_login(anna)
    html = client.get(reverse("dashboard")).content.decode()
    assert "Bescheid Meier" in html and "Bescheid Schulz" not in html


def test_counts_are_live_not_stored(client, anna):
    client.force_login(anna)
    today = timezone.localdate()
    assert figures(client.get(reverse("dashboard-today")).content.decode())["overdue"][0] == 0
    event = frist("Neu überfällig", today - dt.timedelta(days=1), responsible=anna)
    assert figures(client.get(reverse("dashboard-today")).content.decode())["overdue"][0] == 1
    event.status = "done"
    event.save(update_fields=["status"])
    assert figures(client.get(reverse("dashboard-today")).content.decode())["overdue"][0] == 0


def test_the_stale_fristen_widget_is_gone(client, anna):
    from apps.ops.demo import DemoOffice
    from apps.widgets import demo as widgets_demo

    widgets_demo.load(DemoOffice(admin=anna, password=None))
    client.force_login(anna)
    html = client.get(reverse("dashboard")).content.decode()
    assert "Offene Fristen" not in html and "Kanzlei-Hinweis" in html


def test_query_count_is_constant_in_rows(client, anna, ben, statuses):
    today = timezone.localdate()
    board = Board.objects.create(name="Kanzlei")

    def add(n, offset):
        for i in range(n):
            frist(
                f"Ü{offset + i}",
                today - dt.timedelta(days=1 + i % 5),
                responsible=anna,
                deputy=ben,
                pre=[today],
            )
            frist(
                f"W{offset + i}", today + dt.timedelta(days=i % 3), responsible=ben, deputy=anna, pre=[today]
            )
            Task.objects.create(
                board=board, status=statuses["offen"], title=f"T{offset + i}", assignee=anna, due_date=today
            )
            notify(anna, kind="reminder", title=f"N{offset + i}")

    client.force_login(anna)
    add(2, 0)
    client.get(reverse("dashboard"))
    with CaptureQueriesContext(connection) as few:
        assert client.get(reverse("dashboard")).status_code == 200
    add(30, 100)
    with CaptureQueriesContext(connection) as many:
        assert client.get(reverse("dashboard")).status_code == 200
    assert len(many) == len(few), [q["sql"][:120] for q in many.captured_queries]


def test_prompt_box_starts_a_chat(client, anna, fake_openai):
    from apps.core.services import set_setting
    from apps.llm.models import ModelConfig, Provider

    provider = Provider.objects.create(
        name="Fake", kind=Provider.Kind.OPENAI_COMPATIBLE, base_url=fake_openai.base_url, api_key="sk-test"
    )
    set_setting("default_chat_model", ModelConfig.objects.create(provider=provider, model_id="fake").pk)
    client.force_login(anna)
    response = client.post(reverse("dashboard-ask"), {"prompt": "Welche Fristen hat Meier offen?"})
    session = ChatSession.objects.get(user=anna)
    assert response["Location"] == reverse("chat:session", args=[session.pk])
    assert Message.objects.get(session=session).content == "Welche Fristen hat Meier offen?"


def test_prompt_without_a_model_says_so_and_leaves_no_empty_chat(client, anna):
    client.force_login(anna)
    response = client.post(reverse("dashboard-ask"), {"prompt": "Hallo"}, follow=True)
    assert not ChatSession.objects.exists()
    assert [str(m) for m in response.context["messages"]]
    empty = client.post(reverse("dashboard-ask"), {"prompt": "  "}, follow=True)
    assert not ChatSession.objects.exists() and [str(m) for m in empty.context["messages"]]


def test_anonymous_is_sent_to_login(client):
    assert client.get(reverse("dashboard"))["Location"].startswith("/accounts/login/")
    assert client.post(reverse("dashboard-ask"), {"prompt": "x"})["Location"].startswith("/accounts/login/")


def test_todays_appointments_are_the_persons_own(client, anna, ben):
    from apps.calendar import services as calendar

    now = timezone.localtime()
    noon = now.replace(hour=12, minute=0, second=0, microsecond=0)
    as_ben = Principal.for_user(ben)
    calendar.create_event(
        as_ben, build(EventCreate, title="Mit Anna", start=noon.isoformat(), attendee_ids=[anna.pk])
    )
    calendar.create_event(as_ben, build(EventCreate, title="Nur Ben", start=noon.isoformat()))
    calendar.create_event(
        Principal.for_user(anna),
        build(
            EventCreate,
            title="Annas Serie",
            start=(noon - dt.timedelta(days=7)).isoformat(),
            rrule="FREQ=DAILY;COUNT=30",
        ),
    )
    calendar.create_event(
        as_ben,
        build(
            EventCreate,
            title="Morgen mit Anna",
            start=(noon + dt.timedelta(days=1)).isoformat(),
            attendee_ids=[anna.pk],
        ),
    )
    client.force_login(anna)
    html = client.get(reverse("dashboard")).content.decode()
    card = html[html.index('data-card="appointments"') :]
    card = card[: card.index("</section>")]
    assert "Mit Anna" in card and "Annas Serie" in card and "12:00" in card
    assert "Nur Ben" not in card and "Morgen mit Anna" not in card


def test_the_bell_reuses_the_dashboards_notifications(client, anna):
    notify(anna, kind="reminder", title="Eins")
    client.force_login(anna)
    with CaptureQueriesContext(connection) as ctx:
        client.get(reverse("dashboard"))
    bell_queries = [q for q in ctx.captured_queries if "notifications_notification" in q["sql"]]
    assert len(bell_queries) == 1  # newest with the count, once for the page and its header bell


def test_a_fristen_card_the_summary_counted_empty_is_not_asked_for(anna, ben):
    """No open Frist: neither the due cards nor the Vorfristen are asked for."""
    from apps.dashboard import today as heute

    day = timezone.localdate()
    sunday = day + dt.timedelta(days=6 - day.weekday())
    principal = Principal.for_user(anna)
    mine = fristen.FristenFilter(person_id=anna.pk)
    with CaptureQueriesContext(connection) as nothing:
        counts = fristen.summary(principal, mine)
        assert heute._due_cards(principal, day, sunday, counts) == ([], [])
        assert heute._pre_deadlines(principal, day, sunday, counts)["rows"] == []
    assert len(nothing) == 1  # the summary alone
    late = [frist(f"Ü{i}", day - dt.timedelta(days=i), responsible=anna) for i in (3, 1, 2)]
    frist("Bens", day - dt.timedelta(days=1), responsible=ben)
    counts = fristen.summary(principal, mine)
    assert (counts["overdue"], counts["this_week"]) == (3, 0)
    with CaptureQueriesContext(connection) as one:
        overdue, week = heute._due_cards(principal, day, sunday, counts)
    assert len(one) == 1 and week == []
    assert [e.pk for e in overdue] == [late[0].pk, late[2].pk, late[1].pk]  # oldest first
    assert [e.late for e in overdue] == [3, 2, 1] and all(e.is_overdue for e in overdue)
    assert (overdue, week) == heute._due_cards(principal, day, sunday)  # the same rows, counts or not


def test_the_prompt_box_is_enabled_exactly_while_a_model_is_offered(client, anna):
    from apps.llm.models import ModelConfig, Provider

    client.force_login(anna)

    def disabled() -> bool:
        html = client.get(reverse("dashboard")).content.decode()
        box = html[html.index('id="today-prompt"') :]
        return "disabled" in box[: box.index("</textarea>")]

    assert disabled()
    provider = Provider.objects.create(
        name="P", kind=Provider.Kind.OPENAI_COMPATIBLE, base_url="http://127.0.0.1:9/v1", api_key="k"
    )
    model = ModelConfig.objects.create(provider=provider, model_id="m", probe_failed=True)
    assert disabled()  # a failed probe offers nothing
    ModelConfig.objects.filter(pk=model.pk).update(probe_failed=False)
    assert not disabled()
    Provider.objects.filter(pk=provider.pk).update(enabled=False)
    assert disabled()
