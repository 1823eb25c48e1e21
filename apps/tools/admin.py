from django.contrib import admin

from apps.tools import gating
from apps.tools.models import ModuleInstall, ToolExecution


@admin.register(ModuleInstall)
class ModuleInstallAdmin(admin.ModelAdmin):
    list_display = ("slug", "installed", "updated_at")
    list_filter = ("installed",)
    search_fields = ("slug",)

    def save_model(self, request, obj, form, change):
        gating.set_installed(obj.slug, obj.installed)

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        gating.invalidate()


@admin.register(ToolExecution)
class ToolExecutionAdmin(admin.ModelAdmin):
    list_display = ("created_at", "tool", "user", "service_principal", "surface", "ok", "code", "duration_ms")
    list_filter = ("ok", "surface", "tool")
    search_fields = ("tool", "code", "run_id", "user__email")
    list_select_related = ("user", "service_principal")
    date_hierarchy = "created_at"
    readonly_fields = [f.name for f in ToolExecution._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
