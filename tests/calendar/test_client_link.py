"""Calendar entries link a Mandant: `client_id` on the calendar_* tools, the REST API and the
pages, checked against the clients the principal can see; records carry the client's id and name;
the old free-text `client_name` was migrated without losing text."""

import datetime as dt

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from apps.apikeys import services as keys
from apps.calendar.models import CalendarEvent
from apps.mutations.models import MutationEvent
from apps.tools.dispatcher import dispatch
from tests.factories import ClientFactory

pytestmark = pytest.mark.django_db


def call(ctx, tool_name, **args):
    return dispatch(tool_name, args, ctx)


def test_create_update_clear_and_filter_by_client(anna_ctx, soon, meier):
    created = call(
        anna_ctx, "calendar_create_event", title="Jahresgespräch", start=soon.isoformat(), client_id=meier.pk
    )
    assert created.ok, created.message
    event = created.output["event"]
    assert event["client_id"] == meier.pk and event["client"]["name"] == "Meier GmbH"
    assert event["client"]["client_number"] == "10003"
    live = MutationEvent.objects.get(pk=created.mutation_event_id).ui_actions  # shared: the fan-out
    upsert = next(a for a in live if a["type"] == "upsert")
    assert upsert["record"]["client"]["id"] == meier.pk  # open client pages can tell it is theirs
    call(anna_ctx, "calendar_create_event", title="Team", start=soon.isoformat())

    listed = call(anna_ctx, "calendar_list_events", client_id=meier.pk).output
    assert [e["title"] for e in listed["events"]] == ["Jahresgespräch"] and listed["total"] == 1

    other = ClientFactory(name="Schreinerei Vogel")
    moved = call(anna_ctx, "calendar_update_event", event_id=event["id"], client_id=other.pk)
    assert moved.ok and moved.output["event"]["client"]["name"] == "Schreinerei Vogel"
    cleared = call(anna_ctx, "calendar_update_event", event_id=event["id"], clear_fields=["client_id"])
    assert cleared.ok and cleared.output["event"]["client"] is None
    assert CalendarEvent.objects.get(pk=event["id"]).client_id is None


def test_query_matches_the_client_name(anna_ctx, make_event, meier):
    make_event("Jahresgespräch", client=meier)
    make_event("Meier anrufen")
    make_event("Etwas anderes")
    found = call(anna_ctx, "calendar_list_events", query="meier").output
    assert sorted(e["title"] for e in found["events"]) == ["Jahresgespräch", "Meier anrufen"]


@pytest.mark.parametrize("client_id", [424242, "hidden"])
def test_unknown_or_invisible_client_is_refused_and_nothing_written(
    anna_ctx, soon, make_event, hidden_client, client_id
):
    client_id = hidden_client.pk if client_id == "hidden" else client_id
    event = make_event("Vorhanden")
    created = call(
        anna_ctx, "calendar_create_event", title="Neu", start=soon.isoformat(), client_id=client_id
    )
    assert not created.ok and created.code == "client_not_found"
    assert created.output["field_errors"] == {"client_id": created.message}
    updated = call(anna_ctx, "calendar_update_event", event_id=event.pk, client_id=client_id)
    assert updated.code == "client_not_found"
    assert call(anna_ctx, "calendar_list_events", client_id=client_id).code == "client_not_found"
    assert CalendarEvent.objects.count() == 1 and CalendarEvent.objects.get().client_id is None
    assert CalendarEvent.objects.get().version == 1 and not MutationEvent.objects.exists()


def test_an_invisible_client_name_does_not_match_a_query(anna_ctx, make_event, hidden_client):
    make_event("Besprechung", client=hidden_client)
    assert call(anna_ctx, "calendar_list_events", query="geheim").output["total"] == 0


def test_list_tool_query_count_is_constant_with_clients(anna_ctx, make_event, soon):
    def count_queries():
        with CaptureQueriesContext(connection) as ctx:
            assert dispatch("calendar_list_events", {"limit": 200}, anna_ctx).ok
        return len(ctx.captured_queries)

    make_event("a", client=ClientFactory())
    few = count_queries()
    for i in range(25):
        make_event(f"b{i}", start=soon + dt.timedelta(hours=i), client=ClientFactory())
    assert count_queries() == few


# --- REST API ---------------------------------------------------------------------------------
@pytest.fixture
def api(anna):
    cache.clear()
    _, token = keys.issue_device_token(anna, "iPhone")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_api_create_filter_patch_and_deadlines_by_client(api, soon, meier):
    created = api.post(
        "/api/v1/calendar/events",
        {"title": "Frist", "kind": "deadline", "start": soon.isoformat(), "client_id": meier.pk},
        format="json",
    )
    assert created.status_code == 201, created.content
    event = created.json()["event"]
    assert event["client"]["name"] == "Meier GmbH"
    api.post("/api/v1/calendar/events", {"title": "Andere", "start": soon.isoformat()}, format="json")
    listed = api.get("/api/v1/calendar/events", {"client_id": meier.pk}).json()
    assert [e["id"] for e in listed["events"]] == [event["id"]]
    deadlines = api.get("/api/v1/calendar/deadlines", {"client_id": meier.pk}).json()["deadlines"]
    assert [d["id"] for d in deadlines] == [event["id"]]
    patched = api.patch(f"/api/v1/calendar/events/{event['id']}", {"client_id": None}, format="json")
    assert patched.status_code == 200 and patched.json()["event"]["client"] is None


def test_api_unknown_client_is_a_clear_error(api, soon):
    response = api.post(
        "/api/v1/calendar/events",
        {"title": "X", "start": soon.isoformat(), "client_id": 424242},
        format="json",
    )
    assert response.status_code == 404 and response.json()["code"] == "client_not_found"
    assert not CalendarEvent.objects.exists()


# --- pages ------------------------------------------------------------------------------------
def test_form_picker_preselects_links_and_unlinks(web, make_event, meier):
    form = web.get(reverse("calendar:create"), {"client": meier.pk}).context["form"]
    assert (str(meier.pk), "Meier GmbH (10003)") in form.fields["client"].choices
    assert form.initial["client"] == str(meier.pk)
    event = make_event("Jahresgespräch")
    url = reverse("calendar:detail", args=[event.pk])
    form = web.get(url).context["form"]
    data = {name: form.initial.get(name, "") for name in form.fields if name != "attendees"}
    data["client"] = str(meier.pk)
    assert web.post(url, data).status_code == 302
    assert CalendarEvent.objects.get(pk=event.pk).client_id == meier.pk
    assert reverse("clients:detail", args=[meier.pk]) in web.get(url).content.decode()
    form = web.get(url).context["form"]
    data = {name: form.initial.get(name, "") for name in form.fields if name != "attendees"}
    data["client"] = ""
    assert web.post(url, data).status_code == 302
    assert CalendarEvent.objects.get(pk=event.pk).client_id is None


def test_deadlines_and_agenda_link_the_client(web, make_event, soon, meier):
    make_event("Frist USt", start=soon, kind="deadline", minutes=0, client=meier)
    make_event("Gespräch", start=soon, client=meier)
    link = reverse("clients:detail", args=[meier.pk])
    assert link in web.get(reverse("calendar:deadlines")).content.decode()
    assert link in web.get(reverse("calendar:agenda")).content.decode()


def test_views_query_counts_stay_constant_with_clients(web, make_event, soon):
    def queries(url, params):
        with CaptureQueriesContext(connection) as ctx:
            assert web.get(url, params).status_code == 200
        return len(ctx.captured_queries)

    views = [
        (reverse("calendar:index"), {"month": soon.strftime("%Y-%m")}),
        (reverse("calendar:week"), {"week": soon.date().isoformat()}),
        (reverse("calendar:agenda"), {}),
        (reverse("calendar:deadlines"), {}),
    ]
    make_event("a", client=ClientFactory())
    make_event("f", kind="deadline", minutes=0, client=ClientFactory())
    few = [queries(*v) for v in views]
    for i in range(20):
        make_event(f"b{i}", start=soon + dt.timedelta(hours=i % 8), client=ClientFactory())
        make_event(f"g{i}", kind="deadline", minutes=0, client=ClientFactory())
    assert [queries(*v) for v in views] == few


def test_ics_feed_names_the_client(client, as_anna, make_event, meier):
    import icalendar

    from apps.calendar import feed

    make_event("Jahresgespräch", client=meier)
    _row, token = feed.create_token(as_anna)
    cal = icalendar.Calendar.from_ical(client.get(reverse("calendar:feed", args=[token])).content)
    (event,) = cal.walk("VEVENT")
    assert "Meier GmbH" in str(event["description"])
