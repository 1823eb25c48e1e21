"""The REST routes of this app, mounted once under `api/v1/` (`DomainApp.api_urls`), in the
app's URL namespace: `api-…` names are unchanged."""

from django.urls import path

from apps.tools import api

urlpatterns = [
    path("tools", api.ToolCatalogView.as_view(), name="api-tools"),
    path("tools/execute", api.ToolExecuteView.as_view(), name="api-tools-execute"),
]
