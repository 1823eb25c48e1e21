"""Who sees which client or case. Mandanten and Akten are office-wide: every staff user and every
active service principal (the principal itself is checked active by the callers' entry points).
One resolved scope drives both authorization and event audiences."""

from __future__ import annotations

from django.db.models import QuerySet

from apps.accounts.principal import Principal
from apps.clients.models import Case, Client
from apps.mutations.audience import EVERYONE, Viewers


def visible_clients(principal: Principal) -> QuerySet[Client]:
    return Client.objects.all()


def visible_cases(principal: Principal) -> QuerySet[Case]:
    return Case.objects.all()


def viewers() -> Viewers:
    return EVERYONE
