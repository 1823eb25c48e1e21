"""The REST routes of this app, mounted once under `api/v1/` (`DomainApp.api_urls`), in the
app's URL namespace: `memory:api-…` names are unchanged."""

from django.urls import path

from apps.memory import api

urlpatterns = [
    path("memory", api.MemoryView.as_view(), name="api-memory"),
]
