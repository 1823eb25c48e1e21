"""The Fristenkontrolle page: filters, order, today's Vorfristen, done/cancel inline (htmx and
plain forms), the Fristenbuch inline and exported, the admins' list, and constant query counts."""

import csv
import datetime as dt
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from apps.accounts.principal import Principal
from apps.calendar import fristen, lifecycle, services
from apps.calendar.contracts import DeadlineCancel, DeadlineComplete, EventCreate, EventUpdate
from apps.calendar.models import CalendarEvent
from apps.clients.models import Case
from apps.core.inputs import build
from apps.deadlines.compute import is_working_day
from tests.factories import ClientFactory, UserFactory

pytestmark = pytest.mark.django_db
URL = "/kalender/fristen/"


def _working(n: int) -> dt.date:
    """The n-th working day after today: distinct n give distinct days whatever today is (the
    first working day on or after today + n gave one Monday for 10, 11 and 12 on a Wednesday)."""
    day = dt.date.today()
    while n:
        day += dt.timedelta(days=1)
        n -= is_working_day(day)
    return day


@pytest.fixture
def make_frist(as_anna):
    def make(title="Frist", days=20, **values):
        return services.create_event(
            as_anna,
            build(
                EventCreate,
                title=title,
                kind="deadline",
                start=_working(days).isoformat(),
                all_day=True,
                **values,
            ),
        )

    return make


def _overdue(event, days=3):
    """Put a Frist in the past (services refuse nothing here: the row is moved directly)."""
    start = event.start - dt.timedelta(days=(event.start.date() - dt.date.today()).days + days)
    CalendarEvent.objects.filter(pk=event.pk).update(start=start, end=start + (event.end - event.start))


def _ids(response) -> list[int]:
    return [row["pk"] for row in response.context["rows"]]


def test_overdue_first_then_by_due_date_and_red(web, make_frist):
    later, soon, late = make_frist("später", 40), make_frist("bald", 10), make_frist("überfällig", 30)
    _overdue(late)
    response = web.get(URL)
    assert response.status_code == 200
    assert _ids(response) == [late.pk, soon.pk, later.pk]
    assert [row["overdue"] for row in response.context["rows"]] == [True, False, False]
    assert f'data-record-id="{late.pk}" class="is-critical overdue status-open"' in response.content.decode()


def test_filters_by_person_status_period_client_case_and_criticality(web, make_frist, anna, ben):
    meier = ClientFactory(name="Meier GmbH")
    case = Case.objects.create(reference="AZ-1", subject="Einspruch", client=meier)
    mine = make_frist("meine", 10)
    bens = make_frist("Bens", 11, responsible_id=ben.pk, deputy_id=anna.pk)
    other = make_frist("fremd", 12, responsible_id=ben.pk)
    with_case = make_frist("Akte", 50, case_id=case.pk, criticality="critical")
    done = make_frist("erledigt", 13)
    lifecycle.complete_deadline(Principal.for_user(anna), done.pk, build(DeadlineComplete, how="erledigt"))
    assert _ids(web.get(URL, {"who": "me"})) == [mine.pk, bens.pk, with_case.pk]
    assert _ids(web.get(URL, {"who": ben.pk})) == [bens.pk, other.pk]
    assert _ids(web.get(URL, {"status": "done"})) == [done.pk]
    assert set(_ids(web.get(URL, {"status": "all"}))) == {mine.pk, bens.pk, other.pk, with_case.pk, done.pk}
    period = {"from": _working(11).isoformat(), "to": _working(12).isoformat()}
    assert _ids(web.get(URL, period)) == [bens.pk, other.pk]
    assert _ids(web.get(URL, {"client": meier.pk})) == [with_case.pk]
    assert _ids(web.get(URL, {"case": case.pk})) == [with_case.pk]
    assert _ids(web.get(URL, {"criticality": "critical"})) == [with_case.pk]
    # Hand-edited links never fail: bad values are ignored.
    assert web.get(URL, {"who": "x", "status": "nope", "from": "31.12.", "case": "9" * 30}).status_code == 200


def test_empty_states(web, make_frist):
    assert "Keine offenen Fristen." in web.get(URL).content.decode()
    make_frist()
    response = web.get(URL, {"criticality": "critical"})
    assert (
        response.context["rows"] == []
        and "Keine Fristen passen zu diesen Filtern." in response.content.decode()
    )


def test_todays_vorfristen(web, make_frist):
    today = dt.date.today()
    frist = make_frist("Vorfrist heute", 10, pre_deadlines=[today.isoformat()])
    make_frist("ohne", 11, pre_deadlines=[])
    response = web.get(URL)
    assert [p.event_id for p in response.context["vorfristen_today"]] == [frist.pk]
    assert response.context["rows"][0]["vorfrist_today"] is True


def test_complete_inline_over_htmx_rerenders_the_same_list(web, make_frist, anna):
    frist = make_frist("Einspruch", 10)
    make_frist("andere", 11)
    response = web.post(
        reverse("calendar:deadline-complete", args=[frist.pk]),
        {"how": "Einspruch eingelegt", "link": "/dokumente/3/"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL=f"http://testserver{URL}?status=open",
    )
    assert response.status_code == 200
    frist.refresh_from_db()
    assert (frist.status, frist.done_by, frist.done_how) == ("done", anna, "Einspruch eingelegt")
    assert frist.pk not in _ids(response) and response.context["notice_failed"] is False


def test_a_refused_inline_action_says_why_and_changes_nothing(web, make_frist):
    frist = make_frist()
    url = reverse("calendar:deadline-cancel", args=[frist.pk])
    response = web.post(url, {"reason": " "}, HTTP_HX_REQUEST="true")
    assert response.status_code == 422 and response.context["notice_failed"] is True
    assert CalendarEvent.objects.get(pk=frist.pk).status == "open"
    lifecycle.cancel_deadline(Principal.for_user(frist.owner), frist.pk, build(DeadlineCancel, reason="weg"))
    again = web.post(
        reverse("calendar:deadline-complete", args=[frist.pk]), {"how": "x"}, HTTP_HX_REQUEST="true"
    )
    assert again.status_code == 422 and "gestrichen" in again.context["notice"]


def test_cancel_without_javascript_redirects_with_a_message(web, make_frist):
    frist = make_frist()
    response = web.post(
        reverse("calendar:deadline-cancel", args=[frist.pk]), {"reason": "Bescheid aufgehoben"}
    )
    assert response.status_code == 302
    assert CalendarEvent.objects.get(pk=frist.pk).cancel_reason == "Bescheid aufgehoben"


def test_the_history_fragment(web, make_frist):
    frist = make_frist()
    services.update_event(
        Principal.for_user(frist.owner),
        frist.pk,
        build(EventUpdate, **{"start": _working(30).isoformat()}, reason="verlängert"),
    )
    response = web.get(reverse("calendar:deadline-history", args=[frist.pk]))
    assert response.status_code == 200 and "verlängert" in response.content.decode()


@pytest.mark.parametrize("web_user", ["ben"], indirect=True)
def test_private_fristen_of_others_stay_invisible(web, make_frist):
    hidden = make_frist("privat", visibility="private")
    assert hidden.pk not in _ids(web.get(URL))
    assert web.get(reverse("calendar:deadline-history", args=[hidden.pk])).status_code == 404
    response = web.post(
        reverse("calendar:deadline-complete", args=[hidden.pk]), {"how": "x"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 422 and CalendarEvent.objects.get(pk=hidden.pk).status == "open"


def test_admins_see_fristen_whose_responsible_left(client, make_frist, admin_user, anna):
    leaving = UserFactory(full_name="Lena Weg")
    orphan = make_frist("verwaist", 10, responsible_id=leaving.pk)
    make_frist("versorgt", 11)
    leaving.is_active = False
    leaving.save()
    client.force_login(admin_user)
    response = client.get(URL)
    assert response.context["orphaned_count"] == 1
    assert _ids(client.get(URL, {"orphaned": "1"})) == [orphan.pk]
    services.update_event(
        Principal.for_user(anna), orphan.pk, build(EventUpdate, **{"responsible_id": anna.pk})
    )
    assert client.get(URL).context["orphaned_count"] == 0
    client.force_login(anna)  # staff: the filter is the admins'
    assert len(_ids(client.get(URL, {"orphaned": "1"}))) == 2


def test_pagination(web, make_frist, monkeypatch):
    from apps.calendar import fristen_views

    monkeypatch.setattr(fristen_views, "PAGE_SIZE", 2)
    made = [make_frist(f"F{i}", 10 + i) for i in range(5)]
    assert _ids(web.get(URL, {"page": 2})) == [made[2].pk, made[3].pk]
    last = web.get(URL, {"page": 99})
    assert _ids(last) == [made[4].pk] and last.context["total"] == 5


def test_query_count_is_constant_in_rows(web, make_frist, ben):
    meier = ClientFactory()
    make_frist("eins", 10, client_id=meier.pk, deputy_id=ben.pk)
    web.get(URL)  # warm caches (session, content types)
    with CaptureQueriesContext(connection) as few:
        assert web.get(URL).status_code == 200
    for i in range(15):
        make_frist(
            f"F{i}", 11 + i, client_id=ClientFactory().pk, deputy_id=ben.pk, pre_deadlines=[dt.date.today()]
        )
    with CaptureQueriesContext(connection) as many:
        response = web.get(URL)
    assert len(response.context["rows"]) == 16
    assert len(many) == len(few), [q["sql"][:120] for q in many.captured_queries]


def test_export_csv_and_pdf(web, make_frist, anna):
    frist = make_frist("=HYPERLINK(evil)", 10)
    lifecycle.cancel_deadline(Principal.for_user(anna), frist.pk, build(DeadlineCancel, reason="aufgehoben"))
    today = dt.date.today().isoformat()
    response = web.get(reverse("calendar:fristenbuch-export", args=["csv"]), {"since": today, "until": today})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig")), delimiter=";"))
    assert len(rows) == 1 + 4 + 1  # header, four lines on entry (no deputy), the cancellation
    assert rows[-1][4:8] == ["Status", "offen", "gestrichen", "aufgehoben"]
    assert all(row[2] == "'=HYPERLINK(evil)" for row in rows[1:])  # no formula for the spreadsheet
    pdf = web.get(reverse("calendar:fristenbuch-export", args=["pdf"]), {"since": today, "until": today})
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF") and len(pdf.content) > 1000
    yesterday = (dt.date.today() - dt.timedelta(days=1)).isoformat()
    empty = web.get(
        reverse("calendar:fristenbuch-export", args=["csv"]), {"since": yesterday, "until": yesterday}
    )
    assert len(list(csv.reader(io.StringIO(empty.content.decode("utf-8-sig")), delimiter=";"))) == 1


def test_export_refuses_bad_periods_and_formats(web):
    """A refused export sends the person back with the reason, never a broken file."""
    url = reverse("calendar:fristenbuch-export", args=["csv"])
    for params in (
        {"since": "2026-02-01", "until": "2026-01-01"},
        {"since": "2000-01-01", "until": "2026-01-01"},
    ):
        response = web.get(url, params, follow=True)
        assert response.redirect_chain and not response["Content-Type"].startswith("text/csv")
        assert list(response.context["messages"])
    assert web.get(reverse("calendar:fristenbuch-export", args=["xlsx"])).status_code == 302


@pytest.mark.parametrize("web_user", ["ben"], indirect=True)
def test_export_leaves_out_others_private_fristen(web, make_frist):
    make_frist("privat Anna", visibility="private")
    today = dt.date.today().isoformat()
    response = web.get(reverse("calendar:fristenbuch-export", args=["csv"]), {"since": today, "until": today})
    assert "privat Anna" not in response.content.decode("utf-8-sig")


def test_the_navigation_badge_counts_the_persons_due_and_overdue_fristen(anna, make_frist):
    due = make_frist("überfällig", 10)
    make_frist("später", 20)
    _overdue(due)
    assert fristen.nav_badge(anna) == 1


def test_the_client_and_case_pickers_offer_those_with_fristen_and_at_most_a_page(
    web, make_frist, monkeypatch
):
    from apps.calendar import fristen_views

    monkeypatch.setattr(fristen_views, "FILTER_CHOICES", 2)
    clients = [ClientFactory(name=f"Mandant {c}") for c in "ABC"]
    idle = ClientFactory(name="Ohne Fristen")
    cases = [
        Case.objects.create(reference=f"AZ-{i}", subject="Sache", client=c) for i, c in enumerate(clients)
    ]
    for client, case in zip(clients, cases, strict=True):
        make_frist(f"Frist {client.name}", 10, client_id=client.pk, case_id=case.pk)
    hint = "Mehr als hier aufgeführt"

    def offered(response, name):
        return [label for _, label, _ in response.context[name]]

    page = web.get(URL)
    assert offered(page, "clients") == [f"{c.name} ({c.client_number})" for c in clients[:2]]
    assert offered(page, "cases") == ["AZ-0 Sache", "AZ-1 Sache"]
    assert page.content.decode().count(hint) == 2
    # The chosen client (past the first page) is always offered, and its cases alone.
    chosen = web.get(URL, {"client": clients[2].pk, "case": cases[2].pk})
    labels = offered(chosen, "clients")
    assert f"Mandant C ({clients[2].client_number})" in labels and len(labels) == 2
    assert [s for _, _, s in chosen.context["clients"]].count(True) == 1
    assert offered(chosen, "cases") == ["AZ-2 Sache"] and chosen.context["cases"][0][2] is True
    assert not chosen.context["cases_more"]
    assert idle.name not in chosen.content.decode()
    monkeypatch.setattr(fristen_views, "FILTER_CHOICES", 100)
    everything = web.get(URL)
    assert len(offered(everything, "clients")) == 3 and hint not in everything.content.decode()
