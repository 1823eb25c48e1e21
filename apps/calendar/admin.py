from django.contrib import admin, messages

from apps.accounts.principal import Principal
from apps.calendar import feed
from apps.calendar.models import CalendarEvent, CalendarFeedToken
from apps.core.admin_bases import ReadOnlyAdmin
from apps.core.web import reported


@admin.register(CalendarEvent)
class CalendarEventAdmin(ReadOnlyAdmin):
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


@admin.register(CalendarFeedToken)
class CalendarFeedTokenAdmin(ReadOnlyAdmin):
    """Admins can see who subscribed and revoke a link (the action, through `feed.revoke_token`);
    tokens are only ever shown once."""

    list_display = ("user", "prefix", "created_at", "last_used_at", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("user__email", "user__full_name", "prefix")
    list_select_related = ("user",)
    readonly_fields = ("user", "token_hash", "prefix", "created_at", "last_used_at", "revoked_at")
    actions = ["revoke"]

    @admin.action(description="Revoke selected links")
    def revoke(self, request, queryset):
        done = 0
        for row in queryset.filter(revoked_at__isnull=True).select_related("user"):
            with reported(request) as outcome:
                feed.revoke_token(Principal.for_user(row.user), row.pk)
            done += not outcome.failed
        messages.success(request, f"{done} revoked.")
