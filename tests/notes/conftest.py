import pytest

from apps.accounts.principal import Principal
from apps.tools.context import ToolContext
from tests.factories import ServicePrincipalFactory, UserFactory
from tests.notes.factories import NoteFactory, NoteFolderFactory, NotePageFactory


@pytest.fixture
def anna(db):
    return UserFactory(email="anna@kanzlei.example", full_name="Anna Berger")


@pytest.fixture
def ben(db):
    return UserFactory(email="ben@kanzlei.example", full_name="Ben Braun")


@pytest.fixture
def as_anna(anna):
    return Principal.for_user(anna)


@pytest.fixture
def as_ben(ben):
    return Principal.for_user(ben)


@pytest.fixture
def as_robot(db):
    return Principal.for_service(ServicePrincipalFactory(name="Morgen-Briefing"))


@pytest.fixture
def anna_ctx(as_anna):
    return ToolContext(principal=as_anna)


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
