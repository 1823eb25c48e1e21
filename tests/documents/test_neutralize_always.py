"""Document folders marked "neutralize always": a model call that touches a document in the
folder or below it is neutralized even with the office's switch off (the document workflow, a
remote embeddings provider, a copilot run), and the folder page switches the mark."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from apps.core.services import set_setting
from apps.documents import workflow
from apps.documents.models import Folder
from apps.llm import neutralize
from tests.documents.factories import DocumentFactory, FolderFactory
from tests.factories import ClientFactory

pytestmark = pytest.mark.django_db

TEXT = (
    "Sehr geehrter Herr Dr. Jost Kaltenbach,\nIhre Mieterin Frau Sabine Quirrenbach, "
    "Lindenstraße 12, 50667 Köln, hat fristgerecht gekündigt."
)
ANSWER = {"summary": "Kündigung.", "tasks": [], "deadline": None}


@pytest.fixture
def switch_off(db):
    set_setting("agent_neutralization", "off")


def _tree(marked: bool) -> tuple[Folder, Folder]:
    top = FolderFactory(name="Mandate Erbrecht")
    if marked:
        top.neutralize_always = True
        top.save(update_fields=["neutralize_always"])
    below = FolderFactory(name="2024", parent=top)
    return top, below


def _workflow(anna, folder, fake_openai, capture) -> list[dict]:
    document = DocumentFactory(title="Kündigung", extracted_text=TEXT, created_by=anna, folder=folder)
    fake_openai.reply(json.dumps(ANSWER))
    with capture(execute=True):
        workflow.run_workflow(document.pk)
    return fake_openai.chat_requests


def test_control_an_unmarked_folder_goes_out_raw(
    anna, chat_model, fake_openai, switch_off, django_capture_on_commit_callbacks
):
    _top, below = _tree(marked=False)
    sent = json.dumps(
        _workflow(anna, below, fake_openai, django_capture_on_commit_callbacks), ensure_ascii=False
    )
    assert "Kaltenbach" in sent


def test_the_workflow_of_a_document_below_a_marked_folder_is_neutralized(
    anna, chat_model, fake_openai, switch_off, django_capture_on_commit_callbacks
):
    _top, below = _tree(marked=True)
    sent = json.dumps(
        _workflow(anna, below, fake_openai, django_capture_on_commit_callbacks), ensure_ascii=False
    )
    assert sent and "Kaltenbach" not in sent and "Quirrenbach" not in sent and "50667" not in sent


def test_a_document_of_a_marked_client_is_neutralized(
    anna, chat_model, fake_openai, switch_off, django_capture_on_commit_callbacks
):
    client = ClientFactory(name="Erbengemeinschaft Quast", neutralize_always=True)
    document = DocumentFactory(title="Kündigung", extracted_text=TEXT, created_by=anna)
    document.clients.set([client])
    fake_openai.reply(json.dumps(ANSWER))
    with django_capture_on_commit_callbacks(execute=True):
        workflow.run_workflow(document.pk)
    assert "Kaltenbach" not in json.dumps(fake_openai.chat_requests, ensure_ascii=False)


def test_sensitive_refs_and_loading_in_a_scope():
    _top, below = _tree(marked=True)
    inside = DocumentFactory(title="a", folder=below)
    outside = DocumentFactory(title="b", folder=FolderFactory(name="Allgemein"))
    assert neutralize.requires([f"document:{inside.pk}", f"document:{outside.pk}"]) == [
        f"document:{inside.pk}"
    ]
    with neutralize.tracking() as demands:
        from apps.documents.models import Document

        Document.objects.get(pk=outside.pk)
        assert demands.sources == set()
        Document.objects.get(pk=inside.pk)
        assert demands.sources == {f"document:{inside.pk}"}


def test_the_folder_settings_switch_the_mark(client, anna):
    top, _below = _tree(marked=False)
    client.force_login(anna)
    page = client.get(reverse("documents:index") + f"?folder={top.pk}").content.decode()
    assert reverse("documents:neutralize-folder", args=[top.pk]) in page
    assert (
        client.post(
            reverse("documents:neutralize-folder", args=[top.pk]), {"neutralize_always": "on"}
        ).status_code
        == 302
    )
    top.refresh_from_db()
    assert top.neutralize_always is True
    client.post(reverse("documents:neutralize-folder", args=[top.pk]), {"neutralize_always": "off"})
    top.refresh_from_db()
    assert top.neutralize_always is False
