"""The morning digest: one notification per person at 07:00 office time (beat job
`apps.notifications.jobs.send_morning_digest`) with today's Fristen and Vorfristen, their overdue
tasks and their unread notifications.

The figures come from the apps that own them through `notifications.digest_counts`: each
contribution is `counts(today) -> {user id: {kind: n}}`, computed for the whole office in one
query, so the job's reading cost does not grow with the people. Only people with something to do
today get a digest; the key ("digest:<day>") keeps it at one a day however often the job runs.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Count
from django.utils import formats, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.core.plugins import contributions
from apps.notifications.models import Notification
from apps.notifications.services import notify, sent_keys

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


def send_morning_digest(today: dt.date) -> int:
    """Send today's digests not sent yet; returns how many went out."""
    key = f"digest:{today:%Y-%m-%d}"
    figures = counts(today)
    people = list(get_user_model().objects.filter(pk__in=figures, is_active=True).order_by("pk"))
    done = sent_keys([(p.pk, key) for p in people])
    unread = dict(
        Notification.objects.filter(user__in=people, read_at__isnull=True)
        .values("user_id")
        .annotate(n=Count("id"))
        .values_list("user_id", "n")
    )
    sent = 0
    for person in people:
        if (person.pk, key) in done:
            continue
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
            key=key,
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
