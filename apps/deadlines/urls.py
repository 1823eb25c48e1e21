from django.urls import path

from apps.deadlines import api

app_name = "deadlines"

urlpatterns = [
    path("api/v1/deadlines/compute", api.ComputeView.as_view(), name="api-compute"),
    path("api/v1/deadlines/rules", api.RuleListView.as_view(), name="api-rules"),
    # The calendar forms' live "this day is a Sunday/holiday → shifted to …" warning.
    path("api/v1/deadlines/working-day", api.WorkingDayView.as_view(), name="api-working-day"),
]
