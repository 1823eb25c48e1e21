from django.urls import path

from apps.agent import api, inference, sse, views

app_name = "chat"

urlpatterns = [
    path("chat/", views.index, name="index"),
    path("chat/neu/", views.new_session, name="new"),
    path("chat/<int:session_id>/", views.session_page, name="session"),
    path("chat/<int:session_id>/umbenennen/", views.rename_session, name="rename"),
    path("chat/<int:session_id>/loeschen/", views.delete_session, name="delete"),
    path("chat/<int:session_id>/aeltere/", views.older_messages, name="older"),
    path("chat/anhang/", views.upload_attachment, name="attach"),
    path("api/v1/chat/sessions/", api.SessionListView.as_view(), name="api-sessions"),
    path("api/v1/chat/sessions/<int:session_id>/", api.SessionDetailView.as_view(), name="api-session"),
    path(
        "api/v1/chat/sessions/<int:session_id>/messages/", api.MessageListView.as_view(), name="api-messages"
    ),
    path("api/v1/chat/runs/<int:run_id>/", api.RunDetailView.as_view(), name="api-run"),
    path("api/v1/chat/runs/<int:run_id>/cancel/", api.RunCancelView.as_view(), name="api-run-cancel"),
    path("api/v1/chat/runs/<int:run_id>/events/stream", sse.run_event_stream, name="api-run-stream"),
    path(
        "api/v1/inference/chat/completions",
        inference.ChatCompletionsView.as_view(),
        name="api-inference-completions",
    ),
    path("api/v1/inference/models", inference.ModelListView.as_view(), name="api-inference-models"),
]
