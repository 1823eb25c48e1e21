"""record_mutation / visible_events / prune_events: audiences, transactions, origin, retention."""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from apps.core.realtime import layer as layer_module
from apps.mutations import actions, services
from apps.mutations.models import MutationEvent
from apps.mutations.origin import mutation_origin
from apps.mutations.services import record_mutation, visible_events

pytestmark = pytest.mark.django_db


def ids(user, after: int = 0, **kwargs) -> list[int]:
    return [event.id for event in visible_events(user, after, **kwargs)]


def test_private_event_is_visible_to_its_user_only(user, other_user, layer):
    mine = record_mutation(audience="user", user=user, topic="notizen.note.updated")
    theirs = record_mutation(audience="user", user=other_user, topic="notizen.note.updated")
    shared = record_mutation(audience="all", topic="aufgaben.task.updated")

    assert ids(user) == [mine.id, shared.id]
    assert ids(other_user) == [theirs.id, shared.id]


def test_all_except_excludes_exactly_that_user(user, other_user, third_user, layer):
    event = record_mutation(
        audience="all_except",
        user=user,
        topic="aufgaben.task.updated",
        ui_actions=[actions.remove("tasks", "7")],
    )

    assert ids(user) == []
    assert ids(other_user) == [event.id]
    assert ids(third_user) == [event.id]


def test_shared_change_is_one_row_however_many_users(user, other_user, third_user, layer):
    record_mutation(audience="all", topic="aufgaben.board.created", trigger_reload=True)

    assert MutationEvent.objects.count() == 1
    assert MutationEvent.objects.get().user is None


def test_cursor_returns_only_newer_events_in_order(user, layer):
    first, second, third = (record_mutation(audience="all", topic=f"t.n{i}") for i in range(3))

    assert ids(user, first.id) == [second.id, third.id]
    assert ids(user, third.id) == []
    assert ids(user, 0, limit=2) == [first.id, second.id]


def test_limit_is_capped():
    query = visible_events(type("U", (), {"pk": 1})(), 0, 10**6)
    assert query.query.high_mark - query.query.low_mark == services.MAX_LIMIT


@pytest.mark.parametrize(
    ("audience", "with_user"),
    [("all", True), ("user", False), ("all_except", False), ("everyone", False), ("", False)],
)
def test_wrong_audience_raises_and_writes_nothing(user, audience, with_user):
    with pytest.raises(ValueError):
        record_mutation(audience=audience, user=user if with_user else None, topic="aufgaben.task.updated")
    assert not MutationEvent.objects.exists()


def test_unsaved_user_is_refused(db):
    from apps.accounts.models import User

    with pytest.raises(ValueError):
        record_mutation(audience="user", user=User(email="x@kanzlei.example"), topic="a.b")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"topic": ""},
        {"topic": "Aufgaben Task"},
        {"topic": "a.b", "refresh_topic": "not a topic"},
        {"topic": "a.b", "ui_actions": {"type": "highlight"}},
        {"topic": "a.b", "ui_actions": ["highlight"]},
        {"topic": "a.b", "ui_actions": [{"record_id": "1"}]},
        {"topic": "a.b", "ui_actions": [{"type": "upsert", "record": {"due": timezone.now()}}]},
        {"topic": "a.b", "ui_actions": [{"type": "upsert", "record": {"text": "x" * 70_000}}]},
        {"topic": "a.b", "ui_actions": [actions.navigate("/aufgaben/")]},  # navigate for everybody
    ],
)
def test_bad_input_raises_and_writes_nothing(kwargs):
    with pytest.raises(ValueError):
        record_mutation(audience="all", **kwargs)
    assert not MutationEvent.objects.exists()


def test_navigate_builder_only_accepts_same_origin_paths():
    assert actions.navigate("/aufgaben/?id=3") == {"type": "navigate", "url": "/aufgaben/?id=3"}
    for url in ("https://evil.example/", "//evil.example/x", "javascript:alert(1)", "/\\evil.example"):
        with pytest.raises(ValueError):
            actions.navigate(url)


def test_publish_happens_only_after_commit(user, other_user, layer, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks, transaction.atomic():
        shared = record_mutation(
            audience="all", topic="aufgaben.task.updated", ui_actions=[actions.highlight("t1")]
        )
        private = record_mutation(audience="user", user=user, topic="notizen.note.updated")
        excluding = record_mutation(audience="all_except", user=other_user, topic="aufgaben.task.updated")
        assert layer.sent == []

    assert len(callbacks) == 3
    assert [group for group, _ in layer.sent] == [
        "mutations.all",
        f"mutations.user.{user.pk}",
        "mutations.all",
    ]
    shared_msg, private_msg, excluding_msg = (message for _, message in layer.sent)
    assert shared_msg["type"] == "mutation.event"
    assert shared_msg["event"] == services.serialize_event(shared)
    assert shared_msg["event"]["ui_actions"] == [{"type": "highlight", "record_id": "t1"}]
    assert "except_user" not in shared_msg
    assert private_msg["event"]["id"] == private.id and private_msg["user_id"] == user.pk
    assert excluding_msg["event"]["id"] == excluding.id and excluding_msg["except_user"] == other_user.pk


def test_rollback_writes_and_publishes_nothing(user, layer, django_capture_on_commit_callbacks):
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        record_mutation(audience="all", topic="aufgaben.task.updated")
        record_mutation(audience="user", user=user, topic="aufgaben.task.updated")
        raise RuntimeError("the surrounding service failed")

    assert callbacks == []
    assert layer.sent == []
    assert not MutationEvent.objects.exists()


def test_publish_failure_is_logged_not_raised(monkeypatch, caplog, django_capture_on_commit_callbacks):
    class BrokenLayer:
        async def group_send(self, group, message):
            raise ConnectionError("layer down")

    monkeypatch.setattr(layer_module, "get_channel_layer", lambda: BrokenLayer())
    with django_capture_on_commit_callbacks(execute=True):
        event = record_mutation(audience="all", topic="a.b")

    assert MutationEvent.objects.filter(pk=event.pk).exists()
    assert layer_module.sender.drain()
    assert "failed" in caplog.text


def test_origin_is_stamped_and_collected(user, layer):
    run_id = uuid.uuid4()
    with mutation_origin(tool="aufgaben_update_task", run_id=run_id) as origin:
        first = record_mutation(audience="all", topic="aufgaben.task.updated")
        second = record_mutation(audience="user", user=user, topic="aufgaben.task.updated")
    outside = record_mutation(audience="all", topic="aufgaben.task.updated")

    assert origin.collected == [first, second]
    first.refresh_from_db()
    assert (first.origin_tool, first.origin_run) == ("aufgaben_update_task", str(run_id))
    assert services.serialize_event(first)["origin_run"] == str(run_id)
    assert (outside.origin_tool, outside.origin_run) == ("", "")


def test_serialized_shape(layer):
    event = record_mutation(audience="all", topic="a.b", refresh_topic="aufgaben", trigger_reload=True)
    data = services.serialize_event(event)
    assert set(data) == {
        "id",
        "topic",
        "ui_actions",
        "trigger_reload",
        "refresh_topic",
        "origin_tool",
        "origin_run",
        "actor_id",
        "operation",
        "created_at",
    }
    assert data["created_at"] == event.created_at.isoformat()
    assert (data["trigger_reload"], data["refresh_topic"], data["ui_actions"]) == (True, "aufgaben", [])


def test_prune_deletes_only_expired_events(layer):
    old = record_mutation(audience="all", topic="a.old")
    new = record_mutation(audience="all", topic="a.new")
    MutationEvent.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=8))

    assert services.prune_events(timedelta(days=7)) == 1
    assert list(MutationEvent.objects.values_list("id", flat=True)) == [new.id]


def test_prune_works_in_batches(layer, monkeypatch):
    monkeypatch.setattr(services, "PRUNE_BATCH", 2)
    for i in range(5):
        record_mutation(audience="all", topic=f"a.n{i}")
    assert services.prune_events(timezone.now() + timedelta(seconds=1)) == 5
    assert not MutationEvent.objects.exists()


def test_head_id(layer):
    assert services.head_id() >= 0
    event = record_mutation(audience="all", topic="a.b")
    assert services.head_id() == event.id


@pytest.mark.django_db(transaction=True)
def test_cursor_waits_for_an_older_transaction_still_open(user, layer, monkeypatch):
    """Id 10 committing after id 11 must not be skipped by a reader that already saw 11."""
    inserted, release = threading.Event(), threading.Event()

    def slow_service() -> None:
        try:
            with transaction.atomic():
                record_mutation(audience="all", topic="a.slow")
                inserted.set()
                release.wait(10)
        finally:
            connection.close()

    worker = threading.Thread(target=slow_service)
    worker.start()
    try:
        assert inserted.wait(10)
        fast = record_mutation(audience="all", topic="a.fast")  # autocommit: visible at once

        assert ids(user, settled=False) == [fast.id]  # what a naive cursor would return
        assert ids(user) == []  # the settled cursor waits for the older transaction

        monkeypatch.setattr(services, "SETTLE_SECONDS", 0)
        assert ids(user) == [fast.id]  # ... but not forever
        monkeypatch.undo()
        monkeypatch.setattr(layer_module, "get_channel_layer", lambda: layer)
    finally:
        release.set()
        worker.join(10)

    slow = MutationEvent.objects.get(topic="a.slow")
    assert slow.id < fast.id
    assert ids(user) == [slow.id, fast.id]
