"""Folders and notes build exactly the records the old hand-written builders did (kept here as the
reference, byte for byte): with and without the list counts, a case, a service creator, an owner."""

import json

import pytest
from django.urls import reverse

from apps.accounts.contracts import person_ref
from apps.accounts.principal import Principal
from apps.clients.models import Case
from apps.clients.records import case_ref
from apps.core.inputs import build
from apps.core.records import attrs, stamps
from apps.notes import contracts as c
from apps.notes import services
from tests.factories import ServicePrincipalFactory

pytestmark = pytest.mark.django_db


# --- the builders of apps/notes/records.py before the conversion --------------------------------
def folder_record(folder) -> dict:
    record = {
        "id": folder.pk,
        **attrs(folder, "name", "parent_id", "visibility", "owner_id", "sort_order"),
        **stamps(folder),
    }
    if hasattr(folder, "note_count"):
        record["note_count"] = folder.note_count
    return record


def note_record(note) -> dict:
    record = {
        "id": note.pk,
        **attrs(note, "name", "folder_id"),
        "folder_name": note.folder.name if note.folder_id else None,
        "visibility": note.visibility,
        "owner": person_ref(note.owner),
        "created_by_service": note.created_by_service.name if note.created_by_service_id else None,
        "case_id": note.case_id,
        "case": case_ref(note.case) if note.case_id else None,
        **stamps(note),
        "url": reverse("notes:note", args=[note.pk]),
    }
    if hasattr(note, "page_count"):
        record["page_count"] = note.page_count
    return record


def same(new: dict, old: dict) -> None:
    assert json.dumps(new, ensure_ascii=False) == json.dumps(old, ensure_ascii=False)


def test_folders_with_and_without_counts(as_anna):
    top = services.create_folder(as_anna, build(c.NoteFolderCreate, name="Mandanten"))
    services.create_folder(as_anna, build(c.NoteFolderCreate, name="Privat", visibility="private"))
    services.create_folder(as_anna, build(c.NoteFolderCreate, name="Vogel", parent_id=top.pk))
    same(c.NoteFolderOut.record(top), folder_record(top))
    listed = services.list_folders(as_anna)
    assert len(listed) == 3
    for folder in listed:
        same(c.NoteFolderOut.record(folder), folder_record(folder))


def test_notes_in_every_shape(as_anna, anna, meier):
    folder = services.create_folder(as_anna, build(c.NoteFolderCreate, name="Kanzlei"))
    robot = Principal.for_service(ServicePrincipalFactory(name="Briefing"))
    akte = Case.objects.create(client=meier, reference="2026-0042", subject="Einspruch")
    made = [
        services.create_note(as_anna, build(c.NoteCreate, name="Privat"))[0],
        services.create_note(as_anna, build(c.NoteCreate, name="Im Ordner", folder_id=folder.pk))[0],
        services.create_note(robot, build(c.NoteCreate, name="Vom Dienst"))[0],
        services.create_note(as_anna, build(c.NoteCreate, name="Zur Akte", visibility="shared"))[0],
    ]
    made[3] = services.update_note(as_anna, made[3].pk, build(c.NoteUpdate, case_id=akte.pk))
    for note in made:
        same(c.NoteOut.record(note), note_record(note))
        fresh = services.get_note(as_anna, note.pk)
        same(c.NoteOut.record(fresh), note_record(fresh))
    listed, total = services.list_notes(as_anna, c.NoteFilter())
    assert total == 4
    for note in listed:
        same(c.NoteOut.record(note), note_record(note))
