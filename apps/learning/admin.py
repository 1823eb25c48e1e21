"""Admin control plane of learning: the models of the two jobs, the objects (approve, reject,
edit-then-approve through the review services), the decisions (revert) and the jobs' log (skips
and invalid model output are visible here)."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.utils.translation import gettext_lazy, ngettext

from apps.core.errors import DomainError
from apps.core.inputs import build
from apps.core.surfaces.admin_bases import NoAddMixin, ReadOnlyAdmin, ReadOnlyInline, ServiceAdmin
from apps.learning import services
from apps.learning.contracts import LearningBulkReview, LearningReview, LearningSettingsSave
from apps.learning.models import (
    LearningDecision,
    LearningEvidence,
    LearningJobRun,
    LearningObject,
    LearningSettings,
)
from apps.llm.selection import offered_models


class SettingsForm(forms.ModelForm):
    class Meta:
        model = LearningSettings
        fields = ["enabled", "extraction_model", "curator_model"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("extraction_model", "curator_model"):
            self.fields[name].queryset = offered_models()


@admin.register(LearningSettings)
class LearningSettingsAdmin(ServiceAdmin):
    """One row: which model extracts, which one curates (each chosen explicitly, no fallback).
    Saved through the service; never deleted."""

    form = SettingsForm
    list_display = ("__str__", "enabled", "extraction_model", "curator_model")

    def has_add_permission(self, request) -> bool:
        return not LearningSettings.objects.exists() and super().has_add_permission(request)

    def service_save(self, request, obj, form, change):
        values = {name: getattr(obj, name) for name in LearningSettingsSave.model_fields}
        return services.save_settings(request.principal, build(LearningSettingsSave, **values))


class EvidenceInline(ReadOnlyInline):
    model = LearningEvidence
    fields = ("run", "quote", "created_at")
    readonly_fields = fields


class DecisionInline(ReadOnlyInline):
    model = LearningDecision
    fields = ("created_at", "decision", "actor", "decided_by", "reason", "confidence", "note", "reverted_at")
    readonly_fields = fields


class EditForm(forms.ModelForm):
    note = forms.CharField(label=gettext_lazy("note"), required=False, max_length=1000)

    class Meta:
        model = LearningObject
        fields = ["text"]


def _each(request, items, decide, done_message) -> None:
    """Each row on its own: a refusal is reported with the row and does not stop the others."""
    done = 0
    for item in items:
        try:
            decide(item)
            done += 1
        except DomainError as exc:
            messages.error(request, f"{item}: {exc.message}")
    if done:
        messages.success(request, done_message(done) % {"n": done})


@admin.register(LearningObject)
class LearningObjectAdmin(NoAddMixin, ServiceAdmin):
    """Saving the text is edit-then-approve; the actions approve or reject."""

    form = EditForm
    list_display = ("text", "kind", "status", "staged_reason", "subject", "confirmations", "checked_at")
    list_filter = ("status", "kind", "staged_reason", "origin")
    search_fields = ("text", "subject")
    readonly_fields = (
        "kind",
        "subject",
        "status",
        "staged_reason",
        "conflicts_with",
        "origin",
        "confidence",
        "confirmations",
        "checked_at",
        "decided_by",
        "decided_at",
    )
    list_select_related = ("decided_by",)
    inlines = [EvidenceInline, DecisionInline]
    actions = ["approve", "reject"]

    def service_save(self, request, obj, form, change):
        edit = build(
            LearningReview,
            object_id=obj.pk,
            decision="edit",
            text=form.cleaned_data["text"],
            note=form.cleaned_data["note"],
        )
        return services.review(request.principal, edit)

    def _bulk(self, request, queryset, decision, done_message):
        ids = list(queryset.values_list("pk", flat=True)[: services.MAX_PAGE])
        result = services.bulk_review(
            request.principal, build(LearningBulkReview, object_ids=ids, decision=decision)
        )
        for refused in result["refused"]:
            messages.error(request, f"#{refused['id']}: {refused['message']}")
        if result["decided"]:
            n = len(result["decided"])
            messages.success(request, done_message(n) % {"n": n})

    @admin.action(description=gettext_lazy("Approve the selected learning objects"))
    def approve(self, request, queryset):
        self._bulk(request, queryset, "approve", lambda n: ngettext("%(n)d approved.", "%(n)d approved.", n))

    @admin.action(description=gettext_lazy("Reject the selected learning objects"))
    def reject(self, request, queryset):
        self._bulk(request, queryset, "reject", lambda n: ngettext("%(n)d rejected.", "%(n)d rejected.", n))


@admin.register(LearningDecision)
class LearningDecisionAdmin(ReadOnlyAdmin):
    list_display = (
        "created_at",
        "learning_object",
        "decision",
        "actor",
        "decided_by",
        "reason",
        "confidence",
        "model_label",
        "reverted_at",
    )
    list_filter = ("actor", "decision", "reason")
    search_fields = ("learning_object__text", "note")
    list_select_related = ("learning_object", "decided_by")
    actions = ["revert"]

    @admin.action(description=gettext_lazy("Revert the selected decisions"))
    def revert(self, request, queryset):
        _each(
            request,
            queryset.order_by("-created_at", "-id"),
            lambda row: services.revert_decision(request.principal, row.pk),
            lambda n: ngettext("%(n)d decision reverted.", "%(n)d decisions reverted.", n),
        )


@admin.register(LearningJobRun)
class LearningJobRunAdmin(ReadOnlyAdmin):
    """What the jobs did: done, skipped (and why), invalid model output, failed."""

    list_display = ("created_at", "job", "outcome", "reason", "model_label", "run", "counts")
    list_filter = ("job", "outcome")
    search_fields = ("reason",)
