from django.urls import path

from apps.widgets import views

app_name = "widgets"

urlpatterns = [
    path("widgets/karten/", views.dashboard_cards, name="cards"),
    path("widgets/<int:widget_id>/entfernen/", views.delete, name="delete"),
]
