"""The Fristenkontrolle query: which Fristen a person sees with which filters, in the order the
office works them (overdue first, then by due date), and today's Vorfristen.

One function for every surface that counts or lists Fristen — the Fristen page, the tools, the
REST list and the dashboard's "Heute" — so their figures are always the same.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import BooleanField, Case, Count, Q, QuerySet, Value, When
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.calendar.models import CalendarEvent, PreDeadline
from apps.calendar.visibility import visible_events
from apps.clients import visibility as client_visibility
from apps.core import validation
from apps.core.db.prepared import SHAPE, Prepared
from apps.core.db.search import search

Status = CalendarEvent.Status


@dataclass(frozen=True)
class FristenFilter:
    """What the Fristenkontrolle narrows by. Every field is optional; `status=None` means all."""

    person_id: int | None = None  # responsible or deputy (the "mine" view)
    responsible_id: int | None = None
    deputy_id: int | None = None
    status: str | None = Status.OPEN
    due_from: dt.date | None = None  # first due day, inclusive
    due_to: dt.date | None = None  # last due day, inclusive
    client_id: int | None = None
    case_id: int | None = None
    criticality: str | None = None
    # Fristen whose responsible person was deactivated (or who have none): the admins' worklist.
    orphaned: bool = False
    query: str | None = None


def today_for(principal: Principal) -> dt.date:
    return timezone.now().astimezone(principal.time_zone).date()


def _midnight(day: dt.date, principal: Principal) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(0), tzinfo=principal.time_zone)


def _narrowed(principal: Principal, filters: FristenFilter) -> QuerySet[CalendarEvent]:
    qs = visible_events(principal).filter(kind=CalendarEvent.Kind.DEADLINE)
    if filters.status:
        qs = qs.filter(status=validation.choice(filters.status, "status", Status.values))
    if filters.person_id:
        qs = qs.filter(Q(responsible_id=filters.person_id) | Q(deputy_id=filters.person_id))
    if filters.responsible_id:
        qs = qs.filter(responsible_id=filters.responsible_id)
    if filters.deputy_id:
        qs = qs.filter(deputy_id=filters.deputy_id)
    if filters.due_from and filters.due_to and filters.due_to < filters.due_from:
        raise validation.invalid("due_to", _("must not be before the first day"))
    if filters.due_from:
        qs = qs.filter(start__gte=_midnight(filters.due_from, principal))
    if filters.due_to:
        qs = qs.filter(start__lt=_midnight(filters.due_to + dt.timedelta(days=1), principal))
    if filters.client_id:
        # Only clients the caller can see: an invisible client's id finds nothing.
        qs = qs.filter(client_id=filters.client_id, client__in=client_visibility.visible_clients(principal))
    if filters.case_id:
        qs = qs.filter(case_id=filters.case_id, case__in=client_visibility.visible_cases(principal))
    if filters.criticality:
        qs = qs.filter(
            criticality=validation.choice(
                filters.criticality, "criticality", CalendarEvent.Criticality.values
            )
        )
    if filters.orphaned:
        qs = qs.filter(Q(responsible__isnull=True) | Q(responsible__is_active=False))
    if filters.query:
        text = validation.text(filters.query, "query", max_length=200)
        # The words may also name the Mandant ("meier" finds every Frist of Meier GmbH).
        clients = search(client_visibility.visible_clients(principal), text).order_by().values("id")
        qs = search(qs, text) | qs.filter(client_id__in=clients)
    return qs


def deadlines_for(principal: Principal, filters: FristenFilter | None = None) -> QuerySet[CalendarEvent]:
    """The Fristen `principal` may see that match `filters`: overdue (open, due before today) first,
    then by due date. Each row carries `is_overdue`."""
    filters = filters or FristenFilter()
    today = today_for(principal)
    today_start = _midnight(today, principal)
    overdue = Case(
        When(status=Status.OPEN, start__lt=today_start, then=Value(True)),
        default=Value(False),
        output_field=BooleanField(),
    )
    qs = _narrowed(principal, filters).annotate(is_overdue=overdue)
    if filters.status == Status.OPEN:
        # Open Fristen before today are exactly the overdue ones: the due order alone puts them
        # first, and it walks the (status, start) index instead of sorting every open Frist.
        return qs.order_by("start", "id")
    return qs.order_by("-is_overdue", "start", "id")


def pre_deadlines_today(
    principal: Principal, filters: FristenFilter | None = None, day: dt.date | None = None
) -> QuerySet[PreDeadline]:
    """The Vorfristen falling on `day` (default today) of the open Fristen that match `filters`."""
    filters = filters or FristenFilter()
    day = day or today_for(principal)
    events = _narrowed(principal, filters).filter(status=Status.OPEN)
    return (
        PreDeadline.objects.filter(due_date=day, event__in=events)
        .select_related("event", "event__client", "event__responsible")
        .order_by("event__start", "id")
    )


def summary(principal: Principal, filters: FristenFilter | None = None) -> dict[str, Any]:
    """Counts for the open Fristen that match `filters`, in one query: open, overdue, due this
    week (today … Sunday), critical (criticality high or critical), Vorfristen today."""
    filters = filters or FristenFilter()
    today = today_for(principal)
    if (
        principal.user is not None
        and filters.person_id
        and filters == FristenFilter(person_id=filters.person_id)
    ):
        # A person's own figures (the start page of everybody): compiled once per day and zone.
        (row,) = _PERSON_SUMMARY(
            user_id=principal.user.pk, person_id=filters.person_id, day=today, zone=principal.time_zone.key
        )
        return {name: row[name] for name in SUMMARY_COUNTS}
    open_ = _narrowed(principal, FristenFilter(**{**filters.__dict__, "status": Status.OPEN}))
    return open_.aggregate(**_summary_counts(today, principal.time_zone))


SUMMARY_COUNTS = ("open", "overdue", "this_week", "critical", "pre_deadlines_today")


def _summary_counts(today: dt.date, zone: zoneinfo.ZoneInfo) -> dict[str, Count]:
    today_start = dt.datetime.combine(today, dt.time(0), tzinfo=zone)
    week_end = dt.datetime.combine(today + dt.timedelta(days=7 - today.weekday()), dt.time(0), tzinfo=zone)
    # The Vorfristen join repeats a Frist once per Vorfrist: the Fristen are counted distinct.
    return {
        "open": Count("id", distinct=True),
        "overdue": Count("id", filter=Q(start__lt=today_start), distinct=True),
        "this_week": Count("id", filter=Q(start__gte=today_start, start__lt=week_end), distinct=True),
        "critical": Count("id", filter=Q(criticality__in=("high", "critical")), distinct=True),
        "pre_deadlines_today": Count("pre_deadlines", filter=Q(pre_deadlines__due_date=today), distinct=True),
    }


def _person_summary(user_id: int, person_id: int, day: dt.date, zone: str) -> QuerySet:
    """`summary(principal of user_id, FristenFilter(person_id=…))` as a queryset of one row: the
    same filters and counts, grouped by a constant (no GROUP BY: one row, zeros when none)."""
    principal = Principal(user=get_user_model()(pk=user_id))
    open_ = _narrowed(principal, FristenFilter(person_id=person_id))
    counts = _summary_counts(day, zoneinfo.ZoneInfo(zone))
    return open_.order_by().annotate(one=Value(1)).values("one").annotate(**counts).values(*SUMMARY_COUNTS)


_PERSON_SUMMARY = Prepared(_person_summary, user_id=int, person_id=int, day=SHAPE, zone=SHAPE)


def nav_badge(user) -> int:
    """The navigation's count beside "Fristen": the person's open Fristen due today or overdue."""
    if user is None or not user.is_authenticated:
        return 0
    principal = Principal.for_user(user)
    tomorrow = _midnight(today_for(principal) + dt.timedelta(days=1), principal)
    return _narrowed(principal, FristenFilter(person_id=user.pk)).filter(start__lt=tomorrow).count()
