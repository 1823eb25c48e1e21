from django.urls import path

from apps.wiki import views

app_name = "wiki"

urlpatterns = [
    path("wiki/", views.index, name="index"),
    path("wiki/neu/", views.create, name="create"),
    path("wiki/vorschau/", views.preview, name="preview"),
    path("wiki/vorschlaege/", views.proposal_queue, name="proposals"),
    path("wiki/vorschlaege/<int:proposal_id>/annehmen/", views.accept, name="accept"),
    path("wiki/vorschlaege/<int:proposal_id>/ablehnen/", views.reject, name="reject"),
    path("wiki/<slug:slug>/", views.page, name="page"),
    path("wiki/<slug:slug>/bearbeiten/", views.edit, name="edit"),
    path("wiki/<slug:slug>/verlauf/", views.history, name="history"),
    path("wiki/<slug:slug>/verlauf/<int:number>/", views.revision, name="revision"),
]
