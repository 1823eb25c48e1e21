"""Being named: the Zuständig / Vertretung of a Frist and the assignee of a task get one
notification each, never the actor, never twice, never about something they cannot see."""

import datetime as dt
from dataclasses import replace

import pytest

from apps.calendar.models import CalendarEvent
from apps.mutations.origin import operation
from apps.notifications.models import Notification
from apps.tasks.models import Board, Task
from apps.tools.dispatcher import dispatch
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
DUE = (dt.date.today() + dt.timedelta(days=40)).isoformat()


def call(ctx, name, **args):
    result = dispatch(name, args, replace(ctx, approved=True))
    assert result.ok, result
    return result.output


def notes(user):
    return list(Notification.objects.filter(user=user).values_list("kind", "title"))


@pytest.fixture
def carla(db):
    return UserFactory(email="carla@kanzlei.example", full_name="Carla Conrad")


def test_frist_responsible_and_deputy_hear_once_the_actor_never(anna_ctx, anna, ben, carla):
    out = call(
        anna_ctx,
        "calendar_create_event",
        title="Einspruch Meier",
        kind="deadline",
        start=DUE,
        responsible_id=ben.pk,
        deputy_id=anna.pk,
    )
    frist_id = out["event"]["id"]
    assert notes(ben) == [("deadline.responsible", "Sie sind zuständig für die Frist: Einspruch Meier")]
    assert notes(anna) == []  # her own action
    note = Notification.objects.get(user=ben)
    assert note.url == f"/kalender/{frist_id}/" and note.data["field"] == "responsible"

    # an edit that keeps the people tells nobody again; a new deputy hears of it
    call(anna_ctx, "calendar_update_event", event_id=frist_id, title="Einspruch Meier GmbH")
    call(anna_ctx, "calendar_update_event", event_id=frist_id, deputy_id=carla.pk)
    assert len(notes(ben)) == 1
    assert notes(carla) == [("deadline.deputy", "Sie sind Vertretung für die Frist: Einspruch Meier GmbH")]


def test_redelivered_save_does_not_notify_twice(anna, ben):
    with operation(anna.pk):
        event = CalendarEvent.objects.create(
            kind=CalendarEvent.Kind.DEADLINE,
            title="Klage",
            start=dt.datetime(2027, 1, 4, tzinfo=dt.UTC),
            end=dt.datetime(2027, 1, 4, 1, tzinfo=dt.UTC),
            responsible=ben,
        )
        again = CalendarEvent.objects.get(pk=event.pk)
        again.responsible = None
        again.responsible_id = ben.pk  # the same job once more: the person is unchanged
        again.save()
        # a stale copy that still thinks nobody was in charge: the key keeps it at one
        stale = CalendarEvent.objects.get(pk=event.pk)
        stale.__dict__["_notifications_people"] = {"responsible_id": None, "deputy_id": None}
        stale.save()
    assert len(notes(ben)) == 1


def test_private_frist_of_someone_else_is_no_leak(anna, ben):
    with operation(anna.pk):
        CalendarEvent.objects.create(
            kind=CalendarEvent.Kind.DEADLINE,
            title="Geheim",
            start=dt.datetime(2027, 1, 4, tzinfo=dt.UTC),
            end=dt.datetime(2027, 1, 4, 1, tzinfo=dt.UTC),
            responsible=ben,
            visibility=CalendarEvent.Visibility.PRIVATE,
            owner=anna,
        )
    assert notes(ben) == []


def test_appointments_and_rows_without_an_actor_notify_nobody(anna, ben):
    CalendarEvent.objects.create(  # outside any request/tool/job: fixtures, a shell
        kind=CalendarEvent.Kind.DEADLINE,
        title="Import",
        start=dt.datetime(2027, 1, 4, tzinfo=dt.UTC),
        end=dt.datetime(2027, 1, 4, 1, tzinfo=dt.UTC),
        responsible=ben,
    )
    assert notes(ben) == []


def test_task_assignee_hears_in_own_language_not_the_actor(anna_ctx, anna, ben, statuses):
    Board.objects.create(name="Steuern", visibility=Board.Visibility.SHARED)
    ben.language = "it"
    ben.save(update_fields=["language"])
    task = call(anna_ctx, "aufgaben_create_task", title="Belege anfordern", assignee_id=ben.pk)
    assert notes(ben) == [("task.assigned", "Ti è stato assegnato un compito: Belege anfordern")]
    mine = call(anna_ctx, "aufgaben_create_task", title="Selbst", assignee_id=anna.pk)
    assert notes(anna) == []
    call(anna_ctx, "aufgaben_update_task", task_id=mine["task"]["id"], assignee_id=ben.pk)
    assert len(notes(ben)) == 2
    assert Notification.objects.filter(user=ben, url=Task.objects.get(pk=task["task"]["id"]).url).exists()


def test_task_on_a_board_the_person_cannot_see_is_no_leak(anna, ben, statuses):
    board = Board.objects.create(name="Annas Board", visibility=Board.Visibility.PRIVATE, owner=anna)
    with operation(anna.pk):  # a stale write past the service's check: still nobody is told
        Task.objects.create(title="Privat", board=board, status=statuses["offen"], assignee=ben)
    assert notes(ben) == []
