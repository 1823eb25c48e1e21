from django.urls import path

from apps.review import views

app_name = "review"

urlpatterns = [
    path("pruefen/", views.queue, name="queue"),
    path("pruefen/entscheiden/", views.decide, name="decide"),
]
