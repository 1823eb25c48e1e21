from django.contrib import admin

from apps.core.surfaces.admin_bases import ReadOnlyAdmin
from apps.notifications.models import Notification


@admin.register(Notification)
class NotificationAdmin(ReadOnlyAdmin):
    """Notifications are sent by the product (`services.notify`), never written by hand: an edit
    here would bypass the live event every open bell waits for."""

    list_display = ("created_at", "user", "kind", "title", "read_at")
    list_filter = ("kind", ("read_at", admin.EmptyFieldListFilter))
    search_fields = ("title", "user__email", "key")
    list_select_related = ("user",)
