"""The REST routes of this app, mounted once under `api/v1/` (`DomainApp.api_urls`), in the
app's URL namespace: `notes:api-…` names are unchanged."""

from django.urls import path

from apps.notes import api

urlpatterns = [
    path("notes/", api.NoteListView.as_view(), name="api-notes"),
    path("notes/folders/", api.FolderListView.as_view(), name="api-folders"),
    path("notes/folders/<int:folder_id>", api.FolderDetailView.as_view(), name="api-folder"),
    path("notes/<int:note_id>", api.NoteDetailView.as_view(), name="api-note"),
    path("notes/<int:note_id>/pages", api.PageListView.as_view(), name="api-note-pages"),
    path("notes/pages/<int:page_id>", api.PageDetailView.as_view(), name="api-page"),
]
