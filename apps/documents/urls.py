from django.urls import path

from apps.documents import share_views, views

app_name = "documents"

urlpatterns = [
    path("dokumente/", views.index, name="index"),
    path("dokumente/hochladen/", views.upload, name="upload"),
    path("dokumente/ordner/neu/", views.create_folder, name="create-folder"),
    path("dokumente/ordner/<int:folder_id>/umbenennen/", views.rename_folder, name="rename-folder"),
    path("dokumente/ordner/<int:folder_id>/loeschen/", views.delete_folder, name="delete-folder"),
    path("dokumente/ordner/<int:folder_id>/mandant/", views.folder_client, name="folder-client"),
    path(
        "dokumente/ordner/<int:folder_id>/neutralisieren/",
        views.neutralize_folder,
        name="neutralize-folder",
    ),
    path("dokumente/<int:document_id>/", views.detail, name="detail"),
    path("dokumente/<int:document_id>/status/", views.status_partial, name="status"),
    path("dokumente/<int:document_id>/workflow/", views.workflow_partial, name="workflow"),
    path("dokumente/<int:document_id>/workflow/neu/", views.workflow_rerun, name="workflow-rerun"),
    path("dokumente/<int:document_id>/download/", views.download, name="download"),
    path("dokumente/<int:document_id>/vorschau/", views.preview, name="preview"),
    path(
        "dokumente/<int:document_id>/vorschlag/<int:item_id>/",
        views.decide_proposal,
        name="decide-proposal",
    ),
    path("dokumente/<int:document_id>/freigabe/", views.create_share, name="share"),
    path("dokumente/<int:document_id>/freigabe/widerrufen/", views.revoke_share, name="revoke-share"),
    path("dokumente/<int:document_id>/teilen/", share_views.share_document, name="share-document"),
    path("dokumente/ordner/<int:folder_id>/teilen/", share_views.share_folder, name="share-folder"),
    path("dokumente/<int:document_id>/loeschen/", views.delete, name="delete"),
    path("s/<str:token>/", views.public_share, name="public-share"),
    path("s/<str:token>/datei/", views.public_share_file, name="public-share-file"),
]
