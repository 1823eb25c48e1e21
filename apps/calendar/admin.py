from django.contrib import admin, messages

from apps.accounts.principal import Principal
from apps.calendar import feed
from apps.calendar.models import CalendarEvent, CalendarFeedToken
from apps.core.errors import DomainError


@admin.register(CalendarEvent)
class CalendarEventAdmin(admin.ModelAdmin):
    """Entries change through the pages, the API and the tools (services publish live events and
    keep private entries private); the admin looks, filters and searches."""

    list_display = (
        "title",
        "kind",
        "start",
        "end",
        "client",
        "visibility",
        "owner",
        "criticality",
        "source_origin",
    )
    list_filter = ("kind", "visibility", "criticality", "source_origin", "all_day")
    search_fields = (
        "title",
        "description",
        "location",
        "client__name",
        "client__client_number",
        "source_label",
    )
    list_select_related = ("owner", "client")
    date_hierarchy = "start"
    readonly_fields = (
        "created_by",
        "created_by_service",
        "recurrence_end",
        "remind_at",
        "reminded_at",
        "version",
    )

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(CalendarFeedToken)
class CalendarFeedTokenAdmin(admin.ModelAdmin):
    """Admins can see who subscribed and revoke a link; tokens are only ever shown once."""

    list_display = ("user", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("user__email", "user__full_name", "prefix")
    list_select_related = ("user",)
    readonly_fields = ("user", "token_hash", "prefix", "created_at", "last_used_at", "revoked_at")
    actions = ["revoke"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(description="Revoke selected links")
    def revoke(self, request, queryset):
        done = 0
        for row in queryset.filter(revoked_at__isnull=True).select_related("user"):
            try:
                feed.revoke_token(Principal.for_user(row.user), row.pk)
                done += 1
            except DomainError as exc:
                messages.error(request, exc.message)
        messages.success(request, f"{done} revoked.")
