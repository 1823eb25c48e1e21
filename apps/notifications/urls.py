from django.urls import path

from apps.notifications import api

urlpatterns = [path("api/v1/notifications", api.NotificationListView.as_view(), name="api-notifications")]
