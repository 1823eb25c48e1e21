from django.urls import path

from apps.notes import share_views, views

app_name = "notes"

urlpatterns = [
    path("notizen/", views.index, name="index"),
    path("notizen/<int:note_id>/", views.note_page, name="note"),
    path("notizen/liste/", views.note_list, name="list"),
    path("notizen/ordner/", views.folder_list, name="folders"),
    path("notizen/ordner/neu/", views.create_folder, name="create-folder"),
    path("notizen/ordner/<int:folder_id>/loeschen/", views.delete_folder, name="delete-folder"),
    path("notizen/ordner/<int:folder_id>/teilen/", share_views.share_folder, name="share-folder"),
    path("notizen/<int:note_id>/teilen/", share_views.share_note, name="share-note"),
    path("notizen/neu/", views.create_note, name="create-note"),
    path("notizen/<int:note_id>/bearbeiten/", views.update_note, name="update-note"),
    path("notizen/<int:note_id>/loeschen/", views.delete_note, name="delete-note"),
    path("notizen/<int:note_id>/seiten/neu/", views.create_page, name="create-page"),
    path("notizen/seiten/<int:page_id>/speichern/", views.save_page, name="save-page"),
    path("notizen/seiten/<int:page_id>/json/", views.page_json, name="page-json"),
    path("notizen/seiten/<int:page_id>/loeschen/", views.delete_page, name="delete-page"),
]
