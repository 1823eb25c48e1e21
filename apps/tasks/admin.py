from django.contrib import admin, messages
from guardian.admin import GuardedModelAdmin

from apps.accounts.principal import Principal
from apps.core.errors import DomainError
from apps.tasks import services
from apps.tasks.models import Board, Comment, Task, TaskStatus


@admin.register(Board)
class BoardAdmin(GuardedModelAdmin):
    """Object permissions ("Object permissions" button) share restricted boards with people."""

    list_display = ("name", "visibility", "owner", "sort_order")
    list_filter = ("visibility",)
    search_fields = ("name",)
    list_select_related = ("owner",)


@admin.register(TaskStatus)
class TaskStatusAdmin(admin.ModelAdmin):
    """Statuses are workspace-global: saving goes through the service so open boards reload."""

    list_display = ("name", "key", "category", "sort_order")
    list_editable = ("sort_order",)
    ordering = ("sort_order",)

    def save_model(self, request, obj, form, change):
        try:
            saved = services.save_status(
                Principal.for_user(request.user),
                key=obj.key,
                name=obj.name,
                category=obj.category,
                sort_order=obj.sort_order,
                status_id=obj.pk,
            )
            obj.pk = saved.pk
        except DomainError as exc:
            messages.error(request, exc.message)

    def delete_model(self, request, obj):
        try:
            services.delete_status(Principal.for_user(request.user), obj.pk)
        except DomainError as exc:
            messages.error(request, exc.message)


class CommentInline(admin.TabularInline):
    model = Comment
    extra = 0
    fields = ("author_type", "author_name", "body", "created_at")
    readonly_fields = fields
    can_delete = False


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
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

    # Tasks change through the pages, the API and the tools (services publish live events and
    # respect private boards); the admin only looks.
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
