"""The REST routes of this app, mounted once under `api/v1/` (`DomainApp.api_urls`), in the
app's URL namespace: `chat:api-…` names are unchanged."""

from django.urls import path

from apps.agent import api, inference, sse

urlpatterns = [
    path("chat/sessions/", api.SessionListView.as_view(), name="api-sessions"),
    path("chat/sessions/<int:session_id>/", api.SessionDetailView.as_view(), name="api-session"),
    path("chat/sessions/<int:session_id>/messages/", api.MessageListView.as_view(), name="api-messages"),
    path("chat/runs/<int:run_id>/", api.RunDetailView.as_view(), name="api-run"),
    path("chat/runs/<int:run_id>/cancel/", api.RunCancelView.as_view(), name="api-run-cancel"),
    path("chat/runs/<int:run_id>/retry/", api.RunRetryView.as_view(), name="api-run-retry"),
    path("chat/runs/<int:run_id>/events/stream", sse.run_event_stream, name="api-run-stream"),
    path(
        "inference/chat/completions",
        inference.ChatCompletionsView.as_view(),
        name="api-inference-completions",
    ),
    path("inference/models", inference.ModelListView.as_view(), name="api-inference-models"),
]
