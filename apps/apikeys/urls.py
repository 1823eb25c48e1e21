from django.urls import path

from apps.apikeys import api, views

app_name = "apikeys"

urlpatterns = [
    path("settings/developer/", views.developer, name="developer"),
    path("settings/developer/keys/<int:key_id>/revoke/", views.revoke_key, name="revoke-key"),
    path("settings/devices/", views.devices, name="devices"),
    path("settings/devices/<int:token_id>/revoke/", views.revoke_device, name="revoke-device"),
    path("api/v1/auth/token", api.ObtainDeviceTokenView.as_view(), name="api-auth-token"),
    path("api/v1/auth/tokens", api.DeviceTokenListView.as_view(), name="api-auth-tokens"),
    path(
        "api/v1/auth/tokens/<int:token_id>", api.DeviceTokenDetailView.as_view(), name="api-auth-token-detail"
    ),
    path("api/v1/auth/keys", api.ApiKeyListView.as_view(), name="api-auth-keys"),
    path("api/v1/auth/keys/<int:key_id>", api.ApiKeyDetailView.as_view(), name="api-auth-key-detail"),
]
