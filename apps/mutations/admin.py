from django.contrib import admin

from apps.core.surfaces.admin_bases import ReadOnlyAdmin
from apps.mutations.models import MutationEvent


@admin.register(MutationEvent)
class MutationEventAdmin(ReadOnlyAdmin):
    """Read-only: events are written by services and removed by the retention job."""

    list_display = (
        "id",
        "created_at",
        "topic",
        "audience",
        "user",
        "trigger_reload",
        "origin_tool",
        "origin_run",
    )
    list_filter = ("audience", "trigger_reload", "created_at")
    search_fields = ("topic", "refresh_topic", "origin_tool", "origin_run")
    list_select_related = ("user",)
    date_hierarchy = "created_at"
    show_full_result_count = False  # counting a large event table on every page is slow
