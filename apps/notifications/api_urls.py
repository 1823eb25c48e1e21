"""The REST routes of this app, mounted once under `api/v1/` (`DomainApp.api_urls`), in the
app's URL namespace: `notifications:api-…` names are unchanged."""

from django.urls import path

from apps.notifications import api

urlpatterns = [
    path("notifications", api.NotificationListView.as_view(), name="api-notifications"),
]
