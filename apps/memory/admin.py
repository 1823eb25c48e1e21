"""Admin control plane of durable memory: the office's and the specialists' memory (never other
people's personal memory, which only its holder reads), changed and decided through the same
services as every other surface (audit trail, live events)."""

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy, ngettext

from apps.core.inputs import build
from apps.core.surfaces.admin_bases import NoAddMixin, ReadOnlyAdmin, ReadOnlyInline, ServiceAdmin
from apps.memory import services
from apps.memory.contracts import MemoryBulkReview, MemoryUpdate
from apps.memory.models import Memory, MemoryRevision, MemorySource
from apps.memory.visibility import reviewable_q


class SourceInline(ReadOnlyInline):
    model = MemorySource
    fk_name = "memory"
    fields = ("kind", "ref", "quote", "added_by", "created_at")
    readonly_fields = fields


class RevisionInline(ReadOnlyInline):
    model = MemoryRevision
    fields = ("action", "actor_label", "before", "after", "note", "created_at")
    readonly_fields = fields


@admin.register(Memory)
class MemoryAdmin(NoAddMixin, ServiceAdmin):
    list_display = (
        "__str__",
        "kind",
        "scope",
        "review",
        "assertion",
        "subject_client",
        "confirmations",
        "updated_at",
    )
    list_filter = ("review", "assertion", "kind", "scope")
    search_fields = ("text",)
    list_select_related = ("subject_client",)
    fields = (
        "text",
        "kind",
        "valid_from",
        "valid_until",
        "scope",
        "specialist",
        "subject_client",
        "subject_case",
    )
    fields += (
        "subject_person",
        "source_kind",
        "source_ref",
        "review",
        "assertion",
        "conflicts_with",
        "conflict",
    )
    readonly_fields = fields[4:]
    inlines = [SourceInline, RevisionInline]
    actions = ["approve", "reject"]

    def get_queryset(self, request):
        return super().get_queryset(request).filter(reviewable_q(request.principal)).defer("embedding")

    def service_save(self, request, obj, form, change):
        data = form.cleaned_data
        change = build(
            MemoryUpdate,
            text=data["text"],
            kind=data["kind"],
            valid_from=data["valid_from"],
            valid_until=data["valid_until"],
            note="admin",
        )
        return services.update(request.principal, obj.pk, change)

    def _decide(self, request, queryset, decision: str) -> None:
        ids = list(queryset.values_list("pk", flat=True))
        outcome = services.bulk_review(
            request.principal, build(MemoryBulkReview, memory_ids=ids, decision=decision)
        )
        for refusal in outcome["refused"]:
            messages.error(request, f"{refusal['id']}: {refusal['message']}")
        done = len(outcome["decided"])
        if done:
            messages.success(
                request, ngettext("%(n)d memory decided.", "%(n)d memories decided.", done) % {"n": done}
            )

    @admin.action(description=gettext_lazy("Approve the selected memories"))
    def approve(self, request, queryset):
        self._decide(request, queryset, "approve")

    @admin.action(description=gettext_lazy("Reject the selected memories"))
    def reject(self, request, queryset):
        self._decide(request, queryset, "reject")


@admin.register(MemoryRevision)
class MemoryRevisionAdmin(ReadOnlyAdmin):
    list_display = ("memory", "action", "actor_label", "note", "created_at")
    list_filter = ("action",)
    list_select_related = ("memory",)

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .filter(memory__in=Memory.objects.filter(reviewable_q(request.principal)))
        )
