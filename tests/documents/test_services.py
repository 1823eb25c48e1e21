"""Upload validation, folders (Persönlich, tree, delete), visibility, sharing, deletes."""

import os

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.clients.errors import ClientNotFound
from apps.core.errors import Forbidden, InvalidInput, VersionConflict
from apps.core.inputs import build
from apps.documents import folders, services, sharing, storage
from apps.documents.contracts import (
    DocumentFilter,
    DocumentUpdate,
    DocumentUpload,
    FolderCreate,
    FolderUpdate,
    ShareCreate,
)
from apps.documents.errors import (
    DocumentNotFound,
    EmptyFile,
    FileTooLarge,
    FolderNameTaken,
    FolderNotEmpty,
    FolderNotFound,
    FolderProtected,
)
from apps.documents.models import Document, Folder, ShareLink
from apps.documents.signals import document_removed
from apps.documents.visibility import grant
from tests.documents.helpers import upload

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("../../etc/passwd", "passwd"),
        ("/abs/path/Bescheid.pdf", "Bescheid.pdf"),
        ("C:\\Users\\x\\Beleg.PDF", "Beleg.PDF"),
        ("a\x00b\x1fc.txt", "abc.txt"),
        ("...", "dokument"),
        ("", "dokument"),
        (".htaccess", "htaccess"),
    ],
)
def test_filenames_are_sanitized(raw, clean):
    assert storage.sanitize_filename(raw) == clean


def test_upload_stores_under_generated_name_with_hash(
    as_anna, media_root, django_capture_on_commit_callbacks
):
    doc = upload(as_anna, "../../../etc/Bescheid.txt", b"Steuerbescheid", django_capture_on_commit_callbacks)
    assert doc.original_filename == "Bescheid.txt" and doc.title == "Bescheid"
    assert doc.file.name.startswith("documents/") and ".." not in doc.file.name
    assert "Bescheid" not in doc.file.name
    assert os.path.realpath(doc.file.path).startswith(os.path.realpath(media_root))
    import hashlib

    assert doc.content_hash == hashlib.sha256(b"Steuerbescheid").hexdigest() and doc.size == 14


def test_zero_byte_and_too_large_are_refused_and_nothing_is_written(as_anna, media_root):
    from apps.core.services import set_setting

    with pytest.raises(EmptyFile):
        services.upload_document(
            as_anna, build(DocumentUpload), content=SimpleUploadedFile("leer.pdf", b""), filename="leer.pdf"
        )
    set_setting(storage.MAX_SETTING, 10)
    with pytest.raises(FileTooLarge) as exc:
        services.upload_document(
            as_anna,
            build(DocumentUpload),
            content=SimpleUploadedFile("gross.txt", b"x" * 11),
            filename="gross.txt",
        )
    assert exc.value.details["max_bytes"] == 10
    assert not Document.objects.exists()
    assert not (media_root / "documents").exists() or not any((media_root / "documents").rglob("*.*"))


def test_unknown_client_or_folder_writes_nothing(as_anna, media_root):
    with pytest.raises(ClientNotFound):
        services.upload_document(
            as_anna,
            build(DocumentUpload, client_ids=[999999]),
            content=SimpleUploadedFile("a.txt", b"a"),
            filename="a.txt",
        )
    with pytest.raises(FolderNotFound):
        services.upload_document(
            as_anna,
            build(DocumentUpload, folder_id=999999),
            content=SimpleUploadedFile("a.txt", b"a"),
            filename="a.txt",
        )
    assert not Document.objects.exists()
    assert not any(p.is_file() for p in media_root.rglob("*"))


def test_home_folder_is_created_once_and_private(as_anna, as_ben, as_robot):
    tree = folders.list_folders(as_anna)
    home = next(f for f in tree if f.is_home)
    assert home.name == "Persönlich" and home.owner == as_anna.user and home.is_personal
    folders.list_folders(as_anna)
    assert Folder.objects.filter(is_home=True, owner=as_anna.user).count() == 1
    assert home.pk not in [f.pk for f in folders.list_folders(as_ben)]
    assert home.pk not in [f.pk for f in folders.list_folders(as_robot)]
    with pytest.raises(FolderProtected):
        folders.delete_folder(as_anna, home.pk)
    with pytest.raises(FolderProtected):
        folders.update_folder(as_anna, home.pk, build(FolderUpdate, name="Privat"))


def test_personal_documents_are_invisible_to_others(
    as_anna, as_ben, as_robot, django_capture_on_commit_callbacks
):
    home = folders.ensure_home_folder(as_anna)
    private = upload(as_anna, "privat.txt", b"geheim", django_capture_on_commit_callbacks, folder_id=home.pk)
    for other in (as_ben, as_robot):
        with pytest.raises(DocumentNotFound):
            services.get_document(other, private.pk)
        with pytest.raises(DocumentNotFound):
            services.delete_document(other, private.pk)
        assert services.list_documents(other, DocumentFilter())[1] == 0
        with pytest.raises(FolderNotFound):
            services.upload_document(
                other,
                build(DocumentUpload, folder_id=home.pk),
                content=SimpleUploadedFile("x.txt", b"x"),
                filename="x.txt",
            )
    assert Document.objects.filter(pk=private.pk).exists()


def test_explicit_grant_covers_the_subtree(as_anna, as_ben, django_capture_on_commit_callbacks):
    home = folders.ensure_home_folder(as_anna)
    sub = folders.create_folder(as_anna, build(FolderCreate, name="Mandat Meier", parent_id=home.pk))
    doc = upload(as_anna, "meier.txt", b"Meier", django_capture_on_commit_callbacks, folder_id=sub.pk)
    grant(home, as_ben.user.pk, ("view",))
    assert services.get_document(as_ben, doc.pk).pk == doc.pk
    with pytest.raises(Forbidden):
        services.update_document(as_ben, doc.pk, build(DocumentUpdate, title="x"))
    single = upload(
        as_anna,
        "nur.txt",
        b"nur dies",
        django_capture_on_commit_callbacks,
        folder_id=folders.ensure_home_folder(as_anna).pk,
    )
    other = folders.create_folder(as_anna, build(FolderCreate, name="Anderes"))  # shared: visible anyway
    assert other.kind == "shared"
    assert services.get_document(as_ben, single.pk)  # home itself is granted


def test_folder_tree_rename_move_and_name_clash(as_anna):
    a = folders.create_folder(as_anna, build(FolderCreate, name="Steuern"))
    b = folders.create_folder(as_anna, build(FolderCreate, name="2025", parent_id=a.pk))
    c = folders.create_folder(as_anna, build(FolderCreate, name="Belege", parent_id=b.pk))
    assert c.tree_path == f"/{a.pk}/{b.pk}/{c.pk}/"
    with pytest.raises(FolderNameTaken):
        folders.create_folder(as_anna, build(FolderCreate, name="steuern"))
    with pytest.raises(InvalidInput):
        folders.update_folder(as_anna, a.pk, build(FolderUpdate, parent_id=c.pk))  # into its own subtree
    home = folders.ensure_home_folder(as_anna)
    folders.update_folder(as_anna, b.pk, build(FolderUpdate, parent_id=home.pk))
    c.refresh_from_db()
    assert c.tree_path == f"/{home.pk}/{b.pk}/{c.pk}/" and c.kind == "personal" and c.owner == as_anna.user
    renamed = folders.update_folder(
        as_anna, a.pk, build(FolderUpdate, name="Steuern 2026", expected_version=1)
    )
    assert renamed.name == "Steuern 2026"
    with pytest.raises(VersionConflict):
        folders.update_folder(as_anna, a.pk, build(FolderUpdate, name="x", expected_version=1))


def test_non_empty_folder_needs_recursive(as_anna, media_root, django_capture_on_commit_callbacks):
    removed = []
    document_removed.connect(lambda sender, document_id, **kw: removed.append(document_id), weak=False)
    top = folders.create_folder(as_anna, build(FolderCreate, name="Alt"))
    sub = folders.create_folder(as_anna, build(FolderCreate, name="Unter", parent_id=top.pk))
    doc = upload(as_anna, "a.txt", b"alt", django_capture_on_commit_callbacks, folder_id=sub.pk)
    path = doc.file.path
    with pytest.raises(FolderNotEmpty) as exc:
        folders.delete_folder(as_anna, top.pk)
    assert exc.value.details == {"documents": 1, "subfolders": 1}
    assert Folder.objects.filter(pk=top.pk).exists()
    with django_capture_on_commit_callbacks(execute=True):
        folders.delete_folder(as_anna, top.pk, recursive=True)
    assert not Folder.objects.filter(pk__in=[top.pk, sub.pk]).exists()
    assert not Document.objects.exists() and not os.path.exists(path)
    assert removed == [doc.pk]


def test_update_move_version_conflict(as_anna, django_capture_on_commit_callbacks):
    from apps.clients.models import Client

    client = Client.objects.create(name="Meier GmbH", client_number="10003")
    doc = upload(as_anna, "a.txt", b"a", django_capture_on_commit_callbacks)
    updated = services.update_document(
        as_anna,
        doc.pk,
        build(
            DocumentUpdate,
            title="Bescheid Meier",
            client_ids=[client.pk],
            tax_fields={"Steuerjahr": 2024},
            expected_version=doc.version,
        ),
    )
    assert updated.title == "Bescheid Meier" and [c.pk for c in updated.clients.all()] == [client.pk]
    assert updated.knowledge_payload()["scope"] == "client"
    with pytest.raises(VersionConflict):
        services.update_document(
            as_anna, doc.pk, build(DocumentUpdate, title="alt", expected_version=doc.version)
        )
    folder = folders.create_folder(as_anna, build(FolderCreate, name="Meier"))
    moved = services.move_document(as_anna, doc.pk, folder_id=folder.pk)
    assert moved.folder_id == folder.pk
    with pytest.raises(InvalidInput):
        services.update_document(as_anna, doc.pk, build(DocumentUpdate, tax_fields="nope"))
    with pytest.raises(InvalidInput):
        services.update_document(as_anna, doc.pk, build(DocumentUpdate, content_hash="x"))


def test_delete_removes_file_after_commit_and_tells_knowledge_first(
    as_anna, django_capture_on_commit_callbacks
):
    doc = upload(as_anna, "a.txt", b"a", django_capture_on_commit_callbacks)
    seen = []

    def receiver(sender, document_id, **kwargs):
        seen.append((document_id, Document.objects.filter(pk=document_id).exists()))

    document_removed.connect(receiver)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.delete_document(as_anna, doc.pk)
        assert os.path.exists(doc.file.path)  # not before commit
    for callback in callbacks:
        callback()
    assert seen == [(doc.pk, True)]
    assert not os.path.exists(doc.file.path)


def test_share_link_lifecycle(as_anna, as_ben, django_capture_on_commit_callbacks):
    home = folders.ensure_home_folder(as_anna)
    doc = upload(as_anna, "a.txt", b"a", django_capture_on_commit_callbacks, folder_id=home.pk)
    with pytest.raises(DocumentNotFound):
        sharing.create_share(as_ben, doc.pk, build(ShareCreate))
    share, token, created = sharing.create_share(as_anna, doc.pk, build(ShareCreate, expires_in_days=7))
    again, token2, created2 = sharing.create_share(as_anna, doc.pk, build(ShareCreate))
    assert created and not created2 and token == token2 and again.pk == share.pk
    assert token not in share.token_hash and share.token_hash != token
    assert sharing.resolve_public(token).pk == doc.pk
    assert sharing.resolve_public(token[:-1] + ("A" if token[-1] != "A" else "B")) is None
    assert sharing.resolve_public("../../etc") is None
    sharing.revoke_share(as_anna, doc.pk)
    assert sharing.resolve_public(token) is None
    from apps.documents.errors import ShareNotFound

    with pytest.raises(ShareNotFound):
        sharing.revoke_share(as_anna, doc.pk)
    _, new_token, _ = sharing.create_share(as_anna, doc.pk, build(ShareCreate))
    assert new_token != token and ShareLink.objects.filter(document=doc).count() == 2


def test_expired_share_is_dead_and_replaced(as_anna, django_capture_on_commit_callbacks):
    import datetime as dt

    from django.utils import timezone

    doc = upload(as_anna, "a.txt", b"a", django_capture_on_commit_callbacks)
    share, token, _ = sharing.create_share(as_anna, doc.pk, build(ShareCreate, expires_in_days=1))
    ShareLink.objects.filter(pk=share.pk).update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    assert sharing.resolve_public(token) is None
    _, fresh, created = sharing.create_share(as_anna, doc.pk, build(ShareCreate))
    assert created and fresh != token
    other = upload(as_anna, "b.txt", b"b", django_capture_on_commit_callbacks)
    with pytest.raises(InvalidInput):
        sharing.create_share(as_anna, other.pk, build(ShareCreate, expires_in_days=999))
    assert not ShareLink.objects.filter(document=other).exists()


def test_events_reach_only_viewers(as_anna, ben, django_capture_on_commit_callbacks):
    from apps.mutations.models import MutationEvent

    home = folders.ensure_home_folder(as_anna)
    MutationEvent.objects.all().delete()
    upload(as_anna, "a.txt", b"a", django_capture_on_commit_callbacks, folder_id=home.pk)
    events = MutationEvent.objects.all()
    assert events.exists()
    assert {(e.audience, e.user_id) for e in events} == {("user", as_anna.user.pk)}
    MutationEvent.objects.all().delete()
    upload(as_anna, "b.txt", b"b", django_capture_on_commit_callbacks)
    assert {e.audience for e in MutationEvent.objects.all()} == {"all"}


def test_orphan_files_of_rolled_back_uploads_are_swept(
    as_anna, media_root, django_capture_on_commit_callbacks
):
    import time

    from django.db import transaction

    kept = upload(as_anna, "bleibt.txt", b"bleibt", django_capture_on_commit_callbacks)
    with pytest.raises(RuntimeError), transaction.atomic():  # e.g. a tool's transaction that failed later
        services.upload_document(
            as_anna, build(DocumentUpload), content=SimpleUploadedFile("weg.txt", b"weg"), filename="weg.txt"
        )
        raise RuntimeError
    files = [p for p in media_root.rglob("*") if p.is_file()]
    assert len(files) == 2
    assert storage.sweep_orphan_files() == 0  # too young: could be an upload in flight
    old = time.time() - 2 * 24 * 3600
    for path in files:
        os.utime(path, (old, old))
    assert storage.sweep_orphan_files() == 1
    assert [p for p in media_root.rglob("*") if p.is_file()] == [media_root / kept.file.name]


def test_an_invisible_client_cannot_be_linked(
    as_anna, media_root, hidden_client, django_capture_on_commit_callbacks
):
    with pytest.raises(ClientNotFound):
        services.upload_document(
            as_anna,
            build(DocumentUpload, client_ids=[hidden_client.pk]),
            content=SimpleUploadedFile("a.txt", b"a"),
            filename="a.txt",
        )
    assert not Document.objects.exists()
    doc = upload(as_anna, "b.txt", b"b", django_capture_on_commit_callbacks)
    with pytest.raises(ClientNotFound):
        services.update_document(as_anna, doc.pk, build(DocumentUpdate, client_ids=[hidden_client.pk]))
    assert not Document.objects.get(pk=doc.pk).clients.exists()
