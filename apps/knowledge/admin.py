"""Admin control plane of the knowledge store. Rows are read-only here; every change (re-index,
purge, cancel, consent) goes through the services so purges and job cancels happen alike."""

from __future__ import annotations

from django.contrib import admin
from django.db import transaction
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from apps.core.inputs import build
from apps.core.surfaces.admin_bases import ReadOnlyAdmin, ServiceAdmin
from apps.core.surfaces.web import reported
from apps.knowledge import consent, services, switching
from apps.knowledge.contracts import ConsentSwitch
from apps.knowledge.models import ConsentRule, IndexJob, KnowledgeFile

# The source types the office's apps index (stored as codes); an unknown one shows its code.
SOURCE_TYPE_LABELS = {"document": _("Document"), "note": _("Note"), "wiki": _("Wiki page")}


def source_type_label(code: str) -> str:
    return str(SOURCE_TYPE_LABELS.get(code, code))


class SourceTypeFilter(admin.SimpleListFilter):
    title = _("source type")
    parameter_name = "source_type"

    def lookups(self, request, model_admin):
        codes = KnowledgeFile.objects.order_by().values_list("source_type", flat=True).distinct()
        return sorted(((code, source_type_label(code)) for code in codes), key=lambda pair: pair[1])

    def queryset(self, request, queryset):
        return queryset.filter(source_type=self.value()) if self.value() else queryset


@admin.register(KnowledgeFile)
class KnowledgeFileAdmin(ReadOnlyAdmin):
    """A file row follows its source: no deletes here; purge instead."""

    list_display = (
        "title",
        "ref",
        "scope",
        "status",
        "chunk_count",
        "bytes",
        "embedding_model",
        "indexed_at",
    )
    list_filter = ("status", "scope", SourceTypeFilter, "embedding_model")
    search_fields = ("title", "path", "source_id")
    list_select_related = ("indexed_by",)
    readonly_fields = [
        "source_shown" if f.name == "source_type" else f.name
        for f in KnowledgeFile._meta.fields
        if f.name != "text"
    ]
    exclude = ("text", "source_type")  # content stays out of the control plane; the type shows translated
    actions = ("reindex", "purge")

    def get_queryset(self, request):
        return super().get_queryset(request).defer("text")

    @admin.display(description=_("source type"), ordering="source_type")
    def source_shown(self, file):
        return source_type_label(file.source_type)

    @admin.action(description=_("Index again"))
    def reindex(self, request, queryset):
        count = 0
        for file in queryset:
            with reported(request) as outcome:
                services.reindex_file(request.principal, file.pk)
            count += not outcome.failed
        self.message_user(request, ngettext("%d file queued.", "%d files queued.", count) % count)

    @admin.action(description=_("Remove from the index (keeps the source)"))
    def purge(self, request, queryset):
        with transaction.atomic():
            for file in queryset.select_for_update(of=("self",)):
                consent.purge_file(file, status=KnowledgeFile.Status.CANCELLED)
        self.message_user(request, _("The selected files were removed from the index."))


@admin.register(IndexJob)
class IndexJobAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "file",
        "status",
        "done_chunks",
        "total_chunks",
        "cancel_requested",
        "reason",
        "created_at",
    )
    list_filter = ("status", "reason")
    list_select_related = ("file",)
    readonly_fields = [f.name for f in IndexJob._meta.fields]
    actions = ("cancel",)

    def get_queryset(self, request):
        return super().get_queryset(request).defer("file__text")

    @admin.action(description=_("Cancel"))
    def cancel(self, request, queryset):
        for job in queryset:
            with reported(request):
                services.cancel_job(request.principal, job.pk)
        self.message_user(request, _("The selected jobs stop after their current step."))


@admin.register(ConsentRule)
class ConsentRuleAdmin(ServiceAdmin):
    """Index switches are set and cleared by the consent service (purges, queued re-indexing)."""

    list_display = ("path_prefix", "connection_key", "enabled", "changed_by", "updated_at")
    list_filter = ("enabled", "connection_key")
    fields = ("path_prefix", "connection_key", "enabled")

    def service_save(self, request, obj, form, change):
        if change and obj.pk:
            old = ConsentRule.objects.get(pk=obj.pk)
            if (old.path_prefix, old.connection_key) != (obj.path_prefix, obj.connection_key):
                switching.clear_rule(request.principal, old.pk)
        switch = build(
            ConsentSwitch, path=obj.path_prefix, enabled=obj.enabled, connection_key=obj.connection_key
        )
        rule, changed = switching.set_consent(request.principal, switch)
        self.message_user(request, ngettext("%d file affected.", "%d files affected.", changed) % changed)
        return rule

    def service_delete(self, request, obj) -> None:
        switching.clear_rule(request.principal, obj.pk)
