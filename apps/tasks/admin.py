from django.contrib import admin

from apps.core.inputs import build
from apps.core.sharing.admin import SharingAdminMixin
from apps.core.surfaces.admin_bases import ReadOnlyAdmin, ReadOnlyInline, ServiceAdmin
from apps.tasks import services, sharing
from apps.tasks.contracts import BoardChange, StatusSave
from apps.tasks.models import Board, Comment, Task, TaskStatus


@admin.register(Board)
class BoardAdmin(SharingAdminMixin, ServiceAdmin):
    """Renaming and reordering go through the service (open board lists reload); the "Share"
    page shares boards with people and groups through the sharing service (the people who lose
    access get their removal event at once). Boards are created on the task pages."""

    share_read = staticmethod(sharing.board_shares)
    share_grant = staticmethod(sharing.grant_board)
    share_revoke = staticmethod(sharing.revoke_board)

    list_display = ("name", "visibility", "owner", "sort_order")
    readonly_fields = ("visibility", "owner")  # who sees a board changes on the page (events)
    list_filter = ("visibility",)
    search_fields = ("name",)
    list_select_related = ("owner",)

    def service_save(self, request, obj, form, change):
        return services.change_board(
            request.principal, obj.pk, build(BoardChange, name=obj.name, sort_order=obj.sort_order)
        )

    def has_add_permission(self, request) -> bool:
        return False


@admin.register(TaskStatus)
class TaskStatusAdmin(ServiceAdmin):
    """Statuses are workspace-global: saving goes through the service so open boards reload."""

    list_display = ("name", "key", "category", "sort_order")
    list_editable = ("sort_order",)
    ordering = ("sort_order",)

    def service_save(self, request, obj, form, change):
        values = {name: getattr(obj, name) for name in ("key", "name", "category", "sort_order")}
        return services.save_status(request.principal, build(StatusSave, **values), status_id=obj.pk)

    def service_delete(self, request, obj):
        services.delete_status(request.principal, obj.pk)


class CommentInline(ReadOnlyInline):
    model = Comment
    fields = ("author_type", "author_name", "body", "created_at")
    readonly_fields = fields


@admin.register(Task)
class TaskAdmin(ReadOnlyAdmin):
    """Tasks change through the pages, the API and the tools (services publish live events and
    respect private boards); the admin only looks."""

    list_display = (
        "title",
        "board",
        "status",
        "client",
        "assignee",
        "priority",
        "due_date",
        "source_type",
        "updated_at",
    )
    list_filter = ("status", "board", "priority", "source_type")
    search_fields = ("title", "description", "source_label", "client__name", "client__client_number")
    list_select_related = ("board", "status", "assignee", "client")
    date_hierarchy = "created_at"
    readonly_fields = (
        "erstellt_von",
        "created_by_service",
        "source_type",
        "source_id",
        "source_context_snapshot",
        "version",
    )
    inlines = [CommentInline]
