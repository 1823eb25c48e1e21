"""The Frist's people hear when they are named: Zuständig or Vertretung (see
`apps.notifications.watch`; the services stay as they are, model signals carry the change)."""

from __future__ import annotations

from apps.calendar.models import CalendarEvent
from apps.calendar.records import detail_url
from apps.calendar.visibility import user_filter
from apps.notifications.watch import PeopleWatch


def _can_see(event: CalendarEvent, user) -> bool:
    return CalendarEvent.objects.filter(user_filter(user.pk), pk=event.pk).exists()


WATCH = PeopleWatch(
    model="office_calendar.CalendarEvent",
    fields={"responsible": "deadline.responsible", "deputy": "deadline.deputy"},
    url=lambda event: detail_url(event.pk),
    applies=lambda event: event.kind == CalendarEvent.Kind.DEADLINE,
    can_see=_can_see,
)
