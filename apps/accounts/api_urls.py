"""The REST routes of this app, mounted once under `api/v1/` (`DomainApp.api_urls`)."""

from django.urls import path

from apps.accounts import api

urlpatterns = [
    path("me/preferences", api.PreferencesView.as_view(), name="api-preferences"),
]
