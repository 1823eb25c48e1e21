"""The only place that changes Kalender state. Tools, REST API, pages, admin and jobs call these
functions with a `Principal` and the operation's validated input model (`contracts.EventCreate`,
`EventUpdate`, `EventMove`, `EventFilter`; internal callers `apps.core.inputs.build` it); what the
contract cannot know (visibility, people, rules, zones), audit and live events are enforced here.

Invisible entries answer exactly like missing ones (`event_not_found`), so ids cannot be probed.
Times arrive as ISO 8601 text (or dates); text without an offset is read in the entry's
time zone (what a person in the office means), and everything is stored aware.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.calendar import events, fristen, lifecycle, recurrence
from apps.calendar.contracts import (
    EventCreate,
    EventFilter,
    EventMove,
    EventUpdate,
    FiledEvent,
    FiledEventUpdate,
)
from apps.calendar.errors import DeadlineNotDeletable, DeadlineNotOpen
from apps.calendar.models import RRULE_MAX, CalendarEvent
from apps.calendar.reads import get_event
from apps.calendar.reasons import CodedReason
from apps.calendar.records import EVENT_VERSION, Occurrence, event_record, with_relations
from apps.calendar.visibility import visible_events
from apps.clients import visibility as client_visibility
from apps.clients.services import resolve_case, resolve_client
from apps.core import validation
from apps.core.db.paging import total_of
from apps.core.db.search import search
from apps.core.errors import Forbidden, InvalidUrl
from apps.core.inputs import build
from apps.core.origin import INTERNAL, Origin
from apps.deadlines import services as deadline_services
from apps.deadlines.errors import DeadlineRuleNotFound
from apps.notifications.services import notify

MAX_PAGE = 200
MAX_WINDOW_DAYS = 800
DEFAULT_WINDOW_DAYS = 31
DEFAULT_DURATION = dt.timedelta(hours=1)
# Plain text columns: the contract bounds them; stored stripped ("" when emptied).
TEXT_FIELDS = ("description", "location", "conference_provider", "legal_basis", "source_label")
# The entry's origin by the surface that created it (a filed entry names its own).
_SOURCE_OF_SURFACE = {
    "api": CalendarEvent.Source.API,
    "agent": CalendarEvent.Source.AGENT,
    "live": CalendarEvent.Source.AGENT,
}
Moment = str | dt.date | None


# --- validation helpers -----------------------------------------------------------------------
def _zone_name(value: str | None, principal: Principal) -> str:
    name = value or principal.time_zone.key
    try:
        recurrence.zone(name)
    except recurrence.RecurrenceError:
        raise validation.invalid("time_zone", _("is not a known time zone, e.g. Europe/Berlin")) from None
    return name


def parse_moment(value: Moment, field: str, tz_name: str, *, all_day: bool = False) -> dt.datetime | None:
    """ISO text, date or datetime → aware datetime. A bare date means local midnight."""
    if value is None or value == "":
        return None
    tz = recurrence.zone(tz_name)
    if isinstance(value, str):
        text = value.strip()
        try:
            value = dt.date.fromisoformat(text) if len(text) == 10 else dt.datetime.fromisoformat(text)
        except ValueError:
            raise validation.invalid(
                field, _("must be a date and time like 2026-12-01T10:00:00+01:00")
            ) from None
    if isinstance(value, dt.date):
        validation.in_range(value, field)
    if isinstance(value, dt.datetime):
        if all_day:
            value = value.astimezone(tz).date() if timezone.is_aware(value) else value.date()
        elif timezone.is_naive(value):
            return value.replace(tzinfo=tz)
        else:
            return value
    if isinstance(value, dt.date):
        return dt.datetime.combine(value, dt.time(0), tzinfo=tz)
    raise validation.invalid(field, _("must be a date and time like 2026-12-01T10:00:00+01:00"))


def _url(value: str | None) -> str:
    """The contract's safe URL, and a meeting is on the web: not a mailto: or a path here."""
    value = (value or "").strip()
    if value:  # safe, and a meeting is on the web: not a mailto: or a path here
        try:
            URLValidator(schemes=["https", "http"])(value)
        except ValidationError:
            raise validation.invalid(
                "conference_url", _("must be a web address starting with https://"), InvalidUrl
            ) from None
    return value


def _known_rule(code: str) -> None:
    """A rule of the deadlines catalog (`deadline_rule_not_found`, on the field, otherwise)."""
    try:
        deadline_services.rule_for(code)
    except DeadlineRuleNotFound as exc:
        raise DeadlineRuleNotFound(
            exc.message, details={"field_errors": {"rule_code": exc.message}}
        ) from None


def _attendees(value: list[int] | None) -> list[int]:
    ids = sorted(set(value or ()))
    known = set(get_user_model().objects.filter(id__in=ids, is_active=True).values_list("id", flat=True))
    if known != set(ids):
        raise validation.invalid(
            "attendee_ids", _("unknown people: %(ids)s") % {"ids": sorted(set(ids) - known)}
        )
    return ids


# --- reading ----------------------------------------------------------------------------------
def window(principal: Principal, start: Moment = None, end: Moment = None) -> tuple[dt.datetime, dt.datetime]:
    """The asked window, or from today (principal's time zone) for a month. Bounded, so a series
    can always be expanded."""
    tz_name = principal.time_zone.key
    begin = parse_moment(start, "start", tz_name)
    if begin is None:
        begin = dt.datetime.combine(timezone.now().astimezone(principal.time_zone).date(), dt.time(0))
        begin = begin.replace(tzinfo=principal.time_zone)
    finish = parse_moment(end, "end", tz_name) or begin + dt.timedelta(days=DEFAULT_WINDOW_DAYS)
    if finish <= begin:
        raise validation.invalid("end", _("must be after start"))
    if finish - begin > dt.timedelta(days=MAX_WINDOW_DAYS):
        raise validation.invalid("end", _("the window may span at most %(n)d days") % {"n": MAX_WINDOW_DAYS})
    return begin, finish


def _in_window(qs: QuerySet[CalendarEvent], begin: dt.datetime, finish: dt.datetime) -> QuerySet:
    single = Q(rrule="", start__lt=finish) & (Q(end__gt=begin) | Q(start__gte=begin))
    series = ~Q(rrule="") & Q(start__lt=finish, recurrence_end__gte=begin)
    return qs.filter(single | series)


def _filtered(principal: Principal, filters: EventFilter) -> QuerySet[CalendarEvent]:
    qs = visible_events(principal)
    if filters.kind:
        qs = qs.filter(kind=filters.kind)
    if filters.status:  # the Fristenkontrolle's filters name Fristen only
        qs = qs.filter(kind="deadline", status=filters.status)
    if filters.responsible_id:
        qs = qs.filter(responsible_id=filters.responsible_id)
    if filters.deputy_id:
        qs = qs.filter(deputy_id=filters.deputy_id)
    if filters.client_id is not None:
        qs = qs.filter(client=resolve_client(principal, filters.client_id))
    if filters.case_id is not None:
        qs = qs.filter(case=resolve_case(principal, filters.case_id))
    query = filters.query
    if query:
        text = validation.text(query, "query", max_length=200)
        # The words may also name the Mandant ("meier" finds every entry linked to Meier GmbH).
        clients = search(client_visibility.visible_clients(principal), text).values("id")
        qs = search(qs, text) | qs.filter(client_id__in=clients)
    return qs


def _expand(rows, begin: dt.datetime, finish: dt.datetime) -> list[tuple[int, dt.datetime, dt.datetime]]:
    """(id, start, end) per occurrence in the window, sorted by start."""
    found = []
    for pk, start, end, rule, tz_name in rows:
        if not rule:
            found.append((pk, start, end))
            continue
        for occ_start, occ_end in recurrence.occurrences(rule, start, end, tz_name, begin, finish):
            found.append((pk, occ_start, occ_end))
    found.sort(key=lambda row: (row[1], row[0]))
    return found


def list_events(principal: Principal, filters: EventFilter | None = None) -> tuple[list[Occurrence], int]:
    """A page of occurrences in a window and their total. Single entries are counted and paged in
    SQL (index on start); only series (few) are expanded in Python and merged in. Then the page's
    entries are loaded in full: five queries, whatever the window holds."""
    filters = filters if filters is not None else EventFilter()
    begin, finish = window(principal, filters.start, filters.end)
    limit, offset = filters.limit, filters.offset
    qs = _filtered(principal, filters)
    singles = qs.filter(rrule="", start__lt=finish).filter(Q(end__gt=begin) | Q(start__gte=begin))
    head = list(singles.order_by("start", "id").values_list("id", "start", "end")[: offset + limit])
    total = total_of(singles, head, offset=0, limit=offset + limit)
    series_rows = (
        qs.exclude(rrule="")
        .filter(start__lt=finish, recurrence_end__gte=begin)
        .values_list("id", "start", "end", "rrule", "time_zone")
    )
    series = _expand(series_rows, begin, finish)
    rows = sorted(head + series, key=lambda row: (row[1], row[0]))
    page = rows[offset : offset + limit]
    by_id = {e.pk: e for e in with_relations(CalendarEvent.objects.filter(pk__in={r[0] for r in page}))}
    return [Occurrence(by_id[pk], s, e) for pk, s, e in page], total + len(series)


# What the calendar grids read of an entry; the description and audit fields stay in the database.
GRID_FIELDS = ("id", "title", "kind", "start", "end", "all_day", "rrule", "time_zone", "visibility", "criticality",
               "location", "conference_url", "conference_provider", "owner_id", "client__id", "client__name",
               "status")  # fmt: skip


def occurrence_rows(
    principal: Principal,
    begin: dt.datetime,
    finish: dt.datetime,
    *,
    query: str | None = None,
    client_id: int | None = None,
) -> list[tuple[int, dt.datetime, dt.datetime]]:
    """(entry id, start, end) of every occurrence in a window, sorted by start: one narrow query
    (no model instances), so a month with a thousand entries stays cheap to lay out."""
    filters = EventFilter.model_construct(query=query, client_id=client_id)
    qs = _in_window(_filtered(principal, filters), begin, finish)
    return _expand(qs.values_list("id", "start", "end", "rrule", "time_zone"), begin, finish)


def grid_events(principal: Principal, ids) -> dict[int, CalendarEvent]:
    """The entries a calendar grid actually shows, with what it renders (and the client's name):
    one query, however many ids."""
    qs = visible_events(principal).filter(pk__in=set(ids)).select_related("client").only(*GRID_FIELDS)
    return {event.pk: event for event in qs}


def occurrences(
    principal: Principal,
    begin: dt.datetime,
    finish: dt.datetime,
    *,
    query: str | None = None,
    client_id: int | None = None,
) -> list[Occurrence]:
    """Every occurrence in a window with its entry (two queries)."""
    rows = occurrence_rows(principal, begin, finish, query=query, client_id=client_id)
    by_id = grid_events(principal, (pk for pk, _s, _e in rows))
    return [Occurrence(by_id[pk], s, e) for pk, s, e in rows if pk in by_id]


def list_deadlines(
    principal: Principal,
    *,
    overdue_days: int = 30,
    limit: int = 100,
    query: str | None = None,
    client_id: int | None = None,
    case_id: int | None = None,
) -> list[CalendarEvent]:
    """Open Fristen by urgency (the Fristenkontrolle's order: overdue first, then by due date),
    the more critical first on the same moment; overdue ones of the last `overdue_days` only."""
    resolve_client(principal, client_id)  # an unknown or invisible client is refused by name
    resolve_case(principal, case_id)  # so is a case
    since = timezone.now() - dt.timedelta(days=overdue_days)
    rank = {"critical": 0, "high": 1, "normal": 2, "low": 3}
    filters = fristen.FristenFilter(
        query=query or None,
        client_id=client_id or None,
        case_id=case_id or None,
    )
    qs = fristen.deadlines_for(principal, filters).filter(start__gte=since)
    rows = list(with_relations(qs)[: max(1, min(limit, 500))])
    return sorted(rows, key=lambda e: (not e.is_overdue, e.start, rank.get(e.criticality, 2), e.pk))


def open_deadline_counts(principal: Principal, case_ids: list[int]) -> dict[int, int]:
    """Open visible Fristen per case id (the client page's open items): one query."""
    rows = (
        visible_events(principal)
        .filter(kind=CalendarEvent.Kind.DEADLINE, status=CalendarEvent.Status.OPEN, case_id__in=case_ids)
        .order_by()
        .values("case_id")
        .annotate(n=Count("id"))
        .values_list("case_id", "n")
    )
    return dict(rows)


# --- writing ----------------------------------------------------------------------------------
def _apply_times(event: CalendarEvent, start: Moment, end: Moment, recurrence_until: Moment = None) -> None:
    """Derive start/end (all-day and deadline rules), the series bound and the reminder moment."""
    start_at = parse_moment(start, "start", event.time_zone, all_day=event.all_day)
    if start_at is None:
        raise validation.invalid("start", _("is required"))
    end_at = parse_moment(end, "end", event.time_zone, all_day=event.all_day)
    if event.all_day:
        end_at = (end_at or start_at) + dt.timedelta(days=1)
        end_at = end_at.replace(tzinfo=start_at.tzinfo)
    elif end_at is None:
        end_at = start_at if event.is_deadline else start_at + DEFAULT_DURATION
    if end_at < start_at:
        raise validation.invalid("end", _("must not be before the start"))
    event.start, event.end = start_at, end_at
    until = parse_moment(recurrence_until, "recurrence_until", event.time_zone)
    if until is not None and until.time() == dt.time(0):
        until += dt.timedelta(days=1, seconds=-1)  # a date bound includes that whole day
    event.rrule = validation.text(
        recurrence.normalize(event.rrule, until=until), "rrule", max_length=RRULE_MAX
    )
    event.recurrence_end = None
    if event.rrule:
        try:
            series = recurrence.validate(event.rrule, start_at, end_at, event.time_zone)
        except recurrence.RecurrenceError as exc:
            raise validation.invalid("rrule", _("is not usable: %(reason)s") % {"reason": exc}) from None
        event.recurrence_end = series.last_end


def _schedule_reminder(event: CalendarEvent, now: dt.datetime) -> None:
    """The next reminder moment: of the first occurrence that has not started yet."""
    event.remind_at, event.reminded_at = None, None
    if event.remind_minutes_before is None:
        return
    lead = dt.timedelta(minutes=event.remind_minutes_before)
    start = event.start
    if event.rrule and start <= now:
        start = recurrence.next_after(event.rrule, event.start, event.time_zone, now)
        if start is None:
            return
    event.remind_at = start - lead


def _set_fields(event: CalendarEvent, principal: Principal, values: dict[str, Any]) -> list[int] | None:
    """Apply the contract's fields (not times) as validated; returns attendee ids when given.
    Only what the contract cannot check is checked here: rows named by id, zones, rules, privacy."""
    if "title" in values:
        event.title = (values["title"] or "").strip()
        if not event.title:
            raise validation.invalid("title", _("must not be empty"))
    for name in TEXT_FIELDS:
        if name in values:
            setattr(event, name, (values[name] or "").strip())
    if "conference_url" in values:
        event.conference_url = _url(values["conference_url"])
    if "client_id" in values:
        event.client = resolve_client(principal, values["client_id"])
    if "case_id" in values:  # the Akte decides the Mandant; another client's is refused
        event.case = resolve_case(principal, values["case_id"], client_id=event.client_id)
    elif event.case_id and event.client_id and event.client_id != event.case.client_id:
        resolve_case(principal, event.case_id, client_id=event.client_id)  # the client changed under it
    if event.case is not None and event.client_id is None:
        event.client = event.case.client
    if "trigger_date" in values:
        event.trigger_date = values["trigger_date"]
    if "rule_code" in values:
        event.rule_code = (values["rule_code"] or "").strip().lower()
        if event.rule_code:
            _known_rule(event.rule_code)
    lifecycle.apply_people(event, values)
    for name in ("kind", "criticality", "visibility"):  # the contract's enums, stored as their text
        if values.get(name) is not None:
            setattr(event, name, str(values[name]))
    if "all_day" in values:
        event.all_day = bool(values["all_day"])
    if "time_zone" in values:
        event.time_zone = _zone_name(values["time_zone"], principal)
    if "rrule" in values:
        event.rrule = (values["rrule"] or "").strip()
    if "remind_minutes_before" in values:
        event.remind_minutes_before = values["remind_minutes_before"]
    if event.visibility == CalendarEvent.Visibility.PRIVATE:
        if principal.user is None:
            raise validation.invalid("visibility", _("only a person can have private entries"))
        if event.owner_id is None:
            event.owner = principal.user
        elif principal.user is None or principal.user.pk != event.owner_id:
            raise Forbidden(_("Only the owner can make this entry private."))
    attendee_ids = _attendees(values["attendee_ids"]) if "attendee_ids" in values else None
    if (
        event.visibility == CalendarEvent.Visibility.PRIVATE
        and attendee_ids
        and set(attendee_ids) - {event.owner_id}
    ):
        raise validation.invalid("attendee_ids", _("a private entry cannot have other attendees"))
    return attendee_ids


@transaction.atomic
def create_event(principal: Principal, data: EventCreate, *, origin: Origin = INTERNAL) -> CalendarEvent:
    """A new entry from the validated `EventCreate` (or the document workflow's `FiledEvent`); its
    origin is the surface's (`origin`), a filed entry's its own."""
    filed = data.source_origin if isinstance(data, FiledEvent) else None
    source = (
        str(filed)
        if filed is not None
        else _SOURCE_OF_SURFACE.get(origin.surface, CalendarEvent.Source.MANUAL)
    )
    values = data.values()
    values.pop("source_origin", None)
    start, end, until = values.pop("start"), values.pop("end", None), values.pop("recurrence_until", None)
    event = CalendarEvent(
        owner=principal.user or principal.acting_user,
        created_by=principal.audit_actor,
        created_by_service=principal.service,
        source_origin=source,
    )
    pre_deadlines = values.pop("pre_deadlines", None)
    attendee_ids = _set_fields(event, principal, {"time_zone": None, **values})
    _apply_times(event, start, end, until)
    _schedule_reminder(event, timezone.now())
    deadline_rows = _deadline_defaults(event, principal, values, pre_deadlines) if event.is_deadline else None
    event.save()
    if attendee_ids:
        event.attendees.set(attendee_ids)
    if deadline_rows is not None:
        _start_fristenbuch(event, principal, deadline_rows)
    event = get_event(principal, event.pk)
    events.event_changed(event, "calendar.event.created")
    return event


def _deadline_defaults(
    event: CalendarEvent, principal: Principal, values: dict[str, Any], pre_deadlines: list | None
) -> list:
    """A new Frist: responsible is its author unless named; its Vorfristen (given, else default)."""
    if event.rrule:
        raise validation.invalid("rrule", _("a Frist does not repeat: enter each Frist on its own"))
    if "responsible_id" not in values and principal.user is not None:
        event.responsible = principal.user
    return lifecycle.initial_pre_deadlines(event, pre_deadlines)


def _start_fristenbuch(event: CalendarEvent, principal: Principal, rows: list) -> None:
    lifecycle.set_pre_deadlines(event, rows)
    empty = dict.fromkeys(lifecycle.TRACKED, "")
    lifecycle.record_changes(event, principal, empty, lifecycle.snapshot(event, rows), _("Frist entered"))


def _deadline_guard(event: CalendarEvent, changes: dict[str, Any]) -> None:
    """What an update may not do to a Frist: turn it into an appointment (that would delete it from
    the Fristenkontrolle), or move a Frist that is done or cancelled."""
    if "kind" in changes and changes["kind"] != CalendarEvent.Kind.DEADLINE:
        raise validation.invalid("kind", _("a Frist stays a Frist: cancel it with a reason instead"))
    if event.status != CalendarEvent.Status.OPEN and {"start", "end", "all_day", "pre_deadlines"} & set(
        changes
    ):
        raise DeadlineNotOpen(
            _("This Frist is already %(status)s.") % {"status": event.get_status_display()},
            details={"status": event.status},
        )


@transaction.atomic
def update_event(principal: Principal, event_id: int, data: EventUpdate) -> CalendarEvent:
    """Partial update: fields not sent stay as they are (a concurrent change to another field
    survives). With `expected_version`, a stale write is refused instead. Moving a Frist's due
    date needs a `reason`; the Fristenbuch records every tracked change with it. The system's own
    reasons (`FiledEventUpdate.reason_code`) are stored as their code and shown in each reader's
    language."""
    coded = None
    reason = data.reason
    if isinstance(data, FiledEventUpdate) and data.reason_code:
        coded = CodedReason(data.reason_code, data.reason_params)
        reason = coded.text()
    expected_version = data.expected_version
    changes = data.changes()
    event = get_event(principal, event_id, for_update=True)
    was_deadline = event.is_deadline
    if was_deadline:
        _deadline_guard(event, changes)
        before, old_due = lifecycle.snapshot(event), lifecycle.due_day(event)
    pre_deadlines = changes.pop("pre_deadlines", None)
    EVENT_VERSION.check(event, expected_version, lambda: get_event(principal, event.pk))
    old_visibility, old_owner_id = event.visibility, event.owner_id
    local = recurrence.zone(event.time_zone)
    old_start, old_end = event.start.astimezone(local), event.end.astimezone(local)
    if event.all_day:  # re-apply as dates, the stored end is the exclusive next midnight
        old_end = (old_end - dt.timedelta(days=1)) if old_end > old_start else old_end
    reminder_before = (event.start, event.rrule, event.remind_minutes_before)
    attendee_ids = _set_fields(event, principal, changes)
    private = event.visibility == CalendarEvent.Visibility.PRIVATE
    if (
        attendee_ids is None
        and private
        and set(event.attendees.values_list("id", flat=True)) - {event.owner_id}
    ):
        raise validation.invalid("attendee_ids", _("a private entry cannot have other attendees"))
    start, end = changes.get("start", old_start), changes.get("end", old_end)
    if "start" in changes and "end" not in changes:
        new_start = parse_moment(changes["start"], "start", event.time_zone, all_day=event.all_day)
        end = None if new_start is None else new_start + (old_end - old_start)  # keep the duration
    _apply_times(event, start, end, changes.get("recurrence_until"))
    if (event.start, event.rrule, event.remind_minutes_before) != reminder_before:
        _schedule_reminder(event, timezone.now())  # a new moment: remind again
    new_rows = None
    if was_deadline:
        reason_text = lifecycle.reason_text(reason)
        if lifecycle.due_text(event) != before["due"]:
            lifecycle.reason_text(reason, required=True)
        if changes.get("rrule"):
            raise validation.invalid("rrule", _("a Frist does not repeat: enter each Frist on its own"))
        if pre_deadlines is not None:
            new_rows = lifecycle.pre_deadline_values(pre_deadlines, lifecycle.due_day(event))
        else:
            new_rows = lifecycle.moved_pre_deadlines(event, old_due)
    elif event.is_deadline:  # an appointment became a Frist
        new_rows = _deadline_defaults(event, principal, changes, pre_deadlines)
    event.version += 1
    event.save()
    if attendee_ids is not None:
        event.attendees.set(attendee_ids)
    if was_deadline:
        if new_rows is not None:
            lifecycle.set_pre_deadlines(event, new_rows)
        lifecycle.record_changes(event, principal, before, lifecycle.snapshot(event), reason_text, coded)
    elif event.is_deadline:
        _start_fristenbuch(event, principal, new_rows)
    event = get_event(principal, event.pk) if _visible(principal, event) else event
    events.event_changed(event, "calendar.event.updated", old_visibility, old_owner_id)
    return event


def _visible(principal: Principal, event: CalendarEvent) -> bool:
    return visible_events(principal).filter(pk=event.pk).exists()


@transaction.atomic
def move_event(principal: Principal, event_id: int, data: EventMove) -> CalendarEvent:
    """Drag and drop in the month view: shift the entry (or series) by whole days, keeping its
    time of day and duration. A Frist moves only with a reason (the page asks for it). The
    contract bounds both days, so the shift cannot overflow."""
    days = (data.to_date - data.from_date).days
    event = get_event(principal, event_id)
    if days == 0:
        return event
    local = recurrence.zone(event.time_zone)
    start = (event.start.astimezone(local).replace(tzinfo=None) + dt.timedelta(days=days)).isoformat()
    end = (event.end.astimezone(local).replace(tzinfo=None) + dt.timedelta(days=days)).isoformat()
    if event.all_day:
        end = (event.end.astimezone(local) + dt.timedelta(days=days - 1)).date().isoformat()
    return update_event(principal, event.pk, build(EventUpdate, start=start, end=end, reason=data.reason))


@transaction.atomic
def delete_event(principal: Principal, event_id: int) -> int:
    event = get_event(principal, event_id, for_update=True)
    if event.is_deadline:
        raise DeadlineNotDeletable(
            _("A Frist is never deleted: cancel it with a reason, so the Fristenbuch keeps it.")
        )
    pk, visibility, owner_id = event.pk, event.visibility, event.owner_id
    event.delete()
    events.event_deleted(pk, visibility, owner_id)
    return pk


# --- reminders --------------------------------------------------------------------------------
def send_due_reminders(now: dt.datetime | None = None, batch: int = 500) -> int:
    """Notify the attendees (or the owner) of entries whose reminder moment has come. Each row is
    claimed with SKIP LOCKED and marked in the same transaction, so concurrent or repeated runs
    send every reminder once. A series moves on to its next occurrence's reminder."""
    now = now or timezone.now()
    sent = 0
    with transaction.atomic():
        due = list(
            CalendarEvent.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(remind_at__lte=now, reminded_at__isnull=True)
            .select_related("owner")
            .prefetch_related("attendees")
            .order_by("remind_at")[:batch]
        )
        for event in due:
            occurrence_start = event.remind_at + dt.timedelta(minutes=event.remind_minutes_before or 0)
            if occurrence_start + (event.end - event.start) >= now:  # never remind of the past
                for person in _reminder_recipients(event):
                    notify(
                        person,
                        kind="calendar.reminder",
                        title=event.title,
                        body=_reminder_body(event, occurrence_start, person),
                        url=event_record_url(event.pk),
                        data={"event_id": event.pk, "start": occurrence_start.isoformat()},
                    )
                    sent += 1
            event.reminded_at = now
            if event.rrule:
                following = recurrence.next_after(event.rrule, event.start, event.time_zone, occurrence_start)
                if following is not None:
                    event.remind_at = following - dt.timedelta(minutes=event.remind_minutes_before or 0)
                    event.reminded_at = None
            CalendarEvent.objects.filter(pk=event.pk).update(
                remind_at=event.remind_at, reminded_at=event.reminded_at
            )
    return sent


def _reminder_recipients(event: CalendarEvent) -> list:
    people = [u for u in event.attendees.all() if u.is_active]
    if event.visibility == CalendarEvent.Visibility.PRIVATE:
        people = [event.owner] if event.owner and event.owner.is_active else []
    elif not people and event.owner is not None and event.owner.is_active:
        people = [event.owner]
    return people


def _reminder_body(event: CalendarEvent, start: dt.datetime, person) -> str:
    from django.utils import formats, translation

    with translation.override(person.language):
        local = timezone.localtime(start, recurrence.zone(person.time_zone))
        when = formats.date_format(local, "SHORT_DATETIME_FORMAT")
        if event.is_deadline:
            return _("Deadline due %(when)s") % {"when": when}
        return _("Starts %(when)s") % {"when": when} + (f" · {event.location}" if event.location else "")


def event_record_url(event_id: int) -> str:
    from apps.calendar.records import detail_url

    return detail_url(event_id)


def deadline_page(
    principal: Principal, filters, *, limit: int = 50, offset: int = 0
) -> tuple[list[dict], int]:
    """A page of the Fristenkontrolle as records and the total: a fixed number of queries."""
    limit, offset = validation.page(limit, offset, MAX_PAGE)
    resolve_case(principal, filters.case_id)  # an unknown or invisible case is refused by name
    qs = fristen.deadlines_for(principal, filters)
    rows = list(with_relations(qs)[offset : offset + limit])
    return [event_record(e) for e in rows], total_of(qs, rows, offset=offset, limit=limit)
