from django.urls import path

from apps.memory import api

app_name = "memory"

urlpatterns = [
    path("api/v1/memory", api.MemoryView.as_view(), name="api-memory"),
]
