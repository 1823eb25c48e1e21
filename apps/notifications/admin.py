from django.contrib import admin

from apps.notifications.models import Notification


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin):
    list_display = ("created_at", "user", "kind", "title", "read_at")
    list_filter = ("kind",)
    search_fields = ("title", "user__email")
    list_select_related = ("user",)
    readonly_fields = ("created_at",)
