"""The case page's "Documents" section (extension point `clients.case_sections`, declared in
`apps.documents.apps`): the newest documents of the Akte the viewer may see (other people's
personal folders stay out). Two queries, whatever the case holds."""

from __future__ import annotations

from apps.accounts.principal import Principal
from apps.clients.models import Case
from apps.clients.page import Section
from apps.documents import services

LINKED_DOCUMENTS = 20  # the full list is one click away


def section(principal: Principal, case: Case) -> Section:
    documents, total = services.list_documents(principal, case_id=case.pk, limit=LINKED_DOCUMENTS)
    return Section(
        "documents",
        "documents/_case_page.html",
        {"documents": documents, "document_total": total},
        order=50,
        live_topics=("documents.document",),
    )
