from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, NavEntry, ToolFamily


class NotesConfig(DomainApp):
    name = "apps.notes"
    label = "notes"
    verbose_name = _("Notes")
    navigation = [NavEntry("notes", _("Notes"), "notes:index", order=60)]
    tool_families = [ToolFamily("notizen", module="notizen")]
    announce = {
        "notizen.folder.created": _("Note folder created"),
        "notizen.folder.updated": _("Note folder changed"),
        "notizen.folder.deleted": _("Note folder deleted"),
        "notizen.note.created": _("Note created"),
        "notizen.note.updated": _("Note changed"),
        "notizen.note.deleted": _("Note deleted"),
        "notizen.note.removed": _("A note is no longer visible to you"),
        "notizen.note.shared": _("A note was shared"),
        "notizen.folder.shared": _("A note folder was shared with you"),
        "notizen.folder.removed": _("A note folder is no longer shared with you"),
        "notizen.page.created": _("Note page added"),
        "notizen.page.updated": _("Note page changed"),
        "notizen.page.deleted": _("Note page deleted"),
    }
    extends = {
        "knowledge.sources": ["apps.notes.context.source"],  # context_search / context_get
        "clients.case_sections": ["apps.notes.case_page.section"],
        "clients.case_links": ["apps.notes.case_links.LINKER"],
        "dashboard.search_providers": ["apps.notes.search.provider"],
        "notifications.mention_watches": ["apps.notes.notices.PAGE_MENTIONS"],
    }
