"""`document_scope_q` (the visibility of `document_filter` as one statement, for the start page's
prepared query) sees exactly the documents `visible_documents` sees, for every person and action:
the root, shared folders, one's own personal folders, the subtrees of personal folders granted
to one (directly or through a group), single granted documents; never others' personal ones."""

import pytest
from django.contrib.auth.models import Group

from apps.accounts.principal import Principal
from apps.documents import folders, grants
from apps.documents.models import Document, Folder
from apps.documents.visibility import document_scope_q, visible_documents
from tests.documents.factories import DocumentFactory, FolderFactory
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_one_statement_scope_is_document_filters(anna, ben, as_anna, as_ben):
    carl = UserFactory(full_name="Carl Neu")
    as_carl = Principal.for_user(carl)
    shared = FolderFactory(name="Mandate")
    anna_home = folders.ensure_home_folder(as_anna)
    anna_sub = FolderFactory(name="Lohn", kind=Folder.Kind.PERSONAL, owner=anna, parent=anna_home)
    ben_home = folders.ensure_home_folder(as_ben)
    carl_home = folders.ensure_home_folder(as_carl)
    documents = [
        DocumentFactory(title="Wurzel"),
        DocumentFactory(title="Geteilt", folder=shared),
        DocumentFactory(title="Anna privat", folder=anna_home),
        DocumentFactory(title="Anna Lohn", folder=anna_sub),
        DocumentFactory(title="Ben privat", folder=ben_home),
        carl_doc := DocumentFactory(title="Carl privat", folder=carl_home),
        DocumentFactory(title="Carl geheim", folder=carl_home),
    ]
    grants.grant_folder(as_anna, anna_home.pk, f"user:{ben.pk}")  # Ben sees Anna's whole tree
    group = Group.objects.create(name="Sekretariat")
    anna.groups.add(group)
    grants.grant_document(as_carl, carl_doc.pk, f"group:{group.pk}", "edit")  # one document, to a group

    seen = {}
    for person in (anna, ben, carl):
        principal = Principal.for_user(person)
        for action in ("view", "change", "delete"):
            expected = set(visible_documents(principal, action).values_list("title", flat=True))
            got = set(
                Document.objects.filter(document_scope_q(person.pk, action)).values_list("title", flat=True)
            )
            assert got == expected, (person.full_name, action)
            seen[person.full_name, action] = got
    assert len(documents) == 7
    assert "Anna Lohn" in seen[ben.full_name, "view"] and "Anna Lohn" not in seen[ben.full_name, "change"]
    assert (
        "Carl privat" in seen[anna.full_name, "change"] and "Carl geheim" not in seen[anna.full_name, "view"]
    )
    assert seen[carl.full_name, "view"] == {"Wurzel", "Geteilt", "Carl privat", "Carl geheim"}
