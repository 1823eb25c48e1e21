"""Admin control plane of the knowledge store. Rows are read-only here; every change (re-index,
purge, cancel, consent) goes through the services so purges and job cancels happen alike."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db import transaction
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from apps.accounts.principal import Principal
from apps.core.errors import DomainError
from apps.knowledge import consent, services
from apps.knowledge.models import ConsentRule, IndexJob, KnowledgeFile


def _principal(request) -> Principal:
    return Principal.for_user(request.user)


class ReadOnlyMixin:
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(KnowledgeFile)
class KnowledgeFileAdmin(ReadOnlyMixin, admin.ModelAdmin):
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
            try:
                services.reindex_file(_principal(request), file.pk)
                count += 1
            except DomainError as exc:
                self.message_user(request, f"{file}: {exc.message}", messages.WARNING)
        self.message_user(request, ngettext("%d file queued.", "%d files queued.", count) % count)

    @admin.action(description=_("Remove from the index (keeps the source)"))
    def purge(self, request, queryset):
        with transaction.atomic():
            for file in queryset.select_for_update(of=("self",)):
                consent.purge_file(file, status=KnowledgeFile.Status.CANCELLED)
        self.message_user(request, _("The selected files were removed from the index."))

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # a file row follows its source; purge instead


@admin.register(IndexJob)
class IndexJobAdmin(ReadOnlyMixin, admin.ModelAdmin):
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
            services.cancel_job(_principal(request), job.pk)
        self.message_user(request, _("The selected jobs stop after their current step."))


@admin.register(ConsentRule)
class ConsentRuleAdmin(admin.ModelAdmin):
    list_display = ("path_prefix", "connection_key", "enabled", "changed_by", "updated_at")
    list_filter = ("enabled", "connection_key")
    fields = ("path_prefix", "connection_key", "enabled")

    def save_model(self, request, obj, form, change):
        if change and obj.pk:
            old = ConsentRule.objects.get(pk=obj.pk)
            if (old.path_prefix, old.connection_key) != (obj.path_prefix, obj.connection_key):
                consent.clear_rule(_principal(request), old.pk)
        rule, changed = consent.set_consent(
            _principal(request), obj.path_prefix, obj.enabled, connection_key=obj.connection_key
        )
        obj.pk = rule.pk
        self.message_user(request, ngettext("%d file affected.", "%d files affected.", changed) % changed)

    def delete_model(self, request, obj):
        consent.clear_rule(_principal(request), obj.pk)

    def delete_queryset(self, request, queryset):
        for rule in queryset:
            consent.clear_rule(_principal(request), rule.pk)
