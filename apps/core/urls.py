from django.urls import path

from apps.core import navigation, views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("navigation/badges/", navigation.badges, name="navigation-badges"),
]
