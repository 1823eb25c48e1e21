from django.urls import path

from apps.core import navigation, views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("navigation/badges/", navigation.badges, name="navigation-badges"),
]
