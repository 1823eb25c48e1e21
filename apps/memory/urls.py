from django.urls import path

from apps.memory import api, views

app_name = "memory"

urlpatterns = [
    path("api/v1/memory", api.MemoryView.as_view(), name="api-memory"),
    path("gedaechtnis/<int:memory_id>/trennen/", views.unmerge, name="unmerge"),
]
