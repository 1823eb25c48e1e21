"""Live events of the Kalender, audience-scoped by the entry's visibility (see
`apps.mutations.audience` for the rules shared with every domain)."""

from __future__ import annotations

from apps.calendar.models import CalendarEvent
from apps.calendar.records import event_record
from apps.calendar.visibility import viewers
from apps.mutations.audience import LiveList, announced_remove, send

LIST = "calendar"
TOPIC = "calendar.event.updated"
DELETED_TOPIC = "calendar.event.deleted"
EVENTS = LiveList(LIST, TOPIC, "calendar.event.removed")


def event_changed(
    event: CalendarEvent,
    announce_key: str,
    old_visibility: str | None = None,
    old_owner_id: int | None = None,
) -> None:
    """An entry was created or changed. When it became private, everybody else gets only a
    removal, never the record."""
    new_viewers = viewers(event.visibility, event.owner_id)
    old_viewers = viewers(old_visibility, old_owner_id) if old_visibility is not None else new_viewers
    EVENTS.changed(event_record(event), announce_key, new_viewers, old_viewers)


def event_deleted(event_id: int, visibility: str, owner_id: int | None) -> None:
    send(
        viewers(visibility, owner_id),
        DELETED_TOPIC,
        announced_remove(LIST, event_id, "calendar.event.deleted"),
    )
