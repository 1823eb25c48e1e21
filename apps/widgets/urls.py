from django.urls import path

from apps.widgets import api, views

app_name = "widgets"

urlpatterns = [
    path("widgets/karten/", views.dashboard_cards, name="cards"),
    path("widgets/<int:widget_id>/entfernen/", views.delete, name="delete"),
    path("api/v1/widgets/", api.WidgetListView.as_view(), name="api-widgets"),
    path("api/v1/widgets/<int:widget_id>", api.WidgetDetailView.as_view(), name="api-widget"),
]
