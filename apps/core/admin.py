from django.contrib import admin

from apps.core.admin_bases import NoAddMixin
from apps.core.models import Heartbeat, InstanceSetting


@admin.register(Heartbeat)
class HeartbeatAdmin(NoAddMixin, admin.ModelAdmin):
    list_display = ("component", "beat_at", "hostname", "count")
    readonly_fields = ("component", "beat_at", "hostname", "count")


@admin.register(InstanceSetting)
class InstanceSettingAdmin(admin.ModelAdmin):
    list_display = ("key", "updated_at")
    search_fields = ("key",)
