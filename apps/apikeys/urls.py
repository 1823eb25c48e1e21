from django.urls import path

from apps.apikeys import views

app_name = "apikeys"

urlpatterns = [
    path("settings/developer/", views.developer, name="developer"),
    path("settings/developer/keys/<int:key_id>/revoke/", views.revoke_key, name="revoke-key"),
    path("settings/devices/", views.devices, name="devices"),
    path("settings/devices/<int:token_id>/revoke/", views.revoke_device, name="revoke-device"),
]
