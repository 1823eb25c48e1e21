"""No folder may pass for someone's private "Persönlich" (issue 15, defect 10): the name is
reserved (case, spaces, punctuation and emoji ignored), no folder name carries a lock symbol,
private folders are marked by kind (the constraint and the lock the tree draws come from it)."""

from __future__ import annotations

import json

import pytest
from django.db import IntegrityError, transaction

from apps.core.errors import ReservedName
from apps.core.inputs import build
from apps.documents import folders
from apps.documents.contracts import FolderCreate, FolderUpdate
from apps.documents.models import Folder
from apps.notes.contracts import NoteFolderCreate, NoteFolderUpdate

pytestmark = pytest.mark.django_db

SPOOFS = [
    "🔒 Persönlich",
    "Persönlich",
    "  persönlich ",
    "PERSÖNLICH!",
    "Persoenlich",
    "🔒Persönlich🔒",
    "🔐 Akten",
]


@pytest.mark.parametrize("name", SPOOFS)
def test_a_folder_cannot_take_the_home_folders_name_or_a_lock(as_anna, name):
    with pytest.raises(ReservedName) as raised:
        folders.create_folder(as_anna, build(FolderCreate, name=name))
    assert raised.value.code == "reserved_name" and "name" in raised.value.field_errors
    assert not Folder.objects.filter(is_home=False).exists()


def test_renaming_into_the_reserved_name_is_refused_too(as_anna):
    folder = folders.create_folder(as_anna, build(FolderCreate, name="Akten"))
    home = folders.ensure_home_folder(as_anna)
    sub = folders.create_folder(as_anna, build(FolderCreate, name="Entwürfe", parent_id=home.pk))
    for target in (folder, sub):
        with pytest.raises(ReservedName):
            folders.update_folder(as_anna, target.pk, build(FolderUpdate, name="🔒 Persönlich"))
    assert Folder.objects.get(pk=folder.pk).name == "Akten"


def test_ordinary_names_are_fine(as_anna):
    for name in ("Persönliche Unterlagen", "Personal", "Privatentnahmen 2026", "Akten 🗂"):
        folders.create_folder(as_anna, build(FolderCreate, name=name))
    assert Folder.objects.filter(kind=Folder.Kind.SHARED).count() == 4


def test_the_rest_api_answers_reserved_name(client, anna):
    client.force_login(anna)
    response = client.post(
        "/api/v1/document-folders/", json.dumps({"name": "🔒 Persönlich"}), content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "reserved_name"


def test_the_tree_draws_the_lock_from_the_kind_only(client, anna, as_anna):
    folders.ensure_home_folder(as_anna)
    Folder.objects.create(name="Gemeinsam", kind=Folder.Kind.SHARED, tree_path="/")
    client.force_login(anna)
    page = client.get("/dokumente/").content.decode()
    assert page.count("🔒") == 1  # the home folder's, nothing else
    assert "🔒 Persönlich" in page and "🔒 Gemeinsam" not in page


def test_a_home_folder_is_personal_by_constraint(anna):
    with pytest.raises(IntegrityError), transaction.atomic():
        Folder.objects.create(name="Persönlich", kind=Folder.Kind.SHARED, is_home=True, tree_path="/")


def test_note_folders_cannot_carry_a_lock_either(as_anna):
    from apps.notes import services as notes

    with pytest.raises(ReservedName):
        notes.create_folder(as_anna, build(NoteFolderCreate, name="🔒 Privat", visibility="shared"))
    folder = notes.create_folder(as_anna, build(NoteFolderCreate, name="Ablage", visibility="shared"))
    with pytest.raises(ReservedName):
        notes.update_folder(as_anna, folder.pk, build(NoteFolderUpdate, name="🔐 Ablage"))
