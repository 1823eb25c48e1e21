from django.urls import path

from apps.agent import views

app_name = "chat"

urlpatterns = [
    path("chat/", views.index, name="index"),
    path("chat/neu/", views.new_session, name="new"),
    path("chat/<int:session_id>/", views.session_page, name="session"),
    path("chat/<int:session_id>/umbenennen/", views.rename_session, name="rename"),
    path("chat/<int:session_id>/loeschen/", views.delete_session, name="delete"),
    path("chat/<int:session_id>/aeltere/", views.older_messages, name="older"),
    path("chat/anhang/", views.upload_attachment, name="attach"),
]
