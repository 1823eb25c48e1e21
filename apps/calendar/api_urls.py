"""The REST routes of this app, mounted once under `api/v1/` (`DomainApp.api_urls`), in the
app's URL namespace: `calendar:api-…` names are unchanged."""

from django.urls import path

from apps.calendar import api

urlpatterns = [
    path("calendar/events", api.EventListView.as_view(), name="api-events"),
    path("calendar/events/<int:event_id>", api.EventDetailView.as_view(), name="api-event"),
    path("calendar/deadlines", api.DeadlineListView.as_view(), name="api-deadlines"),
    path(
        "calendar/deadlines/<int:event_id>/complete",
        api.DeadlineCompleteView.as_view(),
        name="api-deadline-complete",
    ),
    path(
        "calendar/deadlines/<int:event_id>/cancel",
        api.DeadlineCancelView.as_view(),
        name="api-deadline-cancel",
    ),
    path(
        "calendar/deadlines/<int:event_id>/reopen",
        api.DeadlineReopenView.as_view(),
        name="api-deadline-reopen",
    ),
    path(
        "calendar/deadlines/<int:event_id>/history",
        api.DeadlineHistoryView.as_view(),
        name="api-deadline-history",
    ),
]
