"""REST API of the Mandanten and Akten for mobile clients (`/api/v1/clients/…`, `/api/v1/cases/…`):
thin typed adapters over the same services, input models and records as the tools and pages (see
`apps.core.surfaces.api.endpoint`)."""

from __future__ import annotations

from apps.clients import contracts as c
from apps.clients import services
from apps.core.surfaces.api import ApiView, endpoint, listed

CASE_TAGS = ["cases"]


class ClientListView(ApiView):
    @endpoint(query=c.ClientFilterQuery, output=c.ClientPage, operation_id="clients_list")
    def get(self, request, query: c.ClientFilterQuery):
        """Clients by name, with total"""
        found = services.list_clients(request.principal, query)
        return listed("clients", c.ClientOut.record, found, query)

    @endpoint(body=c.ClientCreateBody, output=c.ClientResult, status=201, operation_id="clients_create")
    def post(self, request, body: c.ClientCreateBody):
        """Create a client"""
        return {"client": c.ClientOut.record(services.create_client(request.principal, body))}


class ClientDetailView(ApiView):
    @endpoint(output=c.ClientResult, operation_id="clients_retrieve")
    def get(self, request, client_id: int):
        """One client"""
        return {"client": c.ClientOut.record(services.get_client(request.principal, client_id))}

    @endpoint(body=c.ClientUpdateBody, output=c.ClientResult, operation_id="clients_partial_update")
    def patch(self, request, client_id: int, body: c.ClientUpdateBody):
        """Change some fields (partial); optional expected_version (409 version_conflict)"""
        return {"client": c.ClientOut.record(services.update_client(request.principal, client_id, body))}


class CaseListView(ApiView):
    @endpoint(query=c.CaseFilterQuery, output=c.CasePage, operation_id="cases_list", tags=CASE_TAGS)
    def get(self, request, query: c.CaseFilterQuery):
        """Cases, newest first, with total"""
        found = services.list_cases(request.principal, query)
        return listed("cases", c.CaseOut.record, found, query)

    @endpoint(
        body=c.CaseCreateBody, output=c.CaseResult, status=201, operation_id="cases_create", tags=CASE_TAGS
    )
    def post(self, request, body: c.CaseCreateBody):
        """Open a case for a client"""
        return {"case": c.CaseOut.record(services.create_case(request.principal, body))}


class CaseDetailView(ApiView):
    @endpoint(output=c.CaseResult, operation_id="cases_retrieve", tags=CASE_TAGS)
    def get(self, request, case_id: int):
        """One case"""
        return {"case": c.CaseOut.record(services.get_case(request.principal, case_id))}

    @endpoint(body=c.CaseUpdateBody, output=c.CaseResult, operation_id="cases_partial_update", tags=CASE_TAGS)
    def patch(self, request, case_id: int, body: c.CaseUpdateBody):
        """Change some fields (partial); optional expected_version (409 version_conflict)"""
        return {"case": c.CaseOut.record(services.update_case(request.principal, case_id, body))}
