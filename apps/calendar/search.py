"""The header search's Fristen and appointments sections (extension point
`dashboard.search_providers`): only entries the viewer may see (`visibility.visible_events`: the
office calendar and their own private entries, never a colleague's private appointment), through
the same word match as the Fristenkontrolle (`fristen.deadlines_for` with `query`)."""

from __future__ import annotations

from django.urls import reverse
from django.utils import formats
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _

from apps.accounts.principal import Principal
from apps.calendar import fristen
from apps.calendar.models import CalendarEvent
from apps.calendar.visibility import visible_events
from apps.core.db.search import SearchHit, SearchSection, search


def _day(event: CalendarEvent, principal: Principal) -> str:
    return formats.date_format(event.start.astimezone(principal.time_zone), "D d.m.Y")


def deadlines(principal: Principal, words: str, *, limit: int, quick: bool = False) -> SearchSection:
    """Fristen (open first, then done or cancelled) whose title, text or Mandant match."""
    qs = fristen.deadlines_for(principal, fristen.FristenFilter(status=None, query=words))
    rows = list(qs.select_related("client", "responsible")[:limit])
    hits = [
        SearchHit(
            title=event.title,
            url=reverse("calendar:detail", args=[event.pk]),
            detail=" · ".join(
                x
                for x in (
                    _day(event, principal),
                    event.get_status_display(),
                    event.client.name if event.client else "",
                    event.responsible.get_full_name() if event.responsible else "",
                )
                if x
            ),
        )
        for event in rows
    ]
    more = f"{reverse('calendar:deadlines')}?{urlencode({'q': words, 'status': 'all'})}"
    return SearchSection("deadlines", _("Deadlines"), hits, total=qs.count(), more_url=more, order=15)


def appointments(principal: Principal, words: str, *, limit: int, quick: bool = False) -> SearchSection:
    """Appointments (not Fristen) whose title, description or place match, newest first."""
    qs = search(visible_events(principal).filter(kind=CalendarEvent.Kind.EVENT), words)
    ordered = qs.order_by("-start", "id")
    hits = [
        SearchHit(
            title=event.title,
            url=reverse("calendar:detail", args=[event.pk]),
            detail=" · ".join(x for x in (_day(event, principal), event.location) if x),
        )
        for event in ordered[:limit]
    ]
    return SearchSection("appointments", _("Appointments"), hits, total=qs.count(), order=16)
