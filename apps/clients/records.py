"""How other domains name a client or case (`client_ref`, `case_ref`: the shapes of `ClientRef`
and `CaseRef`), and the relations a client or case record reads. The records themselves build
from the rows: `ClientOut.record(client)`, `CaseOut.record(case)` (`apps.clients.contracts`)."""

from __future__ import annotations

from django.db.models import QuerySet

from apps.clients.models import Case, Client, case_url, detail_url
from apps.core.records import attrs

__all__ = ["case_ref", "case_relations", "case_url", "client_ref", "client_relations", "detail_url"]


def case_ref(case: Case | None) -> dict | None:
    """How a task, note, calendar entry or document names its Akte (select_related("case"))."""
    if case is None:
        return None
    return {"id": case.pk, "reference": case.reference, "subject": case.subject, "url": case_url(case.pk)}


def client_ref(client: Client | None) -> dict | None:
    """How a task, calendar entry or document names its Mandant: enough to show and link it
    without another request (`client_relations`-style select_related("client") keeps it free)."""
    if client is None:
        return None
    return {"id": client.pk, **attrs(client, "name", "client_number"), "url": detail_url(client.pk)}


def client_relations(qs: QuerySet[Client]) -> QuerySet[Client]:
    return qs.select_related("responsible")


def case_relations(qs: QuerySet[Case]) -> QuerySet[Case]:
    return qs.select_related("responsible", "client", "closed_by")
