"""The mobile REST API under /api/v1/calendar/ (device tokens, the same services)."""

import datetime as dt

import pytest
from rest_framework.test import APIClient

from apps.apikeys import services as keys
from apps.calendar.models import CalendarEvent

pytestmark = pytest.mark.django_db


def _client(user) -> APIClient:
    _, token = keys.issue_device_token(user, "iPhone")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


@pytest.fixture
def api(anna):
    return _client(anna)


def test_event_lifecycle(api, soon):
    created = api.post(
        "/api/v1/calendar/events",
        {"title": "Finanzamt", "start": soon.isoformat(), "location": "FA München"},
        format="json",
    )
    assert created.status_code == 201, created.content
    event = created.json()["event"]
    assert event["source_origin"] == "api"
    eid = event["id"]
    assert api.get(f"/api/v1/calendar/events/{eid}").json()["event"]["location"] == "FA München"
    patched = api.patch(
        f"/api/v1/calendar/events/{eid}", {"title": "Finanzamt Termin", "expected_version": 1}, format="json"
    )
    assert patched.status_code == 200 and patched.json()["event"]["version"] == 2
    stale = api.patch(
        f"/api/v1/calendar/events/{eid}", {"title": "alt", "expected_version": 1}, format="json"
    )
    assert stale.status_code == 409 and stale.json()["code"] == "version_conflict"
    listed = api.get("/api/v1/calendar/events", {"start": soon.replace(hour=0).isoformat()}).json()
    assert listed["total"] == 1 and listed["events"][0]["title"] == "Finanzamt Termin"
    assert api.delete(f"/api/v1/calendar/events/{eid}").status_code == 204
    assert api.get(f"/api/v1/calendar/events/{eid}").status_code == 404


def test_deadlines_by_urgency(api):
    today = dt.date.today()
    for days, title in ((20, "später"), (2, "bald")):
        api.post(
            "/api/v1/calendar/events",
            {
                "title": title,
                "kind": "deadline",
                "all_day": True,
                "start": (today + dt.timedelta(days=days)).isoformat(),
            },
            format="json",
        )
    deadlines = api.get("/api/v1/calendar/deadlines").json()["deadlines"]
    assert [d["title"] for d in deadlines] == ["bald", "später"]
    assert deadlines[0]["countdown_days"] is not None


@pytest.mark.parametrize(
    ("method", "url", "body", "status", "code"),
    [
        ("post", "/api/v1/calendar/events", {"title": "x"}, 400, "invalid_request"),
        (
            "post",
            "/api/v1/calendar/events",
            {"title": "x", "start": "2026-12-01T10:00:00+01:00", "end": "2026-12-01T08:00:00+01:00"},
            400,
            "invalid_input",
        ),
        (
            "post",
            "/api/v1/calendar/events",
            {"title": "x", "start": "2026-12-01T10:00:00+01:00", "rrule": "FREQ=DAILY"},
            400,
            "invalid_input",
        ),
        ("patch", "/api/v1/calendar/events/987654", {"title": "x"}, 404, "event_not_found"),
        ("get", "/api/v1/calendar/events?limit=9999", None, 400, "invalid_request"),
    ],
)
def test_errors_have_codes(api, method, url, body, status, code):
    response = getattr(api, method)(url, body, format="json") if body is not None else api.get(url)
    assert response.status_code == status, response.content
    assert response.json()["code"] in (code, "invalid") or code == "invalid_request"
    assert not CalendarEvent.objects.exists()


def test_private_events_stay_private(api, ben, soon):
    eid = api.post(
        "/api/v1/calendar/events",
        {"title": "privat", "start": soon.isoformat(), "visibility": "private"},
        format="json",
    ).json()["event"]["id"]
    other = _client(ben)
    assert other.get(f"/api/v1/calendar/events/{eid}").status_code == 404
    assert other.delete(f"/api/v1/calendar/events/{eid}").status_code == 404
    assert other.get("/api/v1/calendar/events").json()["total"] == 0


def test_requires_authentication():
    assert APIClient().get("/api/v1/calendar/events").status_code in (401, 403)
