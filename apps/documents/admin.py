"""Admin control plane for documents. The "Share" page grants people and groups access to personal
folders or single documents through the grants service (who loses access gets the removal at
once); deletes and re-extraction go through the services so files, the knowledge store and open
pages stay consistent."""

from django.contrib import admin, messages
from django.db import transaction
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from apps.core.inputs import build
from apps.core.sharing.admin import SharingAdminMixin
from apps.core.surfaces.admin_bases import NoAddMixin, ReadOnlyInline, ReadOnlyMixin, ServiceAdmin
from apps.documents import folders, grants, sensitivity, services, workflow
from apps.documents.contracts import DocumentUpdate, FolderUpdate
from apps.documents.models import Document, DocumentWorkflow, Folder, ShareLink


@admin.register(Folder)
class FolderAdmin(SharingAdminMixin, NoAddMixin, ServiceAdmin):
    """Folders are made on the documents page (tree paths, kinds, owners); a rename here goes
    through the folder service (name rules, "Persönlich" protected, live reload)."""

    share_read = staticmethod(grants.folder_shares)
    share_grant = staticmethod(grants.grant_folder)
    share_revoke = staticmethod(grants.revoke_folder)

    list_display = ("name", "kind", "owner", "is_home", "neutralize_always", "tree_path", "updated_at")
    list_filter = ("kind", "is_home", "neutralize_always")
    search_fields = ("name",)
    list_select_related = ("owner",)
    readonly_fields = ("tree_path", "kind", "owner", "is_home", "parent", "created_by", "version")
    fields = ("name", "neutralize_always", *readonly_fields)

    def service_save(self, request, obj, form, change):
        if "neutralize_always" in form.changed_data:
            obj = sensitivity.set_folder_mark(
                request.principal, obj.pk, form.cleaned_data["neutralize_always"]
            )
        if "name" in form.changed_data:
            return folders.update_folder(
                request.principal, obj.pk, build(FolderUpdate, name=form.cleaned_data["name"])
            )
        return obj

    def has_delete_permission(self, request, obj=None):
        return False  # on the documents page: a non-empty folder needs an explicit recursive delete


class ShareLinkInline(ReadOnlyInline):
    model = ShareLink
    fields = ("created_at", "created_by", "expires_at", "revoked_at")
    readonly_fields = fields


class WorkflowInline(ReadOnlyMixin, admin.StackedInline):
    model = DocumentWorkflow
    extra = 0
    fields = (
        "status", "reason", "message", "summary", "model_label", "prompt_tokens", "completion_tokens",
        "runs", "started_at", "finished_at",
    )  # fmt: skip
    readonly_fields = fields


@admin.register(Document)
class DocumentAdmin(SharingAdminMixin, NoAddMixin, ServiceAdmin):
    """Uploads go through the documents page or the API (validation, hashing); title and tax
    fields are saved through the service, deletes through the action below."""

    share_read = staticmethod(grants.document_shares)
    share_grant = staticmethod(grants.grant_document)
    share_revoke = staticmethod(grants.revoke_document)

    list_display = ("title", "folder", "mime_type", "size", "extraction_status", "created_by", "created_at")
    list_filter = ("extraction_status", "mime_type")
    search_fields = ("title", "original_filename", "content_hash")
    list_select_related = ("folder", "created_by")
    readonly_fields = (
        "original_filename", "file", "content_hash", "mime_type", "size", "folder", "extraction_status",
        "extraction_error", "page_count", "extracted_at", "created_by", "created_by_service", "version",
        "created_at", "updated_at",
    )  # fmt: skip
    fields = ("title", *readonly_fields, "tax_fields")
    inlines = [ShareLinkInline, WorkflowInline]
    actions = ["extract_again", "run_workflow_again", "delete_through_service"]

    def get_queryset(self, request):
        return super().get_queryset(request).defer("search", "extracted_text", "sections")

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def service_save(self, request, obj, form, change):
        changes = {k: form.cleaned_data[k] for k in ("title", "tax_fields") if k in form.changed_data}
        if changes:
            return services.update_document(request.principal, obj.pk, build(DocumentUpdate, **changes))
        return obj

    def has_delete_permission(self, request, obj=None):
        return False  # the action deletes through the service (files, knowledge store, live pages)

    @admin.action(description=_("Extract the text again"))
    def extract_again(self, request, queryset):
        count = services.request_extraction(list(queryset.values_list("id", flat=True)))
        messages.success(request, ngettext("%d document queued.", "%d documents queued.", count) % count)

    @admin.action(description=_("Run the document workflow again"))
    def run_workflow_again(self, request, queryset):
        count = workflow.request_runs(list(queryset.values_list("id", flat=True)))
        messages.success(request, ngettext("%d document queued.", "%d documents queued.", count) % count)

    @admin.action(description=_("Delete selected documents and their files"))
    def delete_through_service(self, request, queryset):
        with transaction.atomic():
            documents = list(queryset.select_related("folder").select_for_update(of=("self",)))
            services.delete_document_rows(documents)
        messages.success(
            request,
            ngettext("%d document deleted.", "%d documents deleted.", len(documents)) % len(documents),
        )
