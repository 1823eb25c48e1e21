import datetime as dt
import zoneinfo

import pytest

from apps.calendar.models import CalendarEvent

BERLIN = zoneinfo.ZoneInfo("Europe/Berlin")


@pytest.fixture
def soon():
    """Tomorrow 10:00 in Berlin: inside the default window of the list tool."""
    tomorrow = dt.datetime.now(BERLIN).date() + dt.timedelta(days=1)
    return dt.datetime.combine(tomorrow, dt.time(10), tzinfo=BERLIN)


@pytest.fixture
def make_event(anna, soon):
    """A plain row (no service, no live event) for read tests."""

    def make(title="Termin", start=None, minutes=60, **fields):
        start = start or soon
        fields.setdefault("owner", anna)
        return CalendarEvent.objects.create(
            title=title, start=start, end=start + dt.timedelta(minutes=minutes), **fields
        )

    return make
