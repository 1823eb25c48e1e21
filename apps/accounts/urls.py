from django.urls import include, path

from apps.accounts import views

urlpatterns = [
    path("accounts/", include("django.contrib.auth.urls")),
    path("settings/", views.settings_page, name="settings"),
    path("language/", views.switch_language, name="switch-language"),
]
