from django.urls import path

from apps.clients import api, views

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
    path("api/v1/clients/", api.ClientListView.as_view(), name="api-clients"),
    path("api/v1/clients/<int:client_id>", api.ClientDetailView.as_view(), name="api-client"),
    path("api/v1/cases/", api.CaseListView.as_view(), name="api-cases"),
    path("api/v1/cases/<int:case_id>", api.CaseDetailView.as_view(), name="api-case"),
]
