"""Reading one calendar entry as the caller may see it: used by the services and by the Frist
lifecycle alike (here, so neither imports the other for it)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from apps.accounts.principal import Principal
from apps.calendar.errors import EventNotFound
from apps.calendar.models import CalendarEvent
from apps.calendar.records import with_relations
from apps.calendar.visibility import visible_events
from apps.core.db.lookup import get_by_id


def get_event(principal: Principal, event_id: int, *, for_update: bool = False) -> CalendarEvent:
    """The entry, or `event_not_found` (also for one the caller cannot see: ids cannot be probed)."""
    qs = with_relations(visible_events(principal))
    if for_update:
        qs = visible_events(principal).select_for_update(of=("self",))
    return get_by_id(qs, event_id, EventNotFound, _("There is no calendar entry with id %(id)s."))
