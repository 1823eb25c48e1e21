from django.urls import path

from apps.clients import views

app_name = "clients"

urlpatterns = [
    path("mandanten/", views.list_page, name="index"),
    path("mandanten/neu/", views.create_page, name="create"),
    path("mandanten/<int:client_id>/", views.detail_page, name="detail"),
    path("mandanten/akten/<int:case_id>/", views.case_page_view, name="case"),
    path("mandanten/akten/<int:case_id>/status/", views.case_status, name="case-status"),
    # The same page under its client (the path people build from the client page's address).
    path("mandanten/<int:client_id>/akten/<int:case_id>/", views.case_page_view, name="client-case"),
    path(
        "mandanten/<int:client_id>/akten/<int:case_id>/neutralisieren/",
        views.case_neutralize,
        name="case-neutralize",
    ),
]
