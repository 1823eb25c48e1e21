"""Approval tokens: deleting a folder with its documents needs the person's phrase as a new chat
message; the token works once, in that chat, for exactly that call, for ten minutes."""

from __future__ import annotations

import dataclasses

import pytest
from django.core.files.base import ContentFile

from apps.agent.models import ChatSession, Message
from apps.approvals import tokens
from apps.approvals.errors import ApprovalTokenInvalid
from apps.approvals.models import ApprovalToken
from apps.core.inputs import build
from apps.documents import folders
from apps.documents import services as documents
from apps.documents.contracts import DocumentUpload, FolderCreate, FolderDeleteById
from apps.documents.models import Document, Folder
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch

TOOL = "documents_delete_folder"


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")


def ctx_for(principal, session=None, **more) -> ToolContext:
    """A chat call that passed the approval step (a person approved it, or a policy allows it):
    the token is asked for on top of that."""
    values = {"principal": principal, "session_id": str(session.pk) if session else None, "approved": True}
    known = {f.name for f in dataclasses.fields(ToolContext)}
    return ToolContext(**{k: v for k, v in {**values, **more}.items() if k in known})


def full_folder(principal, name: str = "Altakten 2019") -> Folder:
    folder = folders.create_folder(principal, build(FolderCreate, name=name))
    documents.upload_document(
        principal,
        build(DocumentUpload, folder_id=folder.pk),
        content=ContentFile(b"Bescheid"),
        filename="b.txt",
    )
    return folder


def say(session, text: str, role: str = Message.Role.USER) -> Message:
    return Message.objects.create(session=session, role=role, content=text)


@pytest.fixture
def chat(anna):
    return ChatSession.objects.create(user=anna, title="Aufräumen")


def first_call(principal, session, folder):
    result = dispatch(TOOL, {"folder_id": folder.pk, "recursive": True}, ctx_for(principal, session))
    assert result.ok is False and result.code == "approval_token_required", result
    return result.output["approval_token"], result.output["phrase"]


def retry(principal, session, folder, token):
    args = {"folder_id": folder.pk, "recursive": True, "approval_token": token}
    return dispatch(TOOL, args, ctx_for(principal, session))


def test_the_first_call_changes_nothing_and_names_the_phrase(as_anna, chat):
    folder = full_folder(as_anna)
    token, phrase = first_call(as_anna, chat, folder)
    assert phrase.startswith("FREIGABE ") and len(phrase.split()[1]) == 4 and token
    assert Folder.objects.filter(pk=folder.pk).exists() and Document.objects.count() == 1
    assert not ApprovalToken.objects.exists()


def test_the_persons_phrase_lets_the_unchanged_call_run_once(as_anna, chat):
    folder = full_folder(as_anna)
    token, phrase = first_call(as_anna, chat, folder)
    message = say(chat, f"  {phrase.lower()} ")  # spacing and case do not matter
    result = retry(as_anna, chat, folder, token)
    assert result.ok is True, result
    assert not Folder.objects.filter(pk=folder.pk).exists() and Document.objects.count() == 0
    used = ApprovalToken.objects.get()
    assert used.used_message == message and used.used_at is not None and used.session == chat


def test_a_token_works_once(as_anna, chat):
    folder = full_folder(as_anna)
    token, phrase = first_call(as_anna, chat, folder)
    say(chat, phrase)
    args = FolderDeleteById(folder_id=folder.pk, recursive=True, approval_token=token)
    tokens.consume(ctx_for(as_anna, chat), TOOL, args, token)
    with pytest.raises(ApprovalTokenInvalid):
        tokens.consume(ctx_for(as_anna, chat), TOOL, args, token)


def test_one_message_confirms_one_token(as_anna, chat):
    a, b = full_folder(as_anna, "A"), full_folder(as_anna, "B")
    token_a, phrase_a = first_call(as_anna, chat, a)
    token_b, _phrase_b = first_call(as_anna, chat, b)
    say(chat, phrase_a)
    refused = retry(as_anna, chat, b, token_b)
    assert refused.code == "approval_token_invalid"
    assert retry(as_anna, chat, a, token_a).ok is True
    assert Folder.objects.filter(pk=b.pk).exists()


def test_a_token_from_another_chat_is_refused(anna, as_anna, chat):
    folder = full_folder(as_anna)
    token, phrase = first_call(as_anna, chat, folder)
    other = ChatSession.objects.create(user=anna, title="Anderer Chat")
    say(other, phrase)
    say(chat, phrase)
    assert retry(as_anna, other, folder, token).code == "approval_token_invalid"
    assert Folder.objects.filter(pk=folder.pk).exists()


def test_a_phrase_typed_by_the_model_is_refused(as_anna, chat):
    folder = full_folder(as_anna)
    token, phrase = first_call(as_anna, chat, folder)
    say(chat, phrase, role=Message.Role.ASSISTANT)
    say(chat, phrase, role=Message.Role.TOOL)
    result = retry(as_anna, chat, folder, token)
    assert result.code == "approval_token_invalid" and phrase in result.message
    assert Folder.objects.filter(pk=folder.pk).exists() and not ApprovalToken.objects.exists()


def test_a_phrase_sent_before_the_token_is_refused(as_anna, chat, monkeypatch):
    folder = full_folder(as_anna)
    monkeypatch.setattr(tokens.secrets, "choice", lambda alphabet: "K")
    say(chat, "FREIGABE KKKK Ordner löschen")  # guessed in advance
    token, phrase = first_call(as_anna, chat, folder)
    assert phrase.casefold() == "freigabe kkkk ordner löschen"
    assert retry(as_anna, chat, folder, token).code == "approval_token_invalid"


def test_changed_arguments_are_refused(as_anna, chat):
    a, b = full_folder(as_anna, "A"), full_folder(as_anna, "B")
    token, phrase = first_call(as_anna, chat, a)
    say(chat, phrase)
    assert retry(as_anna, chat, b, token).code == "approval_token_invalid"
    assert Folder.objects.filter(pk__in=[a.pk, b.pk]).count() == 2


def test_an_expired_token_is_refused(as_anna, chat, monkeypatch):
    folder = full_folder(as_anna)
    token, phrase = first_call(as_anna, chat, folder)
    say(chat, phrase)
    monkeypatch.setattr(tokens, "TTL_SECONDS", -1)
    result = retry(as_anna, chat, folder, token)
    assert result.code == "approval_token_invalid" and Folder.objects.filter(pk=folder.pk).exists()


def test_a_forged_or_foreign_token_is_refused(as_anna, as_boss, chat, boss):
    folder = full_folder(as_anna)
    token, phrase = first_call(as_anna, chat, folder)
    say(chat, phrase)
    assert retry(as_anna, chat, folder, token[:-3] + "xyz").code == "approval_token_invalid"
    boss_chat = ChatSession.objects.create(user=boss)
    say(boss_chat, phrase)
    assert retry(as_boss, boss_chat, folder, token).code == "approval_token_invalid"
    assert Folder.objects.filter(pk=folder.pk).exists()


def test_without_a_chat_no_token_is_issued(as_anna):
    folder = full_folder(as_anna)
    result = dispatch(TOOL, {"folder_id": folder.pk, "recursive": True}, ctx_for(as_anna, surface="api"))
    assert result.code == "approval_token_required" and not (result.output or {}).get("approval_token")
    assert Folder.objects.filter(pk=folder.pk).exists()


def test_every_recursive_delete_needs_a_token_a_plain_one_none(as_anna, chat):
    empty = folders.create_folder(as_anna, build(FolderCreate, name="Leer"))
    recursive = dispatch(TOOL, {"folder_id": empty.pk, "recursive": True}, ctx_for(as_anna, chat))
    assert recursive.code == "approval_token_required" and Folder.objects.filter(pk=empty.pk).exists()
    assert dispatch(TOOL, {"folder_id": empty.pk}, ctx_for(as_anna, chat)).ok is True


def test_the_first_call_is_answered_with_the_phrase_not_staged(anna, as_anna, chat):
    """Through the whole dispatcher, approval step included: a recursive delete is confirmed by
    the phrase, not waiting on an approval card as well."""
    from apps.approvals.models import StagedCall
    from apps.tools.context import ToolContext

    folder = full_folder(as_anna)
    plain = ToolContext(principal=as_anna, session_id=str(chat.pk))
    first = dispatch(TOOL, {"folder_id": folder.pk, "recursive": True}, plain)
    assert first.code == "approval_token_required" and not StagedCall.objects.exists()
    say(chat, first.output["phrase"])
    args = {"folder_id": folder.pk, "recursive": True, "approval_token": first.output["approval_token"]}
    assert dispatch(TOOL, args, plain).ok is True
    assert not Folder.objects.filter(pk=folder.pk).exists()


def test_more_items_than_the_setting_need_a_token(settings):
    from apps.tools import confirmation

    assert confirmation.max_items() == 20 and not confirmation.too_many(20) and confirmation.too_many(21)
    settings.CLAPILOT_APPROVAL_TOKEN_MAX_ITEMS = 5
    assert confirmation.too_many(6) and not confirmation.too_many(5)
