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

    def service_save(self, request, obj, form, change):
        return services.save_rule(
            request.principal,
            code=obj.code,
            name=obj.name,
            trigger_kind=obj.trigger_kind,
            amount=obj.amount,
            unit=obj.unit,
            legal_basis=obj.legal_basis,
            posting_fiction=obj.posting_fiction,
            fiction_basis=obj.fiction_basis,
            shift_basis=obj.shift_basis,
            default_pre_deadline_days=obj.default_pre_deadline_days,
            default_criticality=obj.default_criticality,
            active=obj.active,
            rule_id=obj.pk,
        )
