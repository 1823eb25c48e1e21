"""The case page's "link a document" picker (`clients.case_links`): the visible documents of the
case's client without a case that the viewer may change, linked through `update_document`."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from apps.accounts.principal import Principal
from apps.clients.case_links import CaseLinker, newest
from apps.clients.models import Case
from apps.core.inputs import build
from apps.documents import services
from apps.documents.contracts import DocumentUpdate
from apps.documents.visibility import visible_documents


def candidates(principal: Principal, case: Case) -> list[tuple[int, str]]:
    return newest(
        visible_documents(principal, "change").filter(clients=case.client_id, case__isnull=True), "title"
    )


def link(principal: Principal, case: Case, document_id: int) -> None:
    services.update_document(principal, document_id, build(DocumentUpdate, case_id=case.pk))


LINKER = CaseLinker("documents", _("Documents"), candidates, link, order=30)
