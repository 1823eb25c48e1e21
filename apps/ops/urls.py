from django.urls import path

from apps.ops import views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
]
