"""@-mentions in task comments: "@Vorname Nachname" and "@email" notify who may see the task,
never the author, never someone outside a private board (no leak), and once per comment."""

import pytest

from apps.accounts.principal import Principal
from apps.core.inputs import build
from apps.mutations.origin import operation
from apps.notifications.mentions import mentioned
from apps.notifications.models import Notification
from apps.tasks import services as tasks
from apps.tasks.contracts import CommentCreate, TaskCreate
from apps.tasks.models import Board, Comment
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def notes(user):
    return list(Notification.objects.filter(user=user).values_list("kind", "title"))


def comment(user, task, body):
    with operation(user.pk):
        return tasks.add_comment(Principal.for_user(user), task.pk, build(CommentCreate, body=body))[0]


def test_parsing_finds_names_and_addresses():
    assert mentioned("Bitte @Ben Braun und @carla@kanzlei.example prüfen; mail@x.de nicht") == (
        {"carla@kanzlei.example"},
        {"ben braun"},
    )


def test_mentioned_colleagues_hear_once_the_author_never(anna, ben, statuses):
    carla = UserFactory(email="carla@kanzlei.example", full_name="Carla Conrad", language="it")
    Board.objects.create(name="Steuern", visibility=Board.Visibility.SHARED)
    with operation(anna.pk):
        task = tasks.create_task(Principal.for_user(anna), build(TaskCreate, title="Belege Meier"))
    posted = comment(anna, task, "@Ben Braun bitte mit @carla@kanzlei.example klären, cc @Anna Berger")
    assert notes(ben) == [("mention", "Anna Berger hat Sie erwähnt: Belege Meier")]
    assert notes(carla) == [("mention", "Anna Berger ti ha menzionato: Belege Meier")]
    assert notes(anna) == []
    note = Notification.objects.get(user=ben)
    assert note.url == task.url and "bitte mit" in note.body
    # the same comment saved again (a redelivered job) tells nobody twice
    with operation(anna.pk):
        again = Comment.objects.get(pk=posted.pk)
        again.body = again.body + " "
        again.save()
    assert len(notes(ben)) == 1 and len(notes(carla)) == 1


def test_mention_on_a_private_board_is_no_leak(anna, ben, statuses):
    board = Board.objects.create(name="Privat", visibility=Board.Visibility.PRIVATE, owner=anna)
    with operation(anna.pk):
        task = tasks.create_task(
            Principal.for_user(anna), build(TaskCreate, title="Geheim", board_id=board.pk)
        )
    comment(anna, task, "Frage an @Ben Braun")
    assert notes(ben) == []
