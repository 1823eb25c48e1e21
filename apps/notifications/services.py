"""The only writer of notifications. Delivery to open pages goes through the mutation stream."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.principal import Principal
from apps.core import validation
from apps.mutations.services import record_mutation
from apps.notifications.models import Notification

MAX_PAGE = 200


@transaction.atomic
def notify(
    user: User, *, kind: str, title: str, body: str = "", url: str = "", data: dict | None = None
) -> Notification:
    note = Notification.objects.create(
        user=user,
        kind=kind,
        title=title[:200],
        body=body,
        url=validation.url(url, "url", max_length=500),
        data=data or {},
    )
    record_mutation(
        audience="user",
        user=user,
        topic="notifications.created",
        ui_actions=[{"type": "notify", "record_id": note.pk, "title": note.title, "url": note.url}],
    )
    return note


def list_after(principal: Principal, *, after: int = 0, limit: int = 50) -> list[Notification]:
    """A user's notifications after a cursor. Reading never marks anything read."""
    if principal.user is None:
        return []
    limit = max(1, min(limit, MAX_PAGE))
    return list(Notification.objects.filter(user=principal.user, id__gt=after).order_by("id")[:limit])


@transaction.atomic
def mark_read(principal: Principal, ids: list[int]) -> int:
    if principal.user is None:
        return 0
    return Notification.objects.filter(user=principal.user, id__in=ids, read_at__isnull=True).update(
        read_at=timezone.now()
    )
