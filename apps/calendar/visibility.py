"""Who sees which calendar entry. One resolved scope drives both authorization and event audiences.

* shared entries (the office calendar): every staff user and every active service principal
* private entries: their owner only (never borrowed by a team room from the member who spoke)
"""

from __future__ import annotations

from django.db.models import Q, QuerySet

from apps.accounts.principal import Principal
from apps.calendar.models import CalendarEvent
from apps.mutations.audience import EVERYONE, Viewers


def event_filter(principal: Principal) -> Q:
    q = Q(visibility=CalendarEvent.Visibility.SHARED)
    user = principal.user  # a service principal's acting member never widens the scope
    if user is not None:
        q |= Q(visibility=CalendarEvent.Visibility.PRIVATE, owner_id=user.pk)
    return q


def user_filter(user_id: int) -> Q:
    """The same rule for a bare user id (the ICS feed has a user, not a session)."""
    return Q(visibility=CalendarEvent.Visibility.SHARED) | Q(
        visibility=CalendarEvent.Visibility.PRIVATE, owner_id=user_id
    )


def visible_events(principal: Principal) -> QuerySet[CalendarEvent]:
    return CalendarEvent.objects.filter(event_filter(principal))


def viewers(visibility: str, owner_id: int | None) -> Viewers:
    """EVERYONE for shared entries, else the owner's id."""
    if visibility == CalendarEvent.Visibility.SHARED:
        return EVERYONE
    return {owner_id} if owner_id else set()
