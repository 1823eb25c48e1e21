from django.contrib import admin

from apps.core.inputs import build
from apps.core.surfaces.admin_bases import ServiceAdmin
from apps.deadlines import services
from apps.deadlines.contracts import RuleSave
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
        values = {name: getattr(obj, name) for name in RuleSave.model_fields}
        return services.save_rule(request.principal, build(RuleSave, **values), rule_id=obj.pk)
