"""Admin control plane of the knowledge store. Rows are read-only here; every change (re-index,
purge, cancel, consent) goes through the services so purges and job cancels happen alike."""

from __future__ import annotations

from django.contrib import admin
from django.db import transaction
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from apps.core.admin_bases import ReadOnlyAdmin, ServiceAdmin
from apps.core.web import reported
from apps.knowledge import consent, services
from apps.knowledge.models import ConsentRule, IndexJob, KnowledgeFile


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
    list_filter = ("status", "scope", "source_type", "embedding_model")
    search_fields = ("title", "path", "source_id")
    list_select_related = ("indexed_by",)
    readonly_fields = [f.name for f in KnowledgeFile._meta.fields if f.name != "text"]
    exclude = ("text",)  # content stays out of the control plane
    actions = ("reindex", "purge")

    def get_queryset(self, request):
        return super().get_queryset(request).defer("text")

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
                consent.clear_rule(request.principal, old.pk)
        rule, changed = consent.set_consent(
            request.principal, obj.path_prefix, obj.enabled, connection_key=obj.connection_key
        )
        self.message_user(request, ngettext("%d file affected.", "%d files affected.", changed) % changed)
        return rule

    def service_delete(self, request, obj) -> None:
        consent.clear_rule(request.principal, obj.pk)
