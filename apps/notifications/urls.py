from django.urls import path

from apps.notifications import views

app_name = "notifications"

urlpatterns = [
    path("benachrichtigungen/", views.index, name="index"),
    path("benachrichtigungen/glocke/", views.bell, name="bell"),
    path("benachrichtigungen/alle-gelesen/", views.read_all, name="read-all"),
    path("benachrichtigungen/<int:note_id>/gelesen/", views.read, name="read"),
    path("benachrichtigungen/<int:note_id>/oeffnen/", views.open_note, name="open"),
]
