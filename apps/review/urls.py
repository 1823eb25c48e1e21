from django.urls import path

from apps.review import memory_page, views

app_name = "review"

urlpatterns = [
    path("pruefen/", views.queue, name="queue"),
    path("pruefen/entscheiden/", views.decide, name="decide"),
    path("gedaechtnis/", memory_page.index, name="memory"),
    path("gedaechtnis/<int:memory_id>/bearbeiten/", memory_page.edit, name="memory-edit"),
    path("gedaechtnis/<int:memory_id>/entscheiden/", memory_page.decide, name="memory-decide"),
    path("gedaechtnis/<int:memory_id>/vergessen/", memory_page.forget, name="memory-forget"),
    path("gedaechtnis/alles-vergessen/", memory_page.forget_all, name="memory-forget-all"),
    path("gedaechtnis/export.json", memory_page.export_json, name="memory-export-json"),
    path("gedaechtnis/export.csv", memory_page.export_csv, name="memory-export-csv"),
]
