"""The .ics subscription feed: token lifecycle, parses with icalendar, never leaks private entries."""

import datetime as dt

import icalendar
import pytest
from django.urls import reverse

from apps.calendar import feed
from apps.calendar.models import CalendarFeedToken

pytestmark = pytest.mark.django_db


def test_feed_lists_visible_entries_and_parses(client, as_anna, anna, ben, make_event, soon):
    make_event(
        'Team-Meeting; Raum 1, "groß"',
        rrule="FREQ=WEEKLY;COUNT=4",
        recurrence_end=soon + dt.timedelta(days=22),
    )
    make_event("Annas Zahnarzt", visibility="private", owner=anna)
    make_event("Bens Geheimnis", visibility="private", owner=ben)
    make_event("Frist", kind="deadline", minutes=0, legal_basis="§ 355 AO", all_day=True)
    row, token = feed.create_token(as_anna)
    assert row.token_hash != token and token not in row.token_hash

    response = client.get(reverse("calendar:feed", args=[token]))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/calendar")
    cal = icalendar.Calendar.from_ical(response.content)
    events = {str(e["summary"]): e for e in cal.walk("VEVENT")}
    assert "Bens Geheimnis" not in events
    assert "Annas Zahnarzt" in events and 'Team-Meeting; Raum 1, "groß"' in events
    series = events['Team-Meeting; Raum 1, "groß"']
    assert series["rrule"]["FREQ"] == ["WEEKLY"] and series["rrule"]["COUNT"] == [4]
    assert series.decoded("dtstart") == soon
    assert any(name.startswith("Frist") or "Frist" in name for name in events)
    assert cal.walk("VTIMEZONE")


def test_unknown_and_revoked_tokens_are_404(client, as_anna):
    assert client.get(reverse("calendar:feed", args=["nope"])).status_code == 404
    row, token = feed.create_token(as_anna)
    feed.revoke_token(as_anna, row.pk)
    assert client.get(reverse("calendar:feed", args=[token])).status_code == 404


def test_a_new_token_replaces_the_old_one(as_anna):
    _first, old = feed.create_token(as_anna)
    _, new = feed.create_token(as_anna)
    assert feed.user_for_token(old) is None and feed.user_for_token(new) is not None
    assert CalendarFeedToken.objects.filter(revoked_at__isnull=True).count() == 1


def test_subscription_section_creates_shows_once_and_revokes(client, anna):
    client.force_login(anna)
    client.post(reverse("calendar:feed-create"))
    page = client.get(reverse("calendar:agenda")).content.decode()
    assert "/kalender/feed/" in page and ".ics" in page
    again = client.get(reverse("calendar:agenda")).content.decode()
    assert 'id="feed-url"' not in again  # shown once
    row = CalendarFeedToken.objects.get()
    client.post(reverse("calendar:feed-revoke", args=[row.pk]))
    row.refresh_from_db()
    assert row.revoked_at is not None


def test_cannot_revoke_someone_elses_token(client, as_anna, ben):
    row, _ = feed.create_token(as_anna)
    client.force_login(ben)
    client.post(reverse("calendar:feed-revoke", args=[row.pk]))
    row.refresh_from_db()
    assert row.revoked_at is None


@pytest.mark.parametrize("accept", ["*/*", "text/calendar", "application/json", "text/html"])
def test_any_accept_header_gets_the_calendar(client, as_anna, make_event, accept):
    make_event("Termin")
    _row, token = feed.create_token(as_anna)
    response = client.get(reverse("calendar:feed", args=[token]), HTTP_ACCEPT=accept)
    assert response.status_code == 200 and response["Content-Type"] == "text/calendar; charset=utf-8"
    assert response["Cache-Control"] == "private, max-age=300" and response["X-Robots-Tag"] == "noindex"
    assert response["Content-Disposition"] == 'inline; filename="clapilot.ics"'
    assert [str(e["summary"]) for e in icalendar.Calendar.from_ical(response.content).walk("VEVENT")] == [
        "Termin"
    ]


def test_the_feed_only_answers_get(client, as_anna):
    _row, token = feed.create_token(as_anna)
    url = reverse("calendar:feed", args=[token])
    assert client.post(url).status_code == 405 and client.head(url).status_code == 405
