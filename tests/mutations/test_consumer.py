"""`/ws/mutations/` over the real channel layer: live delivery, replay, privacy, auth."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.db import transaction

from apps.mutations import services
from apps.mutations.hub import hub_for_running_loop
from apps.mutations.models import MutationEvent
from apps.mutations.services import record_mutation
from clapilot.asgi import application
from tests.factories import UserFactory
from tests.mutations.conftest import session_cookie

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.asyncio,
    pytest.mark.usefixtures("close_channel_layer"),
]

TIMEOUT = 10


async def connect(user=None, query: str = "") -> WebsocketCommunicator:
    headers = [(b"origin", b"http://localhost")]
    if user is not None:
        headers.append((b"cookie", await database_sync_to_async(session_cookie)(user)))
    comm = WebsocketCommunicator(application, f"/ws/mutations/{query}", headers=headers)
    connected, code = await comm.connect(timeout=TIMEOUT)
    assert connected, code
    return comm


@database_sync_to_async
def commit(**kwargs) -> MutationEvent:
    """Record in a transaction of its own, as a service would; publishing follows the commit."""
    with transaction.atomic():
        return record_mutation(**kwargs)


@database_sync_to_async
def commit_then_fail(**kwargs) -> None:
    try:
        with transaction.atomic():
            record_mutation(**kwargs)
            raise RuntimeError("service failed")
    except RuntimeError:
        pass


async def next_event(comm: WebsocketCommunicator) -> dict:
    message = await comm.receive_json_from(timeout=TIMEOUT)
    assert message["type"] == "mutation"
    return message


async def test_committed_event_is_delivered_live_and_rolled_back_one_never():
    user = await database_sync_to_async(UserFactory)()
    comm = await connect(user)

    await commit_then_fail(audience="all", topic="aufgaben.task.updated")
    event = await commit(
        audience="all", topic="aufgaben.task.updated", ui_actions=[{"type": "highlight", "record_id": "9"}]
    )

    message = await next_event(comm)
    assert message["event"]["id"] == event.id  # the rolled-back one never arrived first
    assert message["event"]["ui_actions"] == [{"type": "highlight", "record_id": "9"}]
    assert "replay" not in message
    assert await comm.receive_nothing(timeout=0.5)
    await comm.disconnect()


async def test_private_events_never_reach_another_user():
    alice, bob = await database_sync_to_async(UserFactory)(), await database_sync_to_async(UserFactory)()
    alice_ws, bob_ws = await connect(alice), await connect(bob)

    private = await commit(audience="user", user=alice, topic="notizen.note.updated")
    assert (await next_event(alice_ws))["event"]["id"] == private.id

    excluding = await commit(audience="all_except", user=alice, topic="aufgaben.task.removed")
    assert (await next_event(bob_ws))["event"]["id"] == excluding.id

    shared = await commit(audience="all", topic="aufgaben.task.updated")
    assert (await next_event(alice_ws))["event"]["id"] == shared.id  # not the all_except one
    assert (await next_event(bob_ws))["event"]["id"] == shared.id  # not alice's private one

    assert await alice_ws.receive_nothing(timeout=0.5)
    assert await bob_ws.receive_nothing(timeout=0.5)
    await alice_ws.disconnect()
    await bob_ws.disconnect()


async def test_reconnect_replays_missed_events_then_goes_live_without_duplicates():
    alice, bob = await database_sync_to_async(UserFactory)(), await database_sync_to_async(UserFactory)()
    before = await commit(audience="all", topic="a.before")
    missed_shared = await commit(audience="all", topic="a.missed")
    await commit(audience="user", user=bob, topic="a.bobs")
    missed_private = await commit(audience="user", user=alice, topic="a.alices")

    comm = await connect(alice, f"?after={before.id}")
    replayed = [await next_event(comm), await next_event(comm)]
    assert [m["event"]["id"] for m in replayed] == [missed_shared.id, missed_private.id]
    assert all(m["replay"] for m in replayed)

    # A live copy of a replayed event (committed while the replay ran) is dropped.
    payload = services.serialize_event(missed_shared)
    await get_channel_layer().group_send(
        services.ALL_GROUP, {"type": "mutation.event", "event": payload, "audience": "all"}
    )
    live = await commit(audience="all", topic="a.live")
    assert (await next_event(comm))["event"]["id"] == live.id
    assert await comm.receive_nothing(timeout=0.5)
    await comm.disconnect()


async def test_client_behind_the_retention_is_told_to_resync():
    user = await database_sync_to_async(UserFactory)()
    gone = [await commit(audience="all", topic=f"a.n{i}") for i in range(3)]
    kept = await commit(audience="all", topic="a.kept")
    await database_sync_to_async(MutationEvent.objects.filter(id__in=[e.id for e in gone]).delete)()

    comm = await connect(user, f"?after={gone[0].id}")
    message = await comm.receive_json_from(timeout=TIMEOUT)
    assert message == {"type": "resync", "after": kept.id}
    await comm.disconnect()


async def test_ping_is_answered():
    user = await database_sync_to_async(UserFactory)()
    comm = await connect(user)
    await comm.send_json_to({"type": "ping"})
    assert await comm.receive_json_from(timeout=TIMEOUT) == {"type": "pong"}
    await comm.disconnect()


async def test_anonymous_socket_is_closed():
    comm = WebsocketCommunicator(application, "/ws/mutations/", headers=[(b"origin", b"http://localhost")])
    connected, code = await comm.connect(timeout=TIMEOUT)
    assert not connected
    assert code == 4401


async def test_bad_cursor_is_refused():
    user = await database_sync_to_async(UserFactory)()
    headers = [
        (b"origin", b"http://localhost"),
        (b"cookie", await database_sync_to_async(session_cookie)(user)),
    ]
    comm = WebsocketCommunicator(application, "/ws/mutations/?after=abc", headers=headers)
    connected, code = await comm.connect(timeout=TIMEOUT)
    assert not connected
    assert code == 4400


async def test_one_subscription_per_process_serves_every_tab():
    alice, bob = await database_sync_to_async(UserFactory)(), await database_sync_to_async(UserFactory)()
    alice_tabs = [await connect(alice), await connect(alice)]
    bob_ws = await connect(bob)
    hub = hub_for_running_loop()
    assert {user_id: len(sockets) for user_id, sockets in hub.by_user.items()} == {alice.pk: 2, bob.pk: 1}

    private = await commit(audience="user", user=alice, topic="notizen.note.updated")
    shared = await commit(audience="all", topic="aufgaben.task.updated")
    for tab in alice_tabs:
        assert [(await next_event(tab))["event"]["id"] for _ in range(2)] == [private.id, shared.id]
    assert (await next_event(bob_ws))["event"]["id"] == shared.id
    assert await bob_ws.receive_nothing(timeout=0.5)

    for comm in [*alice_tabs, bob_ws]:
        await comm.disconnect()
    assert hub.by_user == {} and hub.channel is None  # the last page closed: unsubscribed
