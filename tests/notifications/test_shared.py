"""Shared with me: the first right a person gets on a record notifies them once; the actor, a
repeated grant and a grant outside any operation tell nobody."""

import pytest

from apps.accounts.principal import Principal
from apps.mutations.origin import operation
from apps.notifications.models import Notification
from apps.tasks import sharing as board_sharing
from apps.tasks.models import Board

pytestmark = pytest.mark.django_db


def notes(user):
    return list(Notification.objects.filter(user=user).values_list("kind", "title"))


def test_a_shared_board_notifies_the_person_once(anna, ben):
    board = Board.objects.create(name="Mandat Meier", visibility=Board.Visibility.PRIVATE, owner=anna)
    with operation(anna.pk):
        board_sharing.grant_board(Principal.for_user(anna), board.pk, f"user:{ben.pk}")
        board_sharing.grant_board(Principal.for_user(anna), board.pk, f"user:{ben.pk}")  # again
    assert notes(ben) == [("shared", "Anna Berger hat mit Ihnen geteilt: Mandat Meier")]
    assert notes(anna) == []
    with operation(anna.pk):  # unshared and shared again: news again
        board_sharing.revoke_board(Principal.for_user(anna), board.pk, f"user:{ben.pk}")
        board_sharing.grant_board(Principal.for_user(anna), board.pk, f"user:{ben.pk}")
    assert len(notes(ben)) == 2


def test_no_actor_no_notification(anna, ben):
    board = Board.objects.create(name="Import", visibility=Board.Visibility.PRIVATE, owner=anna)
    board_sharing.grant_board(Principal.for_user(anna), board.pk, f"user:{ben.pk}")
    assert notes(ben) == []


def test_a_shared_note_notifies_with_its_link(anna, ben):
    from apps.notes import sharing as note_sharing
    from apps.notes.models import Note

    note = Note.objects.create(name="Gesprächsnotiz Meier", owner=anna, visibility="private")
    with operation(anna.pk):
        note_sharing.grant_note(Principal.for_user(anna), note.pk, f"user:{ben.pk}", "view")
    assert notes(ben) == [("shared", "Anna Berger hat mit Ihnen geteilt: Gesprächsnotiz Meier")]
    assert Notification.objects.get(user=ben).url == note.url
