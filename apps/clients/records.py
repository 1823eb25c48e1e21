"""The one wire shape of a client and of a case: tools, REST API, pages and live events send it.
Fast dict builders; every key is declared by the output models in `apps.clients.contracts`
(`ClientOut`, `CaseOut`, `ClientRef`)."""

from __future__ import annotations

from django.db.models import QuerySet

from apps.accounts.contracts import person_ref
from apps.clients.models import Case, Client
from apps.core.records import IdUrl, attrs, stamps

detail_url = IdUrl("clients:detail")
case_url = IdUrl("clients:case")


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


def client_record(client: Client) -> dict:
    return {
        "id": client.pk,
        **attrs(client, "kind", "name", "client_number", "tax_number", "email", "phone"),
        **attrs(client, "street", "postal_code", "city", "country"),  # the address
        "responsible": person_ref(client.responsible),
        **attrs(client, "status", "notes"),
        **stamps(client),
        "url": detail_url(client.pk),
    }


def case_record(case: Case) -> dict:
    return {
        "id": case.pk,
        **attrs(case, "reference", "subject"),
        "client": client_ref(case.client),
        "status": case.status,
        "responsible": person_ref(case.responsible),
        **stamps(case),
        "url": case_url(case.pk),
    }
