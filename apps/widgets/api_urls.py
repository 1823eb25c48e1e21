"""The REST routes of this app, mounted once under `api/v1/` (`DomainApp.api_urls`), in the
app's URL namespace: `widgets:api-…` names are unchanged."""

from django.urls import path

from apps.widgets import api

urlpatterns = [
    path("widgets/", api.WidgetListView.as_view(), name="api-widgets"),
    path("widgets/<int:widget_id>", api.WidgetDetailView.as_view(), name="api-widget"),
]
