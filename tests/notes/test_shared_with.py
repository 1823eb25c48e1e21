"""A private note says whom it is shared with ("Geteilt mit …") instead of "Privat", on the
editor, the note list and the case page, in a fixed number of queries."""

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.template.loader import render_to_string
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from apps.notes import sharing
from apps.notes.models import Note

pytestmark = pytest.mark.django_db


def test_editor_names_the_people_and_groups(web, as_anna, ben, private_note):
    url = reverse("notes:note", args=[private_note.pk])
    assert "🔒 Privat" in web.get(url).content.decode()
    group = Group.objects.create(name="Sekretariat")
    sharing.grant_note(as_anna, private_note.pk, f"user:{ben.pk}")
    sharing.grant_note(as_anna, private_note.pk, f"group:{group.pk}")
    body = web.get(url).content.decode()
    assert "Geteilt mit Ben Braun, Sekretariat" in body and "🔒 Privat" not in body
    sharing.mark_shared_with([private_note])
    with translation.override("it"):
        italian = render_to_string("notes/_visibility.html", {"note": private_note})
    assert "Condiviso con Ben Braun, Sekretariat" in italian


def test_a_folder_share_counts_for_its_notes(web, as_anna, ben, private_folder, make_note):
    note = make_note("Im Ordner", visibility="private", owner=private_folder.owner, folder=private_folder)
    sharing.grant_folder(as_anna, private_folder.pk, f"user:{ben.pk}")
    body = web.get(reverse("notes:note", args=[note.pk])).content.decode()
    assert "Geteilt mit Ben Braun" in body


def test_office_notes_and_unshared_ones_cost_no_query(make_note, anna, django_assert_num_queries):
    notes = [make_note("Büro"), make_note("Meins", visibility="private", owner=anna)]
    notes = list(Note.objects.filter(pk=notes[0].pk))
    with django_assert_num_queries(0):
        sharing.mark_shared_with(notes)
    assert notes[0].shared_with == []


def test_list_shows_shares_in_constant_queries(web, as_anna, anna, make_note):
    from tests.factories import UserFactory

    def queries() -> int:
        with CaptureQueriesContext(connection) as ctx:
            body = web.get(reverse("notes:index")).content.decode()
        assert "Geteilt mit" in body
        return len(ctx.captured_queries)

    first = make_note("Geteilt 0", visibility="private", owner=anna)
    sharing.grant_note(as_anna, first.pk, f"user:{UserFactory(full_name='Carla Conti').pk}")
    queries()  # the first request warms the process caches (content types, session)
    few = queries()
    for i in range(1, 6):
        note = make_note(f"Geteilt {i}", visibility="private", owner=anna)
        sharing.grant_note(as_anna, note.pk, f"user:{UserFactory().pk}")
    assert queries() == few
