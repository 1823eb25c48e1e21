"""The documents' sections of the hub pages: the client page (extension point
`clients.page_sections`) here, the case page in `case_page` (declared in `apps.documents.apps`).
Each shows the newest documents linked to the hub that the viewer may see (other people's
personal folders stay out). Two queries, whatever the hub has."""

from __future__ import annotations

from apps.accounts.principal import Principal
from apps.clients.models import Client
from apps.clients.page import Section
from apps.core.inputs import build
from apps.documents import services
from apps.documents.contracts import DocumentFilter

LINKED_DOCUMENTS = 20  # the full list is one click away


def documents_section(principal: Principal, template: str, **hub: int) -> Section:
    """The newest documents of one hub (`client_id=` or `case_id=`)."""
    documents, total = services.list_documents(
        principal, build(DocumentFilter, limit=LINKED_DOCUMENTS, **hub)
    )
    context = {"documents": documents, "document_total": total}
    return Section("documents", template, context, order=50, live_topics=("documents.document",))


def section(principal: Principal, client: Client) -> Section:
    return documents_section(principal, "documents/_client_page.html", client_id=client.pk)
