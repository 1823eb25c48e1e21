"""The REST routes of this app, mounted once under `api/v1/` (`DomainApp.api_urls`), in the
app's URL namespace: `deadlines:api-…` names are unchanged."""

from django.urls import path

from apps.deadlines import api

app_name = "deadlines"

urlpatterns = [
    path("deadlines/compute", api.ComputeView.as_view(), name="api-compute"),
    path("deadlines/rules", api.RuleListView.as_view(), name="api-rules"),
    # The calendar forms' live "this day is a Sunday/holiday → shifted to …" warning.
    path("deadlines/working-day", api.WorkingDayView.as_view(), name="api-working-day"),
]
