"""REST API of the Mandanten and Akten for mobile clients (`/api/v1/clients/…`, `/api/v1/cases/…`):
thin typed adapters over the same services, input models and records as the tools and pages (see
`apps.core.api.endpoint`)."""

from __future__ import annotations

from apps.clients import contracts as c
from apps.clients import services
from apps.clients.records import case_record, client_record
from apps.core.api import ApiView, endpoint
from apps.core.contracts import page

CLIENT_TAGS = ["clients"]
CASE_TAGS = ["cases"]


class ClientListView(ApiView):
    @endpoint(
        query=c.ClientFilterQuery,
        output=c.ClientPage,
        summary="Clients by name, with total",
        operation_id="clients_list",
        tags=CLIENT_TAGS,
    )
    def get(self, request, query: c.ClientFilterQuery):
        found, total = services.list_clients(request.principal, **query.model_dump())
        return page(
            "clients", [client_record(x) for x in found], total, limit=query.limit, offset=query.offset
        )

    @endpoint(
        body=c.ClientCreateBody,
        output=c.ClientResult,
        status=201,
        summary="Create a client",
        operation_id="clients_create",
        tags=CLIENT_TAGS,
    )
    def post(self, request, body: c.ClientCreateBody):
        return {"client": client_record(services.create_client(request.principal, **body.service_kwargs()))}


class ClientDetailView(ApiView):
    @endpoint(output=c.ClientResult, summary="One client", operation_id="clients_retrieve", tags=CLIENT_TAGS)
    def get(self, request, client_id: int):
        return {"client": client_record(services.get_client(request.principal, client_id))}

    @endpoint(
        body=c.ClientUpdateBody,
        output=c.ClientResult,
        summary="Change some fields (partial); optional expected_version (409 version_conflict)",
        operation_id="clients_partial_update",
        tags=CLIENT_TAGS,
    )
    def patch(self, request, client_id: int, body: c.ClientUpdateBody):
        client = services.update_client(
            request.principal, client_id, body.changes(), expected_version=body.expected_version
        )
        return {"client": client_record(client)}


class CaseListView(ApiView):
    @endpoint(
        query=c.CaseFilterQuery,
        output=c.CasePage,
        summary="Cases, newest first, with total",
        operation_id="cases_list",
        tags=CASE_TAGS,
    )
    def get(self, request, query: c.CaseFilterQuery):
        found, total = services.list_cases(request.principal, **query.model_dump())
        return page("cases", [case_record(x) for x in found], total, limit=query.limit, offset=query.offset)

    @endpoint(
        body=c.CaseCreateBody,
        output=c.CaseResult,
        status=201,
        summary="Open a case for a client",
        operation_id="cases_create",
        tags=CASE_TAGS,
    )
    def post(self, request, body: c.CaseCreateBody):
        return {"case": case_record(services.create_case(request.principal, **body.service_kwargs()))}


class CaseDetailView(ApiView):
    @endpoint(output=c.CaseResult, summary="One case", operation_id="cases_retrieve", tags=CASE_TAGS)
    def get(self, request, case_id: int):
        return {"case": case_record(services.get_case(request.principal, case_id))}

    @endpoint(
        body=c.CaseUpdateBody,
        output=c.CaseResult,
        summary="Change some fields (partial); optional expected_version (409 version_conflict)",
        operation_id="cases_partial_update",
        tags=CASE_TAGS,
    )
    def patch(self, request, case_id: int, body: c.CaseUpdateBody):
        case = services.update_case(
            request.principal, case_id, body.changes(), expected_version=body.expected_version
        )
        return {"case": case_record(case)}
