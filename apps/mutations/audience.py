"""Sending one domain change to exactly the people who may see it.

Domains resolve their viewers once (`EVERYONE`, or a set of user ids) and hand them here, so the
rules live in one place: shared data is one all-users row, private data goes to its viewers only,
and people who lost sight of a record get a bare removal, never the record itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model

from apps.mutations import actions
from apps.mutations.services import record_mutation

EVERYONE = "everyone"
Viewers = str | set[int]


def announced_upsert(list_name: str, record: dict[str, Any], announce_key: str) -> list[dict]:
    """Insert/update the record in open lists and flash it; clients localize `announce_key`."""
    upsert = actions.upsert(list_name, record["id"], record) | {"announce_key": announce_key}
    return [upsert, actions.highlight(record["id"])]


def announced_remove(list_name: str, record_id: Any, announce_key: str) -> list[dict]:
    return [actions.remove(list_name, record_id) | {"announce_key": announce_key}]


def send(viewers: Viewers, topic: str, ui_actions: list[dict], **event: Any) -> None:
    if viewers == EVERYONE:
        record_mutation(audience="all", topic=topic, ui_actions=ui_actions, **event)
        return
    for user in get_user_model().objects.filter(id__in=viewers):
        record_mutation(audience="user", user=user, topic=topic, ui_actions=ui_actions, **event)


def send_change(
    old_viewers: Viewers, new_viewers: Viewers, *, topic: str, upsert: list[dict], removal: list[dict]
) -> None:
    """A record changed, possibly moving to a narrower audience (shared → private)."""
    if new_viewers == EVERYONE:
        send(EVERYONE, topic, upsert)
        return
    if old_viewers == EVERYONE:
        if len(new_viewers) == 1:
            (owner_id,) = new_viewers
            owner = get_user_model().objects.get(pk=owner_id)
            record_mutation(audience="all_except", user=owner, topic=topic, ui_actions=removal)
        else:
            send(EVERYONE, topic, removal)  # the remaining viewers get the record right after
    elif old_viewers - new_viewers:
        send(old_viewers - new_viewers, topic, removal)
    send(new_viewers, topic, upsert)


@dataclass(frozen=True)
class LiveList:
    """A list the pages keep live: its name, the topic of its change events, and the announce
    key of the removal sent to people who lost sight of a record."""

    name: str
    topic: str
    removed_key: str

    def changed(
        self,
        record: dict[str, Any],
        announce_key: str,
        new_viewers: Viewers,
        old_viewers: Viewers | None = None,
        *,
        also: Iterable[dict] = (),
    ) -> None:
        """`send_change` of one record: the upsert (and the actions `also`) to its viewers, the
        removal to those who saw it before (`old_viewers`, default: the same people) but no more."""
        send_change(
            old_viewers if old_viewers is not None else new_viewers,
            new_viewers,
            topic=self.topic,
            upsert=[*announced_upsert(self.name, record, announce_key), *also],
            removal=announced_remove(self.name, record["id"], self.removed_key),
        )
