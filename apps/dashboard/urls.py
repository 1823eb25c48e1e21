from django.urls import path

from apps.dashboard import views

urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("heute/karten/", views.today_cards, name="dashboard-today"),
    path("heute/fragen/", views.ask, name="dashboard-ask"),
]
