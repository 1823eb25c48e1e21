"""The case page's "link a Frist" picker (`clients.case_links`): the case client's visible Fristen
without a case, by due date, linked through `update_event`."""

from __future__ import annotations

from django.utils import formats, timezone
from django.utils.translation import gettext_lazy as _

from apps.accounts.principal import Principal
from apps.calendar import services
from apps.calendar.contracts import EventUpdate
from apps.calendar.models import CalendarEvent
from apps.calendar.visibility import visible_events
from apps.clients.case_links import MAX_CANDIDATES, CaseLinker
from apps.clients.models import Case
from apps.core.inputs import build


def candidates(principal: Principal, case: Case) -> list[tuple[int, str]]:
    rows = (
        visible_events(principal)
        .filter(kind=CalendarEvent.Kind.DEADLINE, client_id=case.client_id, case__isnull=True)
        .order_by("start", "id")
        .values_list("id", "title", "start")[:MAX_CANDIDATES]
    )
    return [
        (pk, f"{formats.date_format(timezone.localtime(start), 'SHORT_DATE_FORMAT')} {title}")
        for pk, title, start in rows
    ]


def link(principal: Principal, case: Case, event_id: int) -> None:
    services.update_event(principal, event_id, build(EventUpdate, case_id=case.pk))


LINKER = CaseLinker("deadlines", _("Deadlines"), candidates, link, order=10)
