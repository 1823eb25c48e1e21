"""The typed contract of the notifications cursor (`GET /api/v1/notifications`)."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import Field

from apps.core.contracts import Input, Output
from apps.core.records import attrs
from apps.notifications.services import MAX_PAGE


class NotificationsPageFilter(Input):
    """The notifications page: `?filter=unread` shows the unread ones only."""

    filter: Literal["all", "unread"] = "all"


class NotificationOut(Output):
    id: int
    kind: str = Field(description="What happened, e.g. reminder.")
    title: str
    body: str
    url: str = Field(description="Where to look; empty: nowhere in particular.")
    data: dict[str, Any]
    created_at: dt.datetime
    read_at: dt.datetime | None

    @classmethod
    def of(cls, note) -> NotificationOut:
        return cls(id=note.pk, **attrs(note, "kind", "title", "body", "url", "data", "created_at", "read_at"))


class NotificationPage(Output):
    notifications: list[NotificationOut]
    next_after: int = Field(description="Pass as ?after= on the next request.")


class NotificationCursor(Input):
    after: int = Field(default=0, ge=0, description="Notifications with an id greater than this.")
    limit: int = Field(default=50, ge=1, le=MAX_PAGE, description="How many at most.")
