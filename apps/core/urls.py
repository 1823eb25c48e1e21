from django.urls import path

from apps.core import navigation, share_views, views

urlpatterns = [
    path("favicon.ico", views.favicon, name="favicon"),
    path("navigation/badges/", navigation.badges, name="navigation-badges"),
    path("teilen/suche/", share_views.search, name="share-search"),
]
