from django.contrib import admin

from apps.core.surfaces.admin_bases import NoAddMixin, ServiceAdmin
from apps.tools import gating
from apps.tools.models import ModuleInstall, ToolExecution


@admin.register(ModuleInstall)
class ModuleInstallAdmin(ServiceAdmin):
    """Install state changes through `gating`, which also drops the catalog's cached state."""

    list_display = ("slug", "installed", "updated_at")
    list_filter = ("installed",)
    search_fields = ("slug",)

    def service_save(self, request, obj, form, change):
        gating.set_installed(obj.slug, obj.installed)
        return ModuleInstall.objects.get(slug=obj.slug)

    def service_delete(self, request, obj):
        gating.reset_installed(obj.slug)


@admin.register(ToolExecution)
class ToolExecutionAdmin(NoAddMixin, admin.ModelAdmin):
    """The audit trail of tool calls, written by the dispatcher: looked at and pruned, never edited."""

    list_display = ("created_at", "tool", "user", "service_principal", "surface", "ok", "code", "duration_ms")
    list_filter = ("ok", "surface", "tool")
    search_fields = ("tool", "code", "run_id", "user__email")
    list_select_related = ("user", "service_principal")
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in ToolExecution._meta.fields]

    def has_change_permission(self, request, obj=None):
        return False
