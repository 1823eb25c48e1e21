"""Recording, reading and pruning UI mutation events (the only writer of `MutationEvent`).

A writing service of any domain calls `record_mutation()` inside its own transaction. The row is
inserted in that transaction, so it exists exactly when the change it describes exists, and it is
published to open pages only after commit: a rolled-back change neither persists nor flickers
onto anybody's screen. Clients that were offline replay the rows through an id cursor.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.db import connection, transaction
from django.db.models import BigIntegerField, Q, QuerySet, Subquery, Value
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce
from django.utils import timezone

from apps.core.db.prepared import Prepared
from apps.core.realtime.layer import group_send
from apps.mutations.models import RUNNING_XID_MIN, MutationEvent
from apps.mutations.origin import current_operation, current_origin

if TYPE_CHECKING:
    from django.contrib.auth.base_user import AbstractBaseUser

logger = logging.getLogger(__name__)

Audience = MutationEvent.Audience

ALL_GROUP = "mutations.all"
DEFAULT_LIMIT = 100
MAX_LIMIT = 500
# Events are stored, sent through the channel layer and written to every open page: keep them
# small. A page that needs more than this should get a refresh_topic and refetch.
MAX_UI_ACTIONS_BYTES = 64 * 1024
# See _first_unsettled(): how long a cursor waits at most for an older transaction to commit.
SETTLE_SECONDS = 10.0
PRUNE_BATCH = 10_000

_TOPIC_RE = re.compile(r"^[a-z0-9_-]+(\.[a-z0-9_-]+)*$")


def user_group(user_id: int) -> str:
    """The channel-layer group of one user's open pages (private events)."""
    return f"mutations.user.{user_id}"


# --- writing ----------------------------------------------------------------------------------
def record_mutation(
    *,
    audience: str,
    user: AbstractBaseUser | None = None,
    topic: str,
    ui_actions: Iterable[Mapping[str, Any]] = (),
    trigger_reload: bool = False,
    refresh_topic: str = "",
) -> MutationEvent:
    """Persist one event in the caller's transaction and publish it after commit.

    `audience` decides who receives it: "user" (only `user`), "all" (everyone; `user` must be
    None, shared data is one row, never one per user) or "all_except" (everyone but `user`, e.g.
    former viewers of a task that just became the owner's private one). Misuse raises ValueError:
    a wrong audience would leak private data, so it must fail loudly in development.
    """
    audience = _check_audience(audience, user)
    _check_topic(topic, "topic")
    if refresh_topic:
        _check_topic(refresh_topic, "refresh_topic")
    actions = _check_ui_actions(ui_actions)
    if audience != Audience.USER and any(action["type"] == "navigate" for action in actions):
        raise ValueError('A "navigate" action moves one person\'s page; use audience "user".')

    origin = current_origin()
    op = current_operation()
    event = MutationEvent.objects.create(
        audience=audience,
        user=user if audience != Audience.ALL else None,
        topic=topic,
        ui_actions=actions,
        trigger_reload=bool(trigger_reload),
        refresh_topic=refresh_topic,
        origin_tool=(origin.tool or "")[:100] if origin else "",
        origin_run=str(origin.run_id or "")[:64] if origin else "",
        actor_id=op.actor_id if op else None,
        # Outside any operation (a shell, a test) each event is its own.
        operation=op.id if op else uuid.uuid4().hex,
    )
    if origin is not None:
        origin.collected.append(event)

    payload = serialize_event(event)
    user_id = event.user_id
    transaction.on_commit(lambda: publish(payload, audience=audience, user_id=user_id), robust=True)
    return event


def _check_audience(audience: str, user: AbstractBaseUser | None) -> str:
    if audience not in Audience.values:
        raise ValueError(f"Unknown mutation audience {audience!r}; use one of {Audience.values}.")
    if audience == Audience.ALL:
        if user is not None:
            raise ValueError('Audience "all" takes no user: shared data is one row for everybody.')
    elif user is None or user.pk is None:
        raise ValueError(f'Audience "{audience}" needs a saved user.')
    return str(audience)


def _check_topic(value: str, name: str) -> None:
    if not isinstance(value, str) or not value or len(value) > 100 or not _TOPIC_RE.match(value):
        raise ValueError(f"{name} must be a dotted lower-case name like 'aufgaben.task.updated'.")


def _check_ui_actions(ui_actions: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Normalize to plain JSON (what clients and the channel layer receive) and bound the size."""
    if isinstance(ui_actions, (str, bytes, Mapping)):
        raise ValueError("ui_actions must be a list of action objects.")
    actions = list(ui_actions)
    for action in actions:
        if not isinstance(action, Mapping) or not isinstance(action.get("type"), str) or not action["type"]:
            raise ValueError('Every UI action must be an object with a non-empty "type".')
    try:
        encoded = json.dumps(actions)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"ui_actions must be JSON-serializable: {exc}") from None
    if len(encoded.encode()) > MAX_UI_ACTIONS_BYTES:
        raise ValueError("ui_actions are too large; send a refresh_topic and let the page refetch.")
    return json.loads(encoded)


def publish(payload: dict[str, Any], *, audience: str, user_id: int | None) -> None:
    """Hand one committed event to the channel layer (runs from `on_commit`).

    Private events go to the owner's group only. An "all_except" event goes to everybody with
    `except_user`, whose sockets the process hub skips (see hub.py). A failed publish is logged,
    never raised: the row is committed and clients replay it from the cursor.
    """
    message: dict[str, Any] = {"type": "mutation.event", "event": payload, "audience": audience}
    if audience == Audience.USER:
        group = user_group(user_id)
        message["user_id"] = user_id
    else:
        group = ALL_GROUP
        if audience == Audience.ALL_EXCEPT:
            message["except_user"] = user_id
    group_send(group, message)


def direct_ui_actions(
    own: Iterable[Mapping[str, Any]], events: Iterable[MutationEvent], user_id: int | None
) -> list[dict[str, Any]]:
    """The UI actions a tool's direct result carries for its caller (`user_id`), in order.

    Seed contract: once an all-user fan-out reaches users, the direct response suppresses its
    duplicate UI action, so a client that applies both the result and its live stream applies
    each action once. The result therefore keeps the tool's `own` actions and those of the
    caller's private events (which the result names by `mutation_event_id`), and drops every
    action an "all" or "all_except" row delivers to the caller, as well as actions of rows meant
    for other people (another user's private event, the removal the caller is excluded from).
    """
    kept: list[dict[str, Any]] = [dict(a) for a in own]
    fanned_out: list[Any] = []
    for event in events:
        if event.audience == Audience.USER:
            if user_id is not None and event.user_id == user_id:
                kept.extend(event.ui_actions)
        elif event.audience == Audience.ALL or event.user_id != user_id:
            fanned_out.extend(event.ui_actions)
    result: list[dict[str, Any]] = []
    for action in kept:
        if action not in result and action not in fanned_out:
            result.append(action)
    return result


# --- reading ----------------------------------------------------------------------------------
def visible_to(user_id: int) -> Q:
    """Rows a user may receive: shared ones, their own private ones, and exclusions of others."""
    return (
        Q(audience=Audience.ALL)
        | Q(audience=Audience.USER, user_id=user_id)
        | (Q(audience=Audience.ALL_EXCEPT, user__isnull=False) & ~Q(user_id=user_id))
    )


def visible_events(
    user: AbstractBaseUser, after_id: int = 0, limit: int = DEFAULT_LIMIT, *, settled: bool = True
) -> QuerySet[MutationEvent]:
    """The user's events with id > after_id, oldest first, at most `limit` (capped at MAX_LIMIT).

    With `settled` (the default, for cursor readers) the result stops before any row that a
    still-running transaction could precede with a smaller id, so a client that advances its
    cursor to the last id it got never skips an event (see _first_unsettled). One query.
    """
    limit = max(1, min(int(limit), MAX_LIMIT))
    qs = MutationEvent.objects.filter(visible_to(user.pk), id__gt=after_id)
    if settled:
        qs = qs.filter(id__lt=Coalesce(Subquery(_first_unsettled(after_id)), Value(_NO_LIMIT)))
    return qs.order_by("id")[:limit]


_NO_LIMIT = 2**63 - 1


def _first_unsettled(after_id: int) -> QuerySet[MutationEvent]:
    """The first row after the cursor that may still get an older neighbour.

    Ids are taken at insert but rows appear at commit, so id 11 can become visible while the
    transaction holding id 10 is still open; a reader moving past 11 would never see 10. Each
    row records the newest other transaction running at its insert (`pending_xid`); while the
    oldest transaction running now is not newer than that, the row is unsettled. After
    SETTLE_SECONDS a row counts as settled anyway, so one stuck transaction delays the stream
    but never stops it.
    """
    # A scalar subquery, so PostgreSQL calls the function once per query instead of once per row.
    oldest_running = RawSQL(f"(SELECT {RUNNING_XID_MIN}())", [], output_field=BigIntegerField())  # noqa: S611 constant SQL
    cutoff = timezone.now() - timedelta(seconds=SETTLE_SECONDS)
    # Only the last SETTLE_SECONDS of rows can be unsettled: start the scan after the newest
    # older row (a short backward index scan) instead of at a cursor that may be far behind.
    young_after = _newest_before(cutoff)
    return (
        MutationEvent.objects.filter(id__gt=after_id, created_at__gte=cutoff, pending_xid__gte=oldest_running)
        .filter(id__gt=Coalesce(Subquery(young_after), Value(0)))
        .order_by("id")
        .values("id")[:1]
    )


def events_moving(topics: tuple[str, ...], after: int, head: int, seen: list[int] | None = None) -> list[int]:
    """The ids (at most 100) of the events after id `after` up to `head`, but `seen`, that may move
    a navigation badge of `topics` (`apps.core.surfaces.navigation`): their topic or refresh topic,
    or the topic of a `reload_topic` action in them, is one of them or below one ("memory" covers
    "memory.review"), as `nav-badges.js` matches them. Other people's private events count too:
    rarely a count more than needed, never one too few. One query."""
    below = [f"{topic}.%" for topic in topics]
    sql = (
        f"SELECT id FROM {MutationEvent._meta.db_table}"  # noqa: S608 constant table name
        " WHERE id > %s AND id <= %s AND NOT id = ANY(%s::bigint[]) AND ("
        " topic = ANY(%s::text[]) OR topic LIKE ANY(%s::text[])"
        " OR refresh_topic = ANY(%s::text[]) OR refresh_topic LIKE ANY(%s::text[])"
        " OR EXISTS (SELECT 1 FROM jsonb_array_elements(ui_actions) AS a WHERE a->>'type' = 'reload_topic'"
        " AND (a->>'topic' = ANY(%s::text[]) OR a->>'topic' LIKE ANY(%s::text[])))) ORDER BY id LIMIT 100"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [after, head, seen or [], *[list(topics), below] * 3])
        return [row[0] for row in cursor.fetchall()]


def settled_head() -> int:
    """The newest event id no older transaction can still add a row below: the newest event older
    than SETTLE_SECONDS (a short backward scan of the newest ids)."""
    newest = _newest_before(timezone.now() - timedelta(seconds=SETTLE_SECONDS))
    return next((row["id"] for row in newest), 0)


def _newest_before(cutoff: datetime) -> QuerySet[MutationEvent, Any]:
    """The id of the newest event created before `cutoff` (as a one-row subquery or query)."""
    return MutationEvent.objects.filter(created_at__lt=cutoff).order_by("-id").values("id")[:1]


# Read on every page (its live cursor and the navigation's badges): compiled once.
_HEAD = Prepared(lambda: MutationEvent.objects.order_by("-id").values_list("id", flat=True)[:1])


def head_id() -> int:
    """The newest event id: a freshly rendered page already reflects everything up to it."""
    return _HEAD.first() or 0


def serialize_event(event: MutationEvent) -> dict[str, Any]:
    """The one wire shape of an event (WebSocket, SSE and the JSON cursor)."""
    return {
        "id": event.id,
        "topic": event.topic,
        "ui_actions": event.ui_actions,
        "trigger_reload": event.trigger_reload,
        "refresh_topic": event.refresh_topic,
        "origin_tool": event.origin_tool,
        "origin_run": event.origin_run,
        "actor_id": event.actor_id,
        "operation": event.operation,
        "created_at": event.created_at.isoformat(),
    }


# --- retention --------------------------------------------------------------------------------
def prune_events(older_than: timedelta | datetime) -> int:
    """Delete events older than a retention period (or a cutoff time); returns how many.

    Events are a replay buffer, not an audit log: clients that were away longer than the
    retention reload their page instead. Deleting in batches keeps each statement short.
    """
    cutoff = timezone.now() - older_than if isinstance(older_than, timedelta) else older_than
    old = MutationEvent.objects.filter(created_at__lt=cutoff)
    total = 0
    while True:
        batch = old.order_by("id").values("id")[:PRUNE_BATCH]
        deleted, _ = MutationEvent.objects.filter(id__in=Subquery(batch)).delete()
        total += deleted
        if deleted < PRUNE_BATCH:
            return total
