"""Admin control plane of Notizen. Notes and pages are read-only here: they change through the
page, the API and the tools (services sanitize, check visibility and publish live events).
Folders may be renamed through the same service; a refusal shows as an admin error."""

from django.contrib import admin

from apps.core.inputs import build
from apps.core.sharing.admin import SharingAdminMixin
from apps.core.surfaces.admin_bases import NoAddMixin, ReadOnlyAdmin, ReadOnlyInline, ServiceAdmin
from apps.notes import services, sharing
from apps.notes.contracts import NoteFolderUpdate
from apps.notes.models import Note, NoteFolder, NotePage


@admin.register(NoteFolder)
class NoteFolderAdmin(SharingAdminMixin, NoAddMixin, ServiceAdmin):
    share_read = staticmethod(sharing.folder_shares)
    share_grant = staticmethod(sharing.grant_folder)
    share_revoke = staticmethod(sharing.revoke_folder)

    list_display = ("name", "parent", "visibility", "owner", "sort_order", "updated_at")
    list_filter = ("visibility",)
    search_fields = ("name",)
    list_select_related = ("parent", "owner")
    fields = ("name", "parent", "visibility", "owner", "sort_order")
    readonly_fields = ("parent", "visibility", "owner")

    def has_delete_permission(self, request, obj=None):
        return False  # folders are emptied and deleted on the Notizen page

    def service_save(self, request, obj, form, change):
        folder = services.update_folder(request.principal, obj.pk, build(NoteFolderUpdate, name=obj.name))
        NoteFolder.objects.filter(pk=obj.pk).update(sort_order=obj.sort_order)
        return folder


class NotePageInline(ReadOnlyInline):
    model = NotePage
    fields = ("ordinal", "title", "text", "version", "updated_at")
    readonly_fields = fields


@admin.register(Note)
class NoteAdmin(SharingAdminMixin, ReadOnlyAdmin):
    """Private notes stay private: the list shows that they exist (for support and cleanup of
    departed staff), but their pages only for shared notes. The "Share" page lists who a private
    note is shared with; an administrator may revoke those shares, never grant one."""

    share_read = staticmethod(sharing.note_shares)
    share_grant = staticmethod(sharing.grant_note)
    share_revoke = staticmethod(sharing.revoke_note)

    list_display = ("name", "folder", "visibility", "owner", "version", "updated_at")
    list_filter = ("visibility", "folder")
    search_fields = ("name",)
    list_select_related = ("folder", "owner")
    date_hierarchy = "updated_at"
    readonly_fields = ("name", "folder", "visibility", "owner", "created_by_service", "version", "created_at")
    fields = readonly_fields
    inlines = [NotePageInline]

    def get_inlines(self, request, obj):
        return [NotePageInline] if obj is not None and obj.visibility == "shared" else []
