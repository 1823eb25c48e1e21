"""The REST routes of this app, mounted once under `api/v1/` (`DomainApp.api_urls`), in the
app's URL namespace: `apikeys:api-…` names are unchanged."""

from django.urls import path

from apps.apikeys import api

urlpatterns = [
    path("auth/token", api.ObtainDeviceTokenView.as_view(), name="api-auth-token"),
    path("auth/tokens", api.DeviceTokenListView.as_view(), name="api-auth-tokens"),
    path("auth/tokens/<int:token_id>", api.DeviceTokenDetailView.as_view(), name="api-auth-token-detail"),
    path("auth/keys", api.ApiKeyListView.as_view(), name="api-auth-keys"),
    path("auth/keys/<int:key_id>", api.ApiKeyDetailView.as_view(), name="api-auth-key-detail"),
]
