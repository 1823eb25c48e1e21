"""The Freigaben in the admin: staged calls read-only with approve / deny actions, standing
approvals with a revoke action, policies edited through the policy service (an unknown tool or
operation, or a policy letting an agent change agents, is shown on the form). Every change goes
through `apps.approvals` services."""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _

from apps.approvals import decisions, policy, standing
from apps.approvals.models import Policy, StagedCall, StandingApproval
from apps.core.errors import DomainError
from apps.core.surfaces.admin_bases import ReadOnlyAdmin, ServiceAdmin


def _each(modeladmin, request, queryset, act, done_text) -> None:
    done, refused = 0, []
    for pk in queryset.values_list("pk", flat=True):
        try:
            act(request.principal, pk)
            done += 1
        except DomainError as exc:
            refused.append(f"#{pk}: {exc.message}")
    if done:
        modeladmin.message_user(request, done_text % {"count": done}, messages.SUCCESS)
    for line in refused:
        modeladmin.message_user(request, line, messages.ERROR)


@admin.register(StagedCall)
class StagedCallAdmin(ReadOnlyAdmin):
    """What waited or waits for a person; approving executes the stored call as its principal."""

    list_display = (
        "id",
        "tool",
        "operation",
        "status",
        "user",
        "reason",
        "created_at",
        "expires_at",
        "decided_by",
    )
    list_filter = ("status", "reason", "tool")
    search_fields = ("tool", "preview", "user__email")
    list_select_related = ("user", "decided_by")
    actions = ["approve", "deny"]

    @admin.action(description=_("Approve and execute the selected calls"))
    def approve(self, request, queryset):
        _each(self, request, queryset, decisions.approve, _("%(count)s calls approved."))

    @admin.action(description=_("Deny the selected calls"))
    def deny(self, request, queryset):
        _each(self, request, queryset, decisions.deny, _("%(count)s calls denied."))


@admin.register(StandingApproval)
class StandingApprovalAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "user",
        "specialist_id",
        "tool",
        "operation",
        "scope_kind",
        "scope_id",
        "expires_at",
        "revoked_at",
    )
    list_filter = ("tool", "operation")
    search_fields = ("tool", "user__email")
    list_select_related = ("user",)
    actions = ["revoke"]

    @admin.action(description=_("Revoke the selected standing approvals"))
    def revoke(self, request, queryset):
        def act(principal, pk):
            standing.revoke(principal, pk, as_admin=True)

        _each(
            self,
            request,
            queryset.filter(revoked_at__isnull=True),
            act,
            _("%(count)s standing approvals revoked."),
        )


@admin.register(Policy)
class PolicyAdmin(ServiceAdmin):
    """Per agent (empty: the main copilot) and tool: allowed (erlaubt) and forbidden (verboten)
    operations; a group row forbids a tool for that group's members."""

    list_display = ("tool", "specialist_id", "group", "allowed", "forbidden", "updated_at")
    list_filter = ("group",)
    search_fields = ("tool",)
    fields = ("tool", "specialist_id", "group", "allowed", "forbidden")

    def service_save(self, request, obj, form, change):
        if change and obj.pk:
            old = Policy.objects.get(pk=obj.pk)
            if (old.tool, old.specialist_id, old.group_id) != (obj.tool, obj.specialist_id, obj.group_id):
                policy.delete_policy(request.principal, old.pk)
        return policy.save_policy(
            request.principal,
            tool=obj.tool,
            allowed=obj.allowed,
            forbidden=obj.forbidden,
            specialist_id=obj.specialist_id,
            group_id=obj.group_id,
        )

    def service_delete(self, request, obj):
        policy.delete_policy(request.principal, obj.pk)
