"""The only writer of notifications. Delivery to open pages goes through the mutation stream:
`notifications.created` when one arrives, `notifications.read` when some were marked read (so
every open tab of the person shows the same count)."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import Count, QuerySet, Subquery
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.principal import Principal
from apps.core import validation
from apps.core.db.prepared import SHAPE, Prepared
from apps.mutations.services import record_mutation
from apps.notifications.models import Notification

MAX_PAGE = 200
KEY_MAX = 200
# The refresh topic every open bell (and the dashboard's notification card) listens to.
REFRESH_TOPIC = "notifications"


@transaction.atomic
def notify(
    user: User,
    *,
    kind: str,
    title: str,
    body: str = "",
    url: str = "",
    data: dict | None = None,
    key: str = "",
) -> Notification | None:
    """Send one notification. With a `key` it is sent at most once per person and key, also when
    two workers run the same job at the same moment (the unique index decides): a repeat returns
    None and publishes nothing."""
    key = (key or "")[:KEY_MAX]
    fields = dict(
        user=user,
        kind=kind,
        title=title[:200],
        body=body,
        url=validation.url(url, "url", max_length=500),
        data=data or {},
        key=key,
    )
    if key:
        if Notification.objects.filter(user=user, key=key).exists():
            return None
        try:
            with transaction.atomic():  # a savepoint: a lost race must not break the caller's transaction
                note = Notification.objects.create(**fields)
        except IntegrityError:
            return None
    else:
        note = Notification.objects.create(**fields)
    record_mutation(
        audience="user",
        user=user,
        topic="notifications.created",
        refresh_topic=REFRESH_TOPIC,
        ui_actions=[{"type": "notify", "record_id": note.pk, "title": note.title, "url": note.url}],
    )
    return note


def sent_keys(pairs: list[tuple[int, str]]) -> set[tuple[int, str]]:
    """Which (user id, key) pairs were already sent, in one query: lets a job skip them."""
    if not pairs:
        return set()
    users = {user_id for user_id, _ in pairs}
    keys = {key for _, key in pairs}
    rows = Notification.objects.filter(user_id__in=users, key__in=keys).values_list("user_id", "key")
    return set(rows) & set(pairs)


def list_after(principal: Principal, *, after: int = 0, limit: int = 50) -> list[Notification]:
    """A user's notifications after a cursor. Reading never marks anything read."""
    if principal.user is None:
        return []
    limit = max(1, min(limit, MAX_PAGE))
    return _AFTER(user_id=principal.user.pk, after=after, limit=limit)


# What polling devices ask every few seconds, compiled once per page size (apps.core.db.prepared).
_AFTER = Prepared(
    lambda user_id, after, limit: Notification.objects.filter(user_id=user_id, id__gt=after).order_by("id")[
        :limit
    ],
    user_id=int,
    after=int,
    limit=SHAPE,
)


def for_person(principal: Principal, *, unread_only: bool = False) -> QuerySet[Notification]:
    """The person's notifications, newest first (the bell, the page, the dashboard)."""
    if principal.user is None:
        return Notification.objects.none()
    qs = _of_person(principal.user.pk)
    return qs.filter(read_at__isnull=True) if unread_only else qs


def _of_person(user_id: int) -> QuerySet[Notification]:
    return Notification.objects.filter(user_id=user_id).order_by("-id")


def unread_count(principal: Principal) -> int:
    if principal.user is None:
        return 0
    return Notification.objects.filter(user=principal.user, read_at__isnull=True).count()


@transaction.atomic
def mark_read(principal: Principal, ids: list[int]) -> int:
    """Mark some of the person's own notifications read; others' ids are ignored."""
    if principal.user is None or not ids:
        return 0
    changed = Notification.objects.filter(user=principal.user, id__in=ids, read_at__isnull=True).update(
        read_at=timezone.now()
    )
    _announce_read(principal.user, changed)
    return changed


@transaction.atomic
def mark_all_read(principal: Principal) -> int:
    if principal.user is None:
        return 0
    changed = Notification.objects.filter(user=principal.user, read_at__isnull=True).update(
        read_at=timezone.now()
    )
    _announce_read(principal.user, changed)
    return changed


def _announce_read(user: User, changed: int) -> None:
    if changed:
        record_mutation(audience="user", user=user, topic="notifications.read", refresh_topic=REFRESH_TOPIC)


BELL_ITEMS = 6


def bell(principal: Principal) -> dict:
    """The header bell: the unread count and the newest notifications (read ones too, greyed).
    One query on every page: the count rides along as an uncorrelated subquery (evaluated once);
    without any notification there is no row, and nothing is unread."""
    if principal.user is None:
        return {"unread": 0, "items": []}
    items = _BELL(user=principal.user.pk)
    return {"unread": (items[0].unread_total or 0) if items else 0, "items": items}


def _bell_items(user: int) -> QuerySet[Notification]:
    unread = (
        Notification.objects.filter(user_id=user, read_at__isnull=True)
        .order_by()
        .values("user")
        .annotate(n=Count("id"))
        .values("n")
    )
    return _of_person(user).annotate(unread_total=Subquery(unread))[:BELL_ITEMS]


# Asked on every page: compiled once (the person's newest with the unread count).
_BELL = Prepared(_bell_items, user=int)
