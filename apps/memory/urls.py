from django.urls import path

from apps.memory import views

app_name = "memory"

urlpatterns = [
    path("gedaechtnis/", views.index, name="index"),
    path("gedaechtnis/<int:memory_id>/bearbeiten/", views.edit, name="edit"),
    path("gedaechtnis/<int:memory_id>/entscheiden/", views.decide, name="decide"),
    path("gedaechtnis/<int:memory_id>/vergessen/", views.forget, name="forget"),
    path("gedaechtnis/<int:memory_id>/trennen/", views.unmerge, name="unmerge"),
    path("gedaechtnis/alles-vergessen/", views.forget_all, name="forget-all"),
    path("gedaechtnis/export.json", views.export_json, name="export-json"),
    path("gedaechtnis/export.csv", views.export_csv, name="export-csv"),
]
