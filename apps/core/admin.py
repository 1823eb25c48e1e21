from typing import Any

from django.contrib import admin

from apps.core import services
from apps.core.contracts import InstanceSettingSave
from apps.core.inputs import build
from apps.core.models import Heartbeat, InstanceSetting
from apps.core.surfaces import admin_language  # noqa: F401  (permission names, intervals in the viewer's language)
from apps.core.surfaces.admin_bases import NoAddMixin, ServiceAdmin


@admin.register(Heartbeat)
class HeartbeatAdmin(NoAddMixin, admin.ModelAdmin):
    list_display = ("component", "beat_at", "hostname", "count")
    readonly_fields = ("component", "beat_at", "hostname", "count")


@admin.register(InstanceSetting)
class InstanceSettingAdmin(ServiceAdmin):
    """Saved and deleted through the service: a key an app declares (`extends =
    {"core.instance_settings": [...]}`) is checked by that app; a refusal is a form error."""

    fields = ("key", "value")
    list_display = ("key", "updated_at")
    search_fields = ("key",)

    def service_save(self, request: Any, obj: InstanceSetting, form: Any, change: bool) -> InstanceSetting:
        data = build(InstanceSettingSave, key=obj.key, value=obj.value)
        return services.save_instance_setting(request.principal, data, obj.pk)

    def service_delete(self, request: Any, obj: InstanceSetting) -> None:
        services.delete_instance_setting(request.principal, obj.pk)
