"""The morning digest: one notification per person at 07:00 in *their* time zone (the profile's
`time_zone`, the instance's by default) with today's Fristen and Vorfristen, their overdue tasks and
their unread notifications. A person turns it off in their settings (`User.morning_digest`).

The beat job `apps.notifications.jobs.send_morning_digest` runs every 15 minutes (every time zone's
offset is a multiple of 15 minutes, so each person's 07:00 is a tick) and sends the digests that are
due: those of the people in whose zone it is between 07:00 and noon and who have none for their local
day yet. A job that missed 07:00 (worker down) so still sends later in the morning, never in the
afternoon. The key ("digest:<local day>") keeps it at one a day however often the job runs.

The figures come from the apps that own them through `notifications.digest_counts`: each
contribution is `counts(today) -> {user id: {kind: n}}`, computed for the whole office in one
query, so the job's reading cost does not grow with the people. Only people with something to do
today get a digest.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections import Counter, defaultdict
from collections.abc import Iterable

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count, Exists, OuterRef
from django.utils import formats, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.core.plugins import contributions
from apps.notifications.models import Notification
from apps.notifications.services import notify

HOUR = 7  # the local hour the digest comes at
LAST_HOUR = 12  # a digest not sent by noon (the worker was down all morning) is skipped for the day

# The kinds of figures a contribution may count, in the order the digest names them.
KINDS = ("deadlines_today", "pre_deadlines_today", "tasks_overdue")


def counts(today: dt.date) -> dict[int, Counter]:
    totals: dict[int, Counter] = defaultdict(Counter)
    for contribution in contributions("notifications.digest_counts"):
        for user_id, figures in contribution(today).items():
            unknown = set(figures) - set(KINDS)
            if unknown:
                raise ValueError(f"digest figures of unknown kinds: {sorted(unknown)}")
            totals[user_id].update(figures)
    return {user_id: figures for user_id, figures in totals.items() if any(figures.values())}


def due_days(now: dt.datetime) -> dict[dt.date, list[str]]:
    """The local days whose digest is due at `now`, each with the time zones where it is morning
    (07:00 to noon) on that day; one query for the zones people who want a digest live in."""
    zones = (
        get_user_model()
        .objects.filter(is_active=True, morning_digest=True)
        .order_by()
        .values_list("time_zone", flat=True)
        .distinct()
    )
    days: dict[dt.date, list[str]] = defaultdict(list)
    for name in sorted(zones):
        try:
            local = now.astimezone(zoneinfo.ZoneInfo(name))
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            # Zones are validated on save; a row from before that gets the office's morning.
            local = now.astimezone(zoneinfo.ZoneInfo(settings.TIME_ZONE))
        if HOUR <= local.hour < LAST_HOUR:
            days[local.date()].append(name)
    return dict(days)


def send_due_digests(now: dt.datetime) -> int:
    """The beat job's work: every digest due at `now` (see `due_days`); returns how many went out."""
    return sum(send_morning_digest(day, zones) for day, zones in sorted(due_days(now).items()))


def send_morning_digest(today: dt.date, zones: Iterable[str] | None = None) -> int:
    """Send the digests of `today` not sent yet to the people who want one (those living in
    `zones` when given); returns how many went out."""
    key = f"digest:{today:%Y-%m-%d}"
    waiting = get_user_model().objects.filter(is_active=True, morning_digest=True)
    if zones is not None:
        waiting = waiting.filter(time_zone__in=list(zones))
    waiting = waiting.exclude(Exists(Notification.objects.filter(user=OuterRef("pk"), key=key)))
    if not waiting.exists():
        return 0  # the usual tick: nobody's morning, or everyone has theirs
    figures = counts(today)
    people = list(waiting.filter(pk__in=list(figures)).order_by("pk"))
    unread = dict(
        Notification.objects.filter(user__in=people, read_at__isnull=True)
        .values("user_id")
        .annotate(n=Count("id"))
        .values_list("user_id", "n")
    )
    sent = 0
    for person in people:
        with translation.override(getattr(person, "language", None) or settings.LANGUAGE_CODE):
            title = _("Your day, %(day)s") % {"day": formats.date_format(today, "SHORT_DATE_FORMAT")}
            body = text(figures[person.pk], unread.get(person.pk, 0))
        note = notify(
            person,
            kind="digest",
            title=title,
            body=body,
            url="/",  # the start page: "Heute"
            data={**{k: figures[person.pk][k] for k in KINDS}, "unread": unread.get(person.pk, 0)},
            key=key,  # two workers at once: the unique index lets one through
        )
        sent += note is not None
    return sent


def text(figures: Counter, unread: int) -> str:
    parts = []
    if n := figures["deadlines_today"]:
        parts.append(ngettext("%(n)d Frist ends today", "%(n)d Fristen end today", n) % {"n": n})
    if n := figures["pre_deadlines_today"]:
        parts.append(ngettext("%(n)d Vorfrist today", "%(n)d Vorfristen today", n) % {"n": n})
    if n := figures["tasks_overdue"]:
        parts.append(ngettext("%(n)d overdue task", "%(n)d overdue tasks", n) % {"n": n})
    if unread:
        parts.append(
            ngettext("%(n)d unread notification", "%(n)d unread notifications", unread) % {"n": unread}
        )
    return "; ".join(parts) + "."
