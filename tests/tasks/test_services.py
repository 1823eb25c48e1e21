"""Visibility, audiences and the write rules of the Aufgaben services."""

import datetime as dt

import pytest

from apps.accounts.principal import Principal
from apps.core.errors import Forbidden, InvalidInput, VersionConflict
from apps.core.inputs import build
from apps.core.origin import Origin
from apps.mutations.models import MutationEvent
from apps.tasks import services
from apps.tasks.contracts import (
    BoardCreate,
    BoardCreateWithSharing,
    CommentCreate,
    FiledTask,
    StatusSave,
    TaskCreate,
    TaskMove,
    TaskUpdate,
)
from apps.tasks.errors import BoardNotFound, TaskNotFound
from apps.tasks.models import Board, Comment, Task
from apps.tasks.visibility import share_board
from tests.factories import ServicePrincipalFactory, UserFactory

pytestmark = pytest.mark.django_db


def events():
    return list(MutationEvent.objects.order_by("id"))


def test_shared_task_creation_is_one_all_users_event(
    as_anna, anna, shared_board, statuses, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        task = services.create_task(
            as_anna,
            build(TaskCreate, title="USt-Voranmeldung", board_id=shared_board.pk, due_date="2026-12-10"),
        )
    assert task.erstellt_von == anna and task.status == statuses["offen"] and task.source_type == "manual"
    (event,) = events()
    assert (event.audience, event.user_id, event.topic) == ("all", None, "aufgaben.task.updated")
    upsert = event.ui_actions[0]
    assert upsert["type"] == "upsert" and upsert["announce_key"] == "aufgaben.task.created"
    assert upsert["record"]["due_date"] == "2026-12-10"


def test_private_board_is_invisible_to_others_and_events_reach_only_the_owner(
    as_anna, as_ben, anna, private_board, statuses
):
    task = services.create_task(as_anna, build(TaskCreate, title="Privat", board_id=private_board.pk))
    (event,) = events()
    assert (event.audience, event.user_id) == ("user", anna.pk)
    with pytest.raises(TaskNotFound):
        services.get_task(as_ben, task.pk)
    with pytest.raises(BoardNotFound):
        services.create_task(as_ben, build(TaskCreate, title="x", board_id=private_board.pk))
    assert services.list_tasks(as_ben)[1] == 0


def test_service_principals_see_shared_boards_only(as_robot, as_anna, shared_board, private_board, statuses):
    services.create_task(as_anna, build(TaskCreate, title="geteilt", board_id=shared_board.pk))
    services.create_task(as_anna, build(TaskCreate, title="privat", board_id=private_board.pk))
    tasks, total = services.list_tasks(as_robot)
    assert [t.title for t in tasks] == ["geteilt"] and total == 1
    assert [b.name for b in services.list_boards(as_robot)] == ["Steuern"]
    task = services.create_task(as_robot, build(TaskCreate, title="vom Briefing"))
    assert task.board == shared_board and task.erstellt_von is None and task.created_by_service is not None


def test_team_room_never_borrows_the_members_private_board(anna, private_board, shared_board, statuses):
    room = ServicePrincipalFactory(kind="team_room", name="Team-Raum")
    principal = Principal.for_service(room, acting_user=anna)
    with pytest.raises(BoardNotFound):
        services.create_task(principal, build(TaskCreate, title="x", board_id=private_board.pk))
    task = services.create_task(principal, build(TaskCreate, title="Aus dem Team-Chat"))
    assert task.erstellt_von == anna  # audit actor is the member who spoke
    assert task.source_type == "team_chat" and task.source_id.startswith(f"team_chat:{room.pk}:")
    second = services.create_task(principal, build(TaskCreate, title="Noch eine"))
    assert second.source_id != task.source_id


def test_team_chat_source_id_is_unique(as_anna, shared_board, statuses):
    services.create_task(
        as_anna, build(FiledTask, title="a", source_type="team_chat", source_id="room-1:msg-7")
    )
    with pytest.raises(InvalidInput):
        services.create_task(
            as_anna, build(FiledTask, title="b", source_type="team_chat", source_id="room-1:msg-7")
        )
    with pytest.raises(InvalidInput):
        services.create_task(as_anna, build(FiledTask, title="c", source_type="team_chat"))
    assert Task.objects.count() == 1


def test_restricted_board_is_visible_to_the_people_it_is_shared_with(anna, ben, as_anna, as_ben, statuses):
    carla = UserFactory()
    board = services.create_board(
        as_anna,
        build(BoardCreateWithSharing, name="Mandat Meier", visibility="restricted", share_with=[ben.pk]),
    )
    task = services.create_task(as_anna, build(TaskCreate, title="Akte prüfen", board_id=board.pk))
    assert services.get_task(as_ben, task.pk) == task
    with pytest.raises(TaskNotFound):
        services.get_task(Principal.for_user(carla), task.pk)
    audience = {e.user_id for e in events() if e.topic == "aufgaben.task.updated"}
    assert audience == {anna.pk, ben.pk}
    share_board(board, [])
    with pytest.raises(TaskNotFound):
        services.get_task(as_ben, task.pk)


def test_moving_shared_to_private_sends_former_viewers_only_a_removal(
    as_anna, anna, shared_board, private_board, statuses
):
    task = services.create_task(as_anna, build(TaskCreate, title="wird privat", board_id=shared_board.pk))
    MutationEvent.objects.all().delete()
    services.update_task(as_anna, task.pk, build(TaskUpdate, board_id=private_board.pk))
    removal, update = events()
    assert (removal.audience, removal.user_id) == ("all_except", anna.pk)
    assert [a["type"] for a in removal.ui_actions] == ["remove"]
    assert "record" not in removal.ui_actions[0]  # private data never broadcast
    assert (update.audience, update.user_id) == ("user", anna.pk)
    assert update.ui_actions[0]["record"]["board"]["id"] == private_board.pk


def test_bad_input_writes_nothing_and_broadcasts_nothing(as_anna, shared_board, statuses):
    cases = [
        {"title": "x" * 10_000},
        {"title": "   "},
        {"title": "ok", "due_date": "31.12.2026"},
        {"title": "ok", "priority": "sofort"},
        {"title": "ok", "status_id": 999_999},
        {"title": "ok", "board_id": 999_999},
        {"title": "ok", "assignee_id": 999_999},
    ]
    for fields in cases:
        with pytest.raises((InvalidInput, BoardNotFound, services.StatusNotFound)):
            services.create_task(
                as_anna, build(TaskCreate, board_id=fields.pop("board_id", shared_board.pk), **fields)
            )
    assert not Task.objects.exists() and not MutationEvent.objects.exists()


def test_partial_update_keeps_untouched_fields_and_detects_stale_versions(
    as_anna, as_ben, shared_board, statuses
):
    task = services.create_task(
        as_anna, build(TaskCreate, title="Titel", description="Beschreibung", priority="high")
    )
    services.update_task(as_ben, task.pk, build(TaskUpdate, title="Neuer Titel"))
    task.refresh_from_db()
    assert (task.title, task.description, task.priority, task.version) == (
        "Neuer Titel",
        "Beschreibung",
        "high",
        2,
    )
    with pytest.raises(VersionConflict) as conflict:
        services.update_task(as_anna, task.pk, build(TaskUpdate, description="x", expected_version=1))
    assert conflict.value.details["task"]["title"] == "Neuer Titel"
    with pytest.raises(InvalidInput):
        services.update_task(as_anna, task.pk, build(TaskUpdate, erstellt_von_id=1))


def test_agent_comments_are_stored_once(as_anna, make_task):
    task = make_task()
    body = build(CommentCreate, body="Erledigt: Bescheid geprüft.")
    first, created = services.add_comment(
        as_anna, task.pk, body, origin=Origin(surface="agent", via_tool=True)
    )
    again, created_again = services.add_comment(
        as_anna, task.pk, body, origin=Origin(surface="agent", via_tool=True)
    )
    assert created and not created_again and first == again
    services.add_comment(as_anna, task.pk, body, origin=Origin(surface="page"))
    services.add_comment(as_anna, task.pk, body, origin=Origin(surface="page"))
    assert Comment.objects.filter(author_type="agent").count() == 1
    assert Comment.objects.filter(author_type="user").count() == 2


def test_move_orders_within_the_column(as_anna, make_task, statuses):
    make_task("a", position=1), make_task("b", position=2)
    c = make_task("c", status="in_arbeit")
    services.move_task(as_anna, c.pk, build(TaskMove, status_id=statuses["offen"].pk, position=0))
    titles = list(
        Task.objects.filter(status=statuses["offen"]).order_by("position").values_list("title", flat=True)
    )
    assert titles == ["c", "a", "b"]


def test_wiedervorlage_resurfaces_on_its_date_and_only_while_it_exists(as_anna, make_task, statuses):
    task = make_task("Wiedervorlage Weber")
    services.move_task(as_anna, task.pk, build(TaskMove, status_id=statuses["wiedervorlage"].pk))
    task.refresh_from_db()
    assert task.follow_up_date is not None  # defaulted
    assert services.resurface_follow_ups(task.follow_up_date - dt.timedelta(days=1)) == 0
    assert services.resurface_follow_ups(task.follow_up_date) == 1
    task.refresh_from_db()
    assert task.status == statuses["offen"]
    assert task.comments.filter(author_type="system").exists()
    statuses["wiedervorlage"].delete()
    assert services.resurface_follow_ups() == 0


def test_statuses_are_admin_only_and_reload_everyone(as_anna, statuses):
    with pytest.raises(Forbidden):
        services.save_status(as_anna, build(StatusSave, key="neu", name="Neu", category="open"))
    admin = Principal.for_user(UserFactory(role="admin"))
    services.save_status(admin, build(StatusSave, key="neu", name="Neu", category="open", sort_order=9))
    (event,) = events()
    assert event.audience == "all" and event.refresh_topic == "aufgaben.boards" and event.trigger_reload


def test_shared_board_creation_reloads_everyone_private_only_the_owner(as_anna, anna):
    services.create_board(as_anna, build(BoardCreate, name="Team"))
    services.create_board(as_anna, build(BoardCreate, name="Meins", visibility=Board.Visibility.PRIVATE))
    shared, private = events()
    assert shared.audience == "all" and (private.audience, private.user_id) == ("user", anna.pk)
