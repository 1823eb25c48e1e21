from django import forms
from django.contrib import admin

from apps.core.models import Heartbeat, InstanceSetting
from apps.core.surfaces import admin_language  # noqa: F401  (permission names, intervals in the viewer's language)
from apps.core.surfaces.admin_bases import NoAddMixin


@admin.register(Heartbeat)
class HeartbeatAdmin(NoAddMixin, admin.ModelAdmin):
    list_display = ("component", "beat_at", "hostname", "count")
    readonly_fields = ("component", "beat_at", "hostname", "count")


class InstanceSettingForm(forms.ModelForm):
    """Settings an app declares (`extends = {"core.instance_settings": [...]}`: a dict key → check)
    are checked on save: the check returns the value to store or raises a `DomainError`."""

    class Meta:
        model = InstanceSetting
        fields = ("key", "value")

    def clean(self):
        from apps.core.errors import DomainError
        from apps.core.plugins import contributions

        cleaned = super().clean()
        key = cleaned.get("key")
        for checks in contributions("core.instance_settings"):
            if key in checks and "value" in cleaned:
                try:
                    cleaned["value"] = checks[key](cleaned["value"])
                except DomainError as exc:
                    self.add_error("value", exc.message)
        return cleaned


@admin.register(InstanceSetting)
class InstanceSettingAdmin(admin.ModelAdmin):
    form = InstanceSettingForm
    list_display = ("key", "updated_at")
    search_fields = ("key",)
