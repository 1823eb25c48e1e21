from django.urls import path

from apps.dashboard import search_views, views

urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("heute/karten/", views.today_cards, name="dashboard-today"),
    path("heute/fragen/", views.ask, name="dashboard-ask"),
    path("suche/", search_views.results, name="search"),
    path("suche/vorschlaege/", search_views.suggestions, name="search-suggestions"),
]
