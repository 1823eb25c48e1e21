"""The admin control plane renders and writes through the services."""

import pytest
from django.urls import reverse

from tests.documents.factories import DocumentFactory, FolderFactory

pytestmark = pytest.mark.django_db


def test_admin_pages_render_and_actions_use_services(client, admin_user, django_capture_on_commit_callbacks):
    from apps.documents.models import Document

    client.force_login(admin_user)
    folder = FolderFactory(name="Steuern")
    doc = DocumentFactory(folder=folder, extraction_status="extraction_failed", extraction_error="corrupt")
    for url in (
        reverse("admin:documents_document_changelist"),
        reverse("admin:documents_document_change", args=[doc.pk]),
        reverse("admin:documents_folder_changelist"),
        reverse("admin:documents_folder_change", args=[folder.pk]),
    ):
        assert client.get(url).status_code == 200, url
    changelist = reverse("admin:documents_document_changelist")
    with django_capture_on_commit_callbacks(execute=True):
        client.post(changelist, {"action": "extract_again", "_selected_action": [doc.pk]})
    doc.refresh_from_db()
    assert doc.extraction_status == "done"  # re-extracted (inline in tests)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(changelist, {"action": "delete_through_service", "_selected_action": [doc.pk]})
    assert not Document.objects.exists()
