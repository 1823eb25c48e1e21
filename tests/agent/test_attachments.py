"""Chat attachments: uploaded as documents in the personal folder, ids on the message, links in
the bubble, a context line with `document:<id>` refs that reaches the model."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from apps.accounts.principal import Principal
from apps.agent import services
from apps.agent.models import ChatSession, Message, Run
from apps.agent.runtime import run_agent
from apps.apikeys.services import issue_device_token
from apps.core.inputs import build
from apps.documents import folders
from apps.documents import services as documents
from apps.documents.contracts import DocumentUpload
from apps.documents.models import HOME_FOLDER_NAME
from tests.agent.helpers import say
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture
def api(user):
    _, token = issue_device_token(user, "Annas iPhone")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def _document(owner, name: str = "Bescheid 2024.txt", data: bytes = b"Einkommensteuerbescheid 2024"):
    """Uploaded into the owner's private "Persönlich" folder (invisible to everyone else)."""
    principal = Principal.for_user(owner)
    home = folders.ensure_home_folder(principal)
    return documents.upload_document(
        principal,
        build(DocumentUpload, folder_id=home.pk),
        content=SimpleUploadedFile(name, data),
        filename=name,
    )


def test_api_message_with_document_ids(api, user, model, monkeypatch):
    monkeypatch.setattr(services, "_enqueue", lambda run_id: None)
    doc = _document(user)
    session = services.create_session(Principal.for_user(user))
    url = f"/api/v1/chat/sessions/{session.pk}/messages/"
    response = api.post(url, {"content": "Bitte prüfen", "document_ids": [doc.pk]}, format="json")
    assert response.status_code == 202
    message = Message.objects.get(session=session, role=Message.Role.USER)
    assert message.metadata["document_ids"] == [doc.pk]
    assert message.metadata["attachments"][0]["title"] == doc.title
    listed = api.get(url).json()["messages"]
    assert listed[0]["metadata"]["document_ids"] == [doc.pk]


def test_invisible_document_id_is_a_404_and_nothing_is_written(api, user, model):
    foreign = _document(UserFactory())  # in the other person's private folder
    session = services.create_session(Principal.for_user(user))
    url = f"/api/v1/chat/sessions/{session.pk}/messages/"
    for ids in ([foreign.pk], [999_999]):
        response = api.post(url, {"content": "Was steht drin?", "document_ids": ids}, format="json")
        assert response.status_code == 404, response.content
        body = response.json()
        assert body["code"] == "attachment_not_found" and body["details"] == {"document_id": ids[0]}
        assert foreign.title not in response.content.decode()
    assert not Message.objects.filter(session=session).exists()
    assert not Run.objects.filter(session=session).exists()
    ChatSession.objects.get(pk=session.pk)  # untouched
    bad = api.post(url, {"content": "x", "document_ids": ["abc"]}, format="json")
    assert bad.status_code == 400 and not Message.objects.filter(session=session).exists()


def test_context_line_reaches_the_model(user, model, fake_openai):
    doc = _document(user)
    fake_openai.reply("Der Bescheid ist da.")
    principal = Principal.for_user(user)
    session = services.create_session(principal)
    run = say(principal, session.pk, "Bitte prüfen", document_ids=[doc.pk])
    run = run_agent(run.pk)
    assert run.status == Run.Status.COMPLETED
    sent = fake_openai.chat_requests[0]["messages"]
    user_at = next(i for i, m in enumerate(sent) if m["role"] == "user")
    note = sent[user_at + 1]
    assert note["role"] == "system"
    assert f"document:{doc.pk}" in note["content"] and doc.title in note["content"]
    assert "text extraction: pending" in note["content"] and "documents_get" in note["content"]


@pytest.mark.parametrize("web_user", ["user"], indirect=True)
def test_upload_view_stores_in_the_personal_folder_and_the_page_shows_links(web, user, model):
    session = services.create_session(Principal.for_user(user))
    upload = SimpleUploadedFile("Vollmacht.txt", b"Vollmacht fuer Anna")
    response = web.post(reverse("chat:attach"), {"file": upload})
    assert response.status_code == 201, response.content
    data = response.json()
    doc = documents.get_document(Principal.for_user(user), data["id"], with_text=False)
    assert doc.folder.name == HOME_FOLDER_NAME and doc.folder.owner == user
    assert data["url"] == f"/dokumente/{doc.pk}/"

    say(Principal.for_user(user), session.pk, "Anbei", document_ids=[doc.pk])
    body = web.get(reverse("chat:session", args=[session.pk])).content.decode()
    assert f'href="/dokumente/{doc.pk}/"' in body and "Vollmacht" in body
    assert 'id="chat-files"' in body and reverse("chat:attach") in body


@pytest.mark.parametrize("web_user", ["user"], indirect=True)
def test_upload_view_refuses_empty_and_missing_files(web, user):
    assert web.post(reverse("chat:attach"), {}).status_code == 400
    empty = SimpleUploadedFile("leer.txt", b"")
    response = web.post(reverse("chat:attach"), {"file": empty})
    assert response.status_code == 400 and response.json()["code"]


def test_upload_view_refuses_a_body_announced_over_the_limit(web, settings):
    from apps.documents.models import Document

    settings.CLAPILOT_DOCUMENTS_MAX_UPLOAD_BYTES = 1024
    big = SimpleUploadedFile("gross.txt", b"x" * (3 * 1024 * 1024))
    response = web.post(reverse("chat:attach"), {"file": big})
    assert response.status_code == 413 and response.json()["code"] == "file_too_large"
    assert not Document.objects.exists()
