"""The UI-mutation contract of a tool result (seed 000): `mutation_event_id` names the event the
write produced, also through the `tool_execute` meta-tool, and the direct result never repeats a
UI action that the all-user fan-out delivers (each action reaches a client exactly once)."""

from __future__ import annotations

import json
import time
import urllib.request

import pytest
from rest_framework.test import APIClient

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from apps.mutations.models import MutationEvent
from apps.tasks.models import Board
from apps.tools.context import ToolContext
from apps.tools.dispatcher import dispatch
from tests.e2e.conftest import server  # noqa: F401 - daphne on the test database
from tests.factories import UserFactory

URL = "/api/v1/tools/execute"


@pytest.fixture
def creator(db):
    return UserFactory(role="admin", is_superuser=True, email="chef@kanzlei.example")


@pytest.fixture
def shared_board(db):
    return Board.objects.create(name="Steuern", visibility=Board.Visibility.SHARED)


@pytest.fixture
def private_board(creator):
    return Board.objects.create(name="Meins", visibility=Board.Visibility.PRIVATE, owner=creator)


def api_key(user) -> str:
    _, plaintext = keys.create_api_key(Principal.for_user(user), name="cli", scopes=["tools:execute"])
    return plaintext


def post(client, tool, arguments):
    return client.post(
        URL, data=json.dumps({"tool": tool, "arguments": arguments}), content_type="application/json"
    )


def via_tool_execute(tool: str, arguments: dict) -> tuple[str, dict]:
    return "tool_execute", {"tool": tool, "arguments": json.dumps(arguments)}


# --- 1. mutation_event_id through tool_execute ------------------------------------------------
@pytest.mark.django_db
@pytest.mark.parametrize("meta", [False, True], ids=["direct", "tool_execute"])
def test_rest_write_returns_the_id_of_the_event_it_produced(creator, shared_board, statuses, meta):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key(creator)}")
    call = ("aufgaben_create_task", {"title": "Bescheid prüfen", "board_id": shared_board.pk})
    response = post(client, *(via_tool_execute(*call) if meta else call))

    assert response.status_code == 200, response.content
    data = response.json()
    event = MutationEvent.objects.get(topic="aufgaben.task.updated")
    assert data["mutation_event_id"] == event.id
    assert event.origin_tool == "aufgaben_create_task"  # the tool that wrote, not the meta-tool
    assert event.ui_actions[0]["record_id"] == str(data["output"]["task"]["id"])


@pytest.mark.django_db
def test_tool_execute_answers_exactly_like_the_direct_call(creator, private_board, statuses):
    ctx = ToolContext(principal=Principal.for_user(creator))
    args = {"title": "Privat", "board_id": private_board.pk}
    direct = dispatch("aufgaben_create_task", args, ctx).as_dict()
    meta = dispatch(*via_tool_execute("aufgaben_create_task", args), ctx).as_dict()

    first, second = MutationEvent.objects.order_by("id")
    assert (direct["mutation_event_id"], meta["mutation_event_id"]) == (first.id, second.id)
    for result, event in ((direct, first), (meta, second)):
        assert result["ui_actions"] == event.ui_actions  # the owner's private event: in the result
        assert (result["trigger_reload"], result["refresh_topic"]) == (
            event.trigger_reload,
            event.refresh_topic,
        )
    assert {k for k in direct if direct[k] != meta[k]} == {"output", "ui_actions", "mutation_event_id"}
    assert [a["type"] for a in meta["ui_actions"]] == [a["type"] for a in direct["ui_actions"]] != []


@pytest.mark.django_db
def test_a_failed_write_through_tool_execute_names_no_event(creator, statuses):
    ctx = ToolContext(principal=Principal.for_user(creator))
    result = dispatch(*via_tool_execute("aufgaben_create_task", {"title": "x", "board_id": 999999}), ctx)
    assert not result.ok and result.mutation_event_id is None
    assert not MutationEvent.objects.exists()


# --- 2. the direct result does not repeat what the all-user fan-out delivers ------------------
@pytest.mark.django_db
def test_direct_result_leaves_fanned_out_actions_to_the_stream(creator, shared_board, statuses):
    ctx = ToolContext(principal=Principal.for_user(creator))
    for name, args in [
        ("aufgaben_create_task", {"title": "Geteilt", "board_id": shared_board.pk}),
        via_tool_execute("aufgaben_create_task", {"title": "Geteilt 2", "board_id": shared_board.pk}),
    ]:
        result = dispatch(name, args, ctx)
        event = MutationEvent.objects.get(pk=result.mutation_event_id)
        assert event.audience == "all" and event.ui_actions
        assert result.ok and result.ui_actions == []


@pytest.mark.django_db
def test_a_move_to_a_private_board_returns_only_the_owners_update(
    creator, shared_board, private_board, statuses
):
    ctx = ToolContext(principal=Principal.for_user(creator))
    task_id = dispatch("aufgaben_create_task", {"title": "Wandert", "board_id": shared_board.pk}, ctx).output[
        "task"
    ]["id"]
    moved = dispatch("aufgaben_move_task", {"task_id": task_id, "board_id": private_board.pk}, ctx)
    assert moved.ok, moved.message
    removal, update = MutationEvent.objects.order_by("id")[1:]
    assert (removal.audience, removal.user_id) == ("all_except", creator.pk)
    assert (update.audience, update.user_id) == ("user", creator.pk)
    # the removal is for the former viewers, not for the owner who still sees the task
    assert moved.ui_actions == update.ui_actions and moved.mutation_event_id == update.id


def _ws_url(base: str) -> str:
    return base.replace("http://", "ws://") + "/ws/mutations/"


def _action_key(action: dict) -> str:
    return json.dumps(action, sort_keys=True)


def _received(ws, seconds: float) -> list[dict]:
    """Every mutation event the socket delivers within `seconds` (after the last one arrived)."""
    events = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            message = json.loads(ws.recv(timeout=max(0.05, deadline - time.monotonic())))
        except TimeoutError:
            break
        if message.get("type") == "mutation":
            events.append(message["event"])
            deadline = time.monotonic() + seconds
    return events


@pytest.mark.parametrize("meta", [False, True], ids=["direct", "tool_execute"])
def test_each_ui_action_reaches_a_live_client_exactly_once(
    server,  # noqa: F811
    creator,
    shared_board,
    statuses,
    meta,
):
    """A real daphne: the caller's page is open on /ws/mutations/ while its client calls the REST
    API. The shared task's actions arrive once, through the socket; the result names the event."""
    from websockets.sync.client import connect

    from tests.mutations.conftest import session_cookie

    key = api_key(creator)
    call = ("aufgaben_create_task", {"title": "Live", "board_id": shared_board.pk})
    tool, arguments = via_tool_execute(*call) if meta else call
    with connect(
        _ws_url(server), additional_headers={"Cookie": session_cookie(creator).decode()}, origin=server
    ) as ws:
        request = urllib.request.Request(
            server + URL,
            data=json.dumps({"tool": tool, "arguments": arguments}).encode(),
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 200
            data = json.loads(response.read())
        live = _received(ws, 2.0)

    assert [e["id"] for e in live] == [data["mutation_event_id"]]
    applied = [_action_key(a) for a in data["ui_actions"]] + [
        _action_key(a) for e in live for a in e["ui_actions"]
    ]
    expected = MutationEvent.objects.get(pk=data["mutation_event_id"]).ui_actions
    assert expected and sorted(applied) == sorted(_action_key(a) for a in expected)
