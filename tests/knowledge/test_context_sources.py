"""Wiki pages and Notizen through context_search / context_get: found next to documents, private
notes never reach another user, personal scope leaves the office wiki out."""

import pytest

from apps.accounts.principal import Principal
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from tests.factories import UserFactory
from tests.notes.factories import NoteFactory, NotePageFactory
from tests.wiki.factories import WikiPageFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def office(db):
    anna, ben = UserFactory(), UserFactory()
    wiki = WikiPageFactory(
        title="Fristenkontrolle", slug="fristenkontrolle", body="Jede Frist wird doppelt notiert."
    )
    shared = NotePageFactory(
        note=NoteFactory(name="Teamrunde", visibility="shared", owner=anna),
        title="Protokoll",
        text="Fristenbuch prüfen, Frist Meier GmbH notiert.",
    )
    private = NotePageFactory(
        note=NoteFactory(name="Annas Notiz", visibility="private", owner=anna),
        title="Privat",
        text="Frist für meine Steuererklärung notiert.",
    )
    return anna, ben, wiki, shared, private


def ctx(user):
    return ToolContext(principal=Principal.for_user(user))


def test_wiki_and_notes_are_searched_and_read(office):
    anna, _ben, wiki, shared, private = office
    found = dispatch("context_search", {"query": "Frist notiert", "sources": ["wiki", "note"]}, ctx(anna))
    assert found.ok, found.message
    ids = {hit["id"] for hit in found.output["results"]}
    assert ids == {f"wiki:{wiki.pk}", f"note:{shared.pk}", f"note:{private.pk}"}
    page = dispatch("context_get", {"id": f"wiki:{wiki.pk}"}, ctx(anna))
    assert page.ok and page.output["text"] == "Jede Frist wird doppelt notiert."
    note = dispatch("context_get", {"id": f"note:{private.pk}"}, ctx(anna))
    assert note.ok and note.output["note"]["name"] == "Annas Notiz"


def test_another_users_private_note_is_never_found_or_read(office):
    _anna, ben, _wiki, shared, private = office
    found = dispatch("context_search", {"query": "Frist notiert", "sources": ["note"]}, ctx(ben))
    assert [hit["id"] for hit in found.output["results"]] == [f"note:{shared.pk}"]
    stolen = dispatch("context_get", {"id": f"note:{private.pk}"}, ctx(ben))
    assert not stolen.ok and stolen.code == "knowledge_not_found"
    assert "Steuererklärung" not in str(stolen.message)


def test_personal_scope_leaves_the_wiki_out(office):
    anna, _ben, _wiki, _shared, private = office
    found = dispatch(
        "context_search", {"query": "Frist", "sources": ["wiki", "note"], "scope": "personal"}, ctx(anna)
    )
    assert [hit["id"] for hit in found.output["results"]] == [f"note:{private.pk}"]
