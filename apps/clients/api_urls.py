"""The REST routes of this app, mounted once under `api/v1/` (`DomainApp.api_urls`), in the
app's URL namespace: `clients:api-…` names are unchanged."""

from django.urls import path

from apps.clients import api

urlpatterns = [
    path("clients/", api.ClientListView.as_view(), name="api-clients"),
    path("clients/<int:client_id>", api.ClientDetailView.as_view(), name="api-client"),
    path("cases/", api.CaseListView.as_view(), name="api-cases"),
    path("cases/<int:case_id>", api.CaseDetailView.as_view(), name="api-case"),
]
