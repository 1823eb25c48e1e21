import pytest

from tests.notes.factories import NoteFactory, NoteFolderFactory, NotePageFactory


@pytest.fixture
def shared_folder(db):
    return NoteFolderFactory(name="Mandanten")


@pytest.fixture
def private_folder(anna):
    return NoteFolderFactory(name="Persönlich", visibility="private", owner=anna)


@pytest.fixture
def make_note():
    def make(name="Notiz", *, pages=1, **fields):
        note = NoteFactory(name=name, **fields)
        for i in range(pages):
            NotePageFactory(note=note, ordinal=i, title=f"Seite {i + 1}")
        return note

    return make


@pytest.fixture
def private_note(anna, make_note):
    return make_note("Annas Geheimnis", visibility="private", owner=anna)
