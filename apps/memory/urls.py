from django.urls import path

from apps.memory import views

app_name = "memory"

urlpatterns = [
    path("gedaechtnis/<int:memory_id>/trennen/", views.unmerge, name="unmerge"),
]
