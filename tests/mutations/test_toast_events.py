"""What a live notice needs from an event: who caused it (`actor_id`) and the one operation it
belongs to (`operation`), from a page request, a tool call and a background job alike."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory
from django.urls import reverse

from apps.accounts.principal import Principal
from apps.mutations import origin, services
from apps.mutations.contracts import MutationEventOut
from apps.mutations.models import MutationEvent
from apps.mutations.origin import OperationMiddleware, mutation_origin, operation
from apps.mutations.services import record_mutation
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch

pytestmark = pytest.mark.django_db


def test_events_of_one_request_share_its_operation_and_name_the_user(user, layer):
    recorded = []

    def view(request):
        recorded.append(record_mutation(audience="all", topic="documents.document.updated"))
        recorded.append(record_mutation(audience="user", user=user, topic="documents.folder.updated"))
        return None

    request = RequestFactory().post("/")
    request.user = user
    OperationMiddleware(view)(request)
    later = record_mutation(audience="all", topic="documents.document.updated")

    first, second = recorded
    assert first.operation and first.operation == second.operation  # an upload is one operation
    assert first.actor_id == second.actor_id == user.pk
    assert later.operation != first.operation and later.actor_id is None  # outside: its own


def test_anonymous_request_has_no_actor(layer):
    captured = []
    request = RequestFactory().get("/")
    request.user = AnonymousUser()
    OperationMiddleware(lambda r: captured.append(record_mutation(audience="all", topic="a.b")))(request)
    assert captured[0].actor_id is None and captured[0].operation


def test_a_real_page_save_names_its_author(web, anna, layer):
    from tests.notes.factories import NoteFactory, NotePageFactory

    note = NoteFactory(visibility="shared", owner=anna)
    page = NotePageFactory(note=note)
    before = services.head_id()
    response = web.post(
        reverse("notes:save-page", args=[page.pk]),
        data=json.dumps({"title": "T", "html": "<p>x</p>", "expected_version": page.version}),
        content_type="application/json",
    )
    assert response.status_code == 200
    events = list(MutationEvent.objects.filter(id__gt=before))
    assert events and {e.actor_id for e in events} == {anna.pk}
    assert len({e.operation for e in events}) == 1


def test_each_tool_call_is_its_own_operation_of_its_caller(anna, statuses, layer):
    from apps.tasks.models import Board

    Board.objects.create(name="Steuern")
    ctx = ToolContext(principal=Principal.for_user(anna))
    before = services.head_id()
    with operation(None):  # e.g. one agent run: its tool calls are still separate operations
        for title in ("Erste", "Zweite"):
            assert dispatch("aufgaben_create_task", {"title": title}, ctx).ok
    events = list(MutationEvent.objects.filter(id__gt=before).order_by("id"))
    assert len(events) >= 2
    assert {e.actor_id for e in events} == {anna.pk}
    assert len({e.operation for e in events}) == 2


def test_nested_tool_calls_join_the_outer_operation(user, layer):
    with mutation_origin(tool="tool_execute", actor_id=user.pk):
        outer = record_mutation(audience="all", topic="a.b")
        with mutation_origin(tool="aufgaben_create_task", actor_id=user.pk):
            inner = record_mutation(audience="all", topic="a.c")
    assert outer.operation == inner.operation


def test_a_job_belongs_to_the_operation_that_enqueued_it(user, layer):
    headers: dict = {}
    with operation(user.pk) as op:
        origin._on_publish(headers=headers)
    assert headers == {origin.OPERATION_HEADER: op.id, origin.ACTOR_HEADER: user.pk}

    task = SimpleNamespace(request=SimpleNamespace(**headers))
    origin._on_prerun(task_id="t1", task=task)
    try:
        event = record_mutation(audience="all", topic="documents.extraction.progress")
    finally:
        origin._on_postrun(task_id="t1")
    assert (event.operation, event.actor_id) == (op.id, user.pk)
    assert origin.current_operation() is None


def test_a_job_with_forged_headers_gets_a_fresh_operation_and_no_actor(layer):
    task = SimpleNamespace(request=SimpleNamespace(**{origin.OPERATION_HEADER: 5, origin.ACTOR_HEADER: "x"}))
    origin._on_prerun(task_id="t2", task=task)
    try:
        event = record_mutation(audience="all", topic="a.b")
    finally:
        origin._on_postrun(task_id="t2")
    assert event.actor_id is None and len(event.operation) == 32


def test_wire_shape_carries_actor_and_operation(user, layer):
    with operation(user.pk) as op:
        event = record_mutation(audience="all", topic="a.b")
    payload = services.serialize_event(event)
    assert (payload["actor_id"], payload["operation"]) == (user.pk, op.id)
    MutationEventOut.model_validate(payload)
    published = [m for _, m in layer.sent]  # published after commit (none in a test transaction)
    assert all(m["event"]["operation"] for m in published)
