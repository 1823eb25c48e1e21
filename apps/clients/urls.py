from django.urls import path

from apps.clients import office_views, views

app_name = "clients"

urlpatterns = [
    path("einstellungen/kanzlei/", office_views.office_settings_page, name="office-settings"),
    path("einstellungen/kanzlei/einladen/", office_views.invite_colleague, name="office-invite"),
    path("mandanten/", views.list_page, name="index"),
    path("mandanten/neu/", views.create_page, name="create"),
    path("mandanten/<int:client_id>/", views.detail_page, name="detail"),
    path("mandanten/akten/", views.case_list_page, name="cases"),
    path("mandanten/akten/neu/", views.case_create_page, name="case-create"),
    path("mandanten/<int:client_id>/akten/neu/", views.case_create_page, name="client-case-create"),
    path("mandanten/akten/<int:case_id>/", views.case_page_view, name="case"),
    path("mandanten/akten/<int:case_id>/status/", views.case_status, name="case-status"),
    path("mandanten/akten/<int:case_id>/verknuepfen/", views.case_link, name="case-link"),
    # The same page under its client (the path people build from the client page's address).
    path("mandanten/<int:client_id>/akten/<int:case_id>/", views.case_page_view, name="client-case"),
    path(
        "mandanten/<int:client_id>/akten/<int:case_id>/neutralisieren/",
        views.case_neutralize,
        name="case-neutralize",
    ),
]
