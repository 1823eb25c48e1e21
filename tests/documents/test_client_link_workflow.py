"""The document workflow proposes the client a document concerns (never links it by itself): a
person accepts (the link goes through the documents service) or dismisses it, once."""

import json

import pytest
from django.urls import reverse

from apps.accounts.principal import Principal
from apps.documents import workflow
from apps.documents.models import WorkflowItem
from apps.documents.workflow_items import match_client
from tests.documents.factories import DocumentFactory
from tests.factories import ClientFactory

pytestmark = pytest.mark.django_db

TEXT = "Finanzamt Musterstadt. Einkommensteuerbescheid 2024 für die Hoffmann GmbH, Steuernummer 12/345/67890."


def _answer(client: str | None) -> str:
    return json.dumps({"summary": "Bescheid ESt 2024.", "tasks": [], "deadline": None, "client": client})


@pytest.fixture
def hoffmann(db):
    return ClientFactory(name="Hoffmann GmbH", client_number="20001", tax_number="12/345/67890")


def _run(document, capture):
    with capture(execute=True):
        return workflow.run_workflow(document.pk)


def _proposal(document):
    return WorkflowItem.objects.filter(workflow__document=document, kind="client").first()


def test_matching_is_strict(as_anna, hoffmann):
    ClientFactory(name="Meier GmbH")
    ClientFactory(name="Meier GmbH & Co. KG")
    assert match_client(as_anna, "Hoffmann GmbH") == hoffmann
    assert match_client(as_anna, "hoffmann gmbh") == hoffmann
    assert match_client(as_anna, "20001") == hoffmann
    assert match_client(as_anna, "12/345/67890") == hoffmann
    assert match_client(as_anna, "Meier") is None  # two candidates alike: no guess
    assert match_client(as_anna, "Schulze AG") is None
    assert match_client(as_anna, "   ") is None


def test_the_workflow_proposes_and_a_person_accepts(
    client, anna, hoffmann, chat_model, fake_openai, django_capture_on_commit_callbacks
):
    document = DocumentFactory(title="ESt 2024", extracted_text=TEXT, created_by=anna)
    fake_openai.reply(_answer("Hoffmann GmbH"))
    assert _run(document, django_capture_on_commit_callbacks) == "done"
    item = _proposal(document)
    assert (item.action, item.target_id, item.title) == ("proposed", hoffmann.pk, "Hoffmann GmbH")
    assert not document.clients.exists()  # proposed, not applied

    client.force_login(anna)
    url = reverse("documents:detail", args=[document.pk])
    page = client.get(url).content.decode()
    decide = reverse("documents:decide-proposal", args=[document.pk, item.pk])
    assert decide in page and "Hoffmann GmbH" in page
    response = client.post(decide, {"decision": "accept"})
    assert response.status_code == 302
    assert list(document.clients.values_list("pk", flat=True)) == [hoffmann.pk]
    item.refresh_from_db()
    assert item.action == "accepted"
    # Decided once: a second click is a clear message, a re-run proposes nothing again.
    again = client.post(decide, {"decision": "dismiss"}, follow=True)
    assert again.status_code == 200
    item.refresh_from_db()
    assert item.action == "accepted"
    fake_openai.reply(_answer("Hoffmann GmbH"))
    workflow.request_runs([document.pk])
    _run(document, django_capture_on_commit_callbacks)
    assert WorkflowItem.objects.filter(workflow__document=document, kind="client").count() == 1


def test_a_dismissed_proposal_is_not_made_again(
    anna, hoffmann, chat_model, fake_openai, django_capture_on_commit_callbacks
):
    document = DocumentFactory(title="ESt 2024", extracted_text=TEXT, created_by=anna)
    fake_openai.reply(_answer("20001"))
    _run(document, django_capture_on_commit_callbacks)
    item = _proposal(document)
    workflow.decide_client_proposal(Principal.for_user(anna), document.pk, item.pk, accept=False)
    item.refresh_from_db()
    assert item.action == "dismissed" and not document.clients.exists()
    fake_openai.reply(_answer("20001"))
    _run(document, django_capture_on_commit_callbacks)
    assert [i.action for i in WorkflowItem.objects.filter(kind="client")] == ["dismissed"]


def test_no_proposal_for_a_linked_document_or_an_unknown_name(
    anna, hoffmann, chat_model, fake_openai, django_capture_on_commit_callbacks
):
    linked = DocumentFactory(title="A", extracted_text=TEXT, created_by=anna)
    linked.clients.set([ClientFactory(name="Schulz KG")])
    fake_openai.reply(_answer("Hoffmann GmbH"))
    _run(linked, django_capture_on_commit_callbacks)
    unknown = DocumentFactory(title="B", extracted_text=TEXT, created_by=anna)
    fake_openai.reply(_answer("Niemand GmbH"))
    _run(unknown, django_capture_on_commit_callbacks)
    wrong_type = DocumentFactory(title="C", extracted_text=TEXT, created_by=anna)
    fake_openai.reply(json.dumps({"summary": "x", "client": {"name": "Hoffmann"}}))  # tolerated: none
    assert _run(wrong_type, django_capture_on_commit_callbacks) == "done"
    assert not WorkflowItem.objects.filter(kind="client").exists()


def test_only_whoever_may_change_the_document_decides(
    anna, ben, hoffmann, chat_model, fake_openai, django_capture_on_commit_callbacks
):
    from apps.documents import folders
    from apps.documents.errors import DocumentNotFound, ProposalNotFound

    home = folders.ensure_home_folder(Principal.for_user(anna))
    document = DocumentFactory(title="Privat", extracted_text=TEXT, created_by=anna, folder=home)
    fake_openai.reply(_answer("Hoffmann GmbH"))
    _run(document, django_capture_on_commit_callbacks)
    item = _proposal(document)
    with pytest.raises(DocumentNotFound):
        workflow.decide_client_proposal(Principal.for_user(ben), document.pk, item.pk, accept=True)
    other = DocumentFactory(created_by=anna)
    with pytest.raises(ProposalNotFound):  # an item of another document
        workflow.decide_client_proposal(Principal.for_user(anna), other.pk, item.pk, accept=True)
    assert not document.clients.exists()
