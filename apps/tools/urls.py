from django.urls import path

from apps.tools import api

urlpatterns = [
    path("api/v1/tools", api.ToolCatalogView.as_view(), name="api-tools"),
    path("api/v1/tools/execute", api.ToolExecuteView.as_view(), name="api-tools-execute"),
]
