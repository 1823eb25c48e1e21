from django.urls import path

from apps.core.sharing import views as share_views
from apps.core.surfaces import navigation, views

urlpatterns = [
    path("favicon.ico", views.favicon, name="favicon"),
    path("navigation/badges/", navigation.badges, name="navigation-badges"),
    path("teilen/suche/", share_views.search, name="share-search"),
]
