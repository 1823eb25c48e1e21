from django.utils.translation import gettext_lazy as _

from apps.core.plugins import DomainApp, NavEntry, PeriodicJob, ToolFamily


class DocumentsConfig(DomainApp):
    name = "apps.documents"
    label = "documents"
    verbose_name = _("Documents")
    navigation = [NavEntry("documents", _("Documents"), "documents:index", order=40)]
    tool_families = [ToolFamily("documents")]
    extends = {
        "clients.page_sections": ["apps.documents.client_page.section"],
        "clients.case_sections": ["apps.documents.case_page.section"],
        "clients.case_links": ["apps.documents.case_links.LINKER"],
        "knowledge.sources": ["apps.documents.knowledge.source"],
        "knowledge.path_labels": ["apps.documents.knowledge.folder_labels"],
        "llm.sensitive_refs": ["apps.documents.sensitivity.sensitive_refs"],
        "dashboard.search_providers": ["apps.documents.search.provider", "apps.documents.search.similar"],
    }
    periodic_jobs = [
        PeriodicJob(
            "Dokumente: verwaiste Dateien entfernen",
            "apps.documents.jobs.sweep_orphan_files",
            crontab="30 3 * * *",
        ),
    ]
    announce = {
        "documents.document.created": _("Document added"),
        "documents.document.updated": _("Document changed"),
        "documents.document.deleted": _("Document deleted"),
        "documents.document.removed": _("A document is no longer visible to you"),
        "documents.share.created": _("Public link created"),
        "documents.share.revoked": _("Public link revoked"),
        "documents.extraction.done": _("Text extracted"),
        "documents.extraction.empty": _("No text found in the document"),
        "documents.extraction.unsupported_format": _("Document format not supported"),
        "documents.extraction.extraction_failed": _("Text extraction failed"),
        "documents.folder.created": _("Folder created"),
        "documents.folder.updated": _("Folder changed"),
        "documents.folder.deleted": _("Folder deleted"),
    }

    def ready(self) -> None:
        from apps.documents import (
            knowledge,  # noqa: F401 — connects the store's index/purge receivers
            sensitivity,
        )

        sensitivity.connect()  # loading a document of a source marked "neutralize always" demands it
