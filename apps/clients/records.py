"""The one wire shape of a client and of a case: tools, REST API, pages and live events send it.
Fast dict builders; every key is declared by the output models in `apps.clients.contracts`
(`ClientOut`, `CaseOut`, `ClientRef`)."""

from __future__ import annotations

from django.db.models import QuerySet
from django.urls import reverse

from apps.accounts.contracts import person_ref
from apps.clients.models import Case, Client

_DETAIL_URL: str | None = None
_CASE_URL: str | None = None


def detail_url(client_id: int) -> str:
    # reverse() once per process and fill in the id: lists serialize hundreds of records.
    global _DETAIL_URL
    if _DETAIL_URL is None:
        _DETAIL_URL = reverse("clients:detail", args=[987654321])
    return _DETAIL_URL.replace("987654321", str(client_id))


def case_url(case_id: int) -> str:
    global _CASE_URL
    if _CASE_URL is None:
        _CASE_URL = reverse("clients:case", args=[987654321])
    return _CASE_URL.replace("987654321", str(case_id))


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
    return {
        "id": client.pk,
        "name": client.name,
        "client_number": client.client_number,
        "url": detail_url(client.pk),
    }


def client_relations(qs: QuerySet[Client]) -> QuerySet[Client]:
    return qs.select_related("responsible")


def case_relations(qs: QuerySet[Case]) -> QuerySet[Case]:
    return qs.select_related("responsible", "client")


def client_record(client: Client) -> dict:
    return {
        "id": client.pk,
        "kind": client.kind,
        "name": client.name,
        "client_number": client.client_number,
        "tax_number": client.tax_number,
        "email": client.email,
        "phone": client.phone,
        "street": client.street,
        "postal_code": client.postal_code,
        "city": client.city,
        "country": client.country,
        "responsible": person_ref(client.responsible),
        "status": client.status,
        "notes": client.notes,
        "version": client.version,
        "created_at": client.created_at.isoformat(),
        "updated_at": client.updated_at.isoformat(),
        "url": detail_url(client.pk),
    }


def case_record(case: Case) -> dict:
    return {
        "id": case.pk,
        "reference": case.reference,
        "subject": case.subject,
        "client": client_ref(case.client),
        "status": case.status,
        "responsible": person_ref(case.responsible),
        "version": case.version,
        "created_at": case.created_at.isoformat(),
        "updated_at": case.updated_at.isoformat(),
        "url": case_url(case.pk),
    }
