"""The output models build the wire records themselves (`RowOutput.record`): byte for byte the
shape the hand-written `records.py` builders sent to tools, pages and live events, and what the
REST API answered. The builders below are those of `apps/tasks/records.py` before it went, kept
as the reference."""

import json

import pytest

from apps.accounts.principal import Principal
from apps.clients.models import Case
from apps.clients.records import case_ref, client_ref
from apps.core.records import attrs, iso, stamps
from apps.core.surfaces.api import dump
from apps.tasks import contracts as c
from apps.tasks.models import Comment, Task
from apps.tasks.services import get_task
from tests.factories import ClientFactory, ServicePrincipalFactory, UserFactory

pytestmark = pytest.mark.django_db


def _person(user):
    return {"id": user.pk, "name": user.get_full_name(), "email": user.email} if user else None


def status_record(status):
    return {"id": status.pk, **attrs(status, "key", "name", "category", "sort_order", "is_done")}


def board_record(board):
    return {"id": board.pk, **attrs(board, "name", "visibility", "owner_id", "sort_order")}


def task_record(task):
    return {
        "id": task.pk,
        **attrs(task, "title", "description"),
        "board": {"id": task.board_id, "name": task.board.name, "visibility": task.board.visibility},
        "status": status_record(task.status),
        "assignee": _person(task.assignee),
        "priority": task.priority,
        "due_date": iso(task.due_date),
        "follow_up_date": iso(task.follow_up_date),
        "client_id": task.client_id,
        "client": client_ref(task.client),
        "case_id": task.case_id,
        "case": case_ref(task.case) if task.case_id else None,
        "position": task.position,
        "erstellt_von": _person(task.erstellt_von),
        "created_by_service": task.created_by_service.name if task.created_by_service else None,
        **attrs(task, "source_type", "source_id", "source_label", "source_url", "source_context_snapshot"),
        **stamps(task),
        "url": f"/aufgaben/{task.pk}/",
    }


def comment_record(comment):
    return {
        "id": comment.pk,
        **attrs(comment, "task_id", "author_type", "author_name", "body"),
        "created_at": comment.created_at.isoformat(),
    }


def same_bytes(a, b):
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


@pytest.fixture
def rows(anna, statuses, shared_board, private_board):
    client = ClientFactory(name="Meier GmbH", client_number="10003")
    case = Case.objects.create(client=client, reference="2026/17", subject="Einspruch 2023")
    service = ServicePrincipalFactory(name="Morgen-Briefing")
    plain = Task.objects.create(title="schlicht", board=shared_board, status=statuses["offen"])
    full = Task.objects.create(
        title="Einspruch „prüfen“",
        description="Bescheid\nvom 3. März",
        board=private_board,
        status=statuses["wiedervorlage"],
        assignee=UserFactory(full_name="Ben Braun"),
        priority="urgent",
        due_date="2026-12-10",
        follow_up_date="2026-12-01",
        client=client,
        case=case,
        position=7,
        erstellt_von=anna,
        created_by_service=service,
        source_type="document",
        source_id="42",
        source_label="Bescheid 2023",
        source_url="/dokumente/42/",
        source_context_snapshot={"document_id": 42, "workflow": True, "nested": {"a": [1, 2.5, None]}},
    )
    comment = Comment.objects.create(
        task=full, author_type="agent", author_name="Clapilot", body="ok", body_hash="x"
    )
    return [get_task(Principal.for_user(anna), t.pk) for t in (plain, full)], comment


def test_task_records_are_byte_for_byte_the_builders(rows):
    tasks, _comment = rows
    for task in tasks:
        assert task.url == f"/aufgaben/{task.pk}/"
        assert same_bytes(c.TaskOut.record(task), task_record(task))
        assert same_bytes(c.BoardOut.record(task.board), board_record(task.board))
        assert same_bytes(c.StatusOut.record(task.status), status_record(task.status))


def test_comment_records_are_byte_for_byte_the_builder(rows):
    _tasks, comment = rows
    assert same_bytes(c.CommentOut.record(comment), comment_record(comment))


def test_rest_answers_alike_from_the_model_and_from_the_old_record(rows):
    tasks, comment = rows
    for task in tasks:
        assert same_bytes(
            dump(c.TaskResult, {"task": c.TaskOut.of(task)}), dump(c.TaskResult, {"task": task_record(task)})
        )
    assert same_bytes(
        dump(c.CommentResult, {"comment": c.CommentOut.of(comment), "created": True}),
        dump(c.CommentResult, {"comment": comment_record(comment), "created": True}),
    )
