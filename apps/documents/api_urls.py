"""The REST routes of this app, mounted once under `api/v1/` (`DomainApp.api_urls`), in the
app's URL namespace: `documents:api-…` names are unchanged."""

from django.urls import path

from apps.documents import api

urlpatterns = [
    path("documents/", api.DocumentListView.as_view(), name="api-documents"),
    path("documents/<int:document_id>", api.DocumentDetailView.as_view(), name="api-document"),
    path(
        "documents/<int:document_id>/download",
        api.DocumentDownloadView.as_view(),
        name="api-document-download",
    ),
    path("documents/<int:document_id>/share", api.DocumentShareView.as_view(), name="api-document-share"),
    path("document-folders/", api.FolderListView.as_view(), name="api-folders"),
    path("document-folders/<int:folder_id>", api.FolderDetailView.as_view(), name="api-folder"),
]
