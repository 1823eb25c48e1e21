from django.contrib import admin

from apps.core.models import Heartbeat, InstanceSetting


@admin.register(Heartbeat)
class HeartbeatAdmin(admin.ModelAdmin):
    list_display = ("component", "beat_at", "hostname", "count")
    readonly_fields = ("component", "beat_at", "hostname", "count")

    def has_add_permission(self, request):
        return False


@admin.register(InstanceSetting)
class InstanceSettingAdmin(admin.ModelAdmin):
    list_display = ("key", "updated_at")
    search_fields = ("key",)
