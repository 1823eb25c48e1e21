from django.contrib import admin

from apps.core.admin_bases import ServiceAdmin
from apps.deadlines import services
from apps.deadlines.models import DeadlineRule


@admin.register(DeadlineRule)
class DeadlineRuleAdmin(ServiceAdmin):
    """Admins add and edit rules through the service (checked like a computation); a rule is
    deactivated rather than deleted, since Fristen name it by code."""

    list_display = (
        "name",
        "code",
        "amount",
        "unit",
        "trigger_kind",
        "legal_basis",
        "posting_fiction",
        "active",
    )
    list_filter = ("active", "unit", "trigger_kind", "posting_fiction")
    search_fields = ("code", "name", "legal_basis")
    readonly_fields = ("created_at", "updated_at")
    service_fields = (
        "code",
        "name",
        "trigger_kind",
        "amount",
        "unit",
        "legal_basis",
        "posting_fiction",
        "fiction_basis",
        "shift_basis",
        "default_pre_deadline_days",
        "default_criticality",
        "active",
    )

    def service_save(self, request, obj, form, change):
        return services.save_rule(request.principal, **self.service_values(obj), rule_id=obj.pk)
