"""Live events of the Kalender, audience-scoped by the entry's visibility.

Shared entries are one all-users row; private entries only ever reach their owner. Every action
carries a semantic `announce_key` that each client (de/en/it) turns into its own sentence.
"""

from __future__ import annotations

from apps.accounts.models import User
from apps.calendar.models import CalendarEvent
from apps.calendar.records import event_record
from apps.calendar.visibility import EVERYONE, viewers
from apps.mutations import actions
from apps.mutations.services import record_mutation

LIST = "calendar"
TOPIC = "calendar.event.updated"
DELETED_TOPIC = TOPIC  # the seed contract: one topic for every calendar change


def _upsert(record: dict, announce_key: str) -> list[dict]:
    action = actions.upsert(LIST, record["id"], record)
    action["announce_key"] = announce_key
    return [action, actions.highlight(record["id"])]


def _remove(event_id: int, announce_key: str) -> list[dict]:
    action = actions.remove(LIST, event_id)
    action["announce_key"] = announce_key
    return [action]


def _send(audience: str | set[int], topic: str, ui_actions: list[dict]) -> None:
    if audience == EVERYONE:
        record_mutation(audience="all", topic=topic, ui_actions=ui_actions)
        return
    for user in User.objects.filter(id__in=audience):
        record_mutation(audience="user", user=user, topic=topic, ui_actions=ui_actions)


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
    upsert = _upsert(event_record(event), announce_key)
    if new_viewers == EVERYONE:
        _send(EVERYONE, TOPIC, upsert)
        return
    removal = _remove(event.pk, "calendar.event.removed")
    if old_viewers == EVERYONE:
        (owner_id,) = new_viewers
        owner = User.objects.get(pk=owner_id)
        record_mutation(audience="all_except", user=owner, topic=TOPIC, ui_actions=removal)
    elif old_viewers - new_viewers:
        _send(old_viewers - new_viewers, TOPIC, removal)
    _send(new_viewers, TOPIC, upsert)


def event_deleted(event_id: int, visibility: str, owner_id: int | None) -> None:
    _send(viewers(visibility, owner_id), DELETED_TOPIC, _remove(event_id, "calendar.event.deleted"))
