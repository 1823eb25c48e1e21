"""Where runs execute and how they reach the browser: real Celery worker, WebSocket replay,
parallel read-only batches (threads need committed rows, hence transactional tests)."""

from __future__ import annotations

import threading

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from apps.accounts.principal import Principal
from apps.agent import services
from apps.agent.models import Message, Run, RunEvent
from clapilot.asgi import application
from tests.agent.conftest import session_cookie
from tests.agent.helpers import ask, say
from tests.factories import UserFactory
from tests.waiting import wait_for
from tests.workers import in_process_worker

TIMEOUT = 10


@pytest.mark.django_db(transaction=True)
def test_run_executes_in_a_real_celery_worker(user, model, fake_openai):
    fake_openai.reply("Aus dem Worker.")
    p = Principal.for_user(user)
    session = services.create_session(p)
    with in_process_worker():
        run = say(p, session.pk, "Hallo")  # enqueued on commit

        def final():
            run.refresh_from_db()
            return run.is_final

        wait_for(final)
    assert run.status == Run.Status.COMPLETED
    assert session.messages.get(role=Message.Role.ASSISTANT).content == "Aus dem Worker."


@pytest.mark.django_db(transaction=True)
def test_read_only_batch_runs_in_parallel_threads(user, model, fake_openai, monkeypatch):
    from apps.tools import dispatcher

    threads: list[int] = []
    real = dispatcher.dispatch

    def spy(name, raw_args, ctx, **kwargs):  # kwargs: the model's call id (approvals)
        threads.append(threading.get_ident())
        return real(name, raw_args, ctx, **kwargs)

    monkeypatch.setattr(dispatcher, "dispatch", spy)
    fake_openai.tool_calls(("session_status", {}), ("clapilot_context_status", {}))
    fake_openai.reply("Fertig.")
    run = ask(user)

    assert run.status == Run.Status.COMPLETED
    assert len(threads) == 2 and threading.get_ident() not in threads  # both ran in the pool
    tool_messages = list(run.session.messages.filter(role=Message.Role.TOOL).order_by("id"))
    assert [m.metadata["name"] for m in tool_messages] == ["session_status", "clapilot_context_status"]
    assert all(m.metadata["ok"] for m in tool_messages)
    assert str(run.pk) in tool_messages[0].content  # session_status saw this run's id


@pytest.mark.django_db(transaction=True, databases=["default", "channels_postgres"])
@pytest.mark.asyncio
@pytest.mark.usefixtures("close_channel_layer")
async def test_websocket_replays_then_streams_live(model, fake_openai):
    user = await database_sync_to_async(UserFactory)()
    fake_openai.reply("Erste Antwort")
    first = await database_sync_to_async(ask)(user)
    session_id = first.session_id
    events = await database_sync_to_async(lambda: list(first.events.order_by("id")))()
    cookie = await database_sync_to_async(session_cookie)(user)
    headers = [(b"origin", b"http://localhost"), (b"cookie", cookie)]

    comm = WebsocketCommunicator(application, f"/ws/chat/{session_id}/?after={events[0].id}", headers=headers)
    connected, _ = await comm.connect(timeout=TIMEOUT)
    assert connected
    replayed = [await comm.receive_json_from(timeout=TIMEOUT) for _ in events[1:]]
    assert [m["event"]["id"] for m in replayed] == [e.id for e in events[1:]]
    assert all(m["replay"] for m in replayed)

    live_event = await database_sync_to_async(services.record_event)(first, RunEvent.Kind.STATUS, {"x": 1})
    message = await comm.receive_json_from(timeout=TIMEOUT)
    assert message["event"]["id"] == live_event.id and "replay" not in message
    await comm.disconnect()


@pytest.mark.django_db(transaction=True, databases=["default", "channels_postgres"])
@pytest.mark.asyncio
@pytest.mark.usefixtures("close_channel_layer")
async def test_websocket_refuses_strangers_and_anonymous(model):
    owner, stranger = await database_sync_to_async(UserFactory)(), await database_sync_to_async(UserFactory)()
    session = await database_sync_to_async(services.create_session)(Principal.for_user(owner))
    anon = WebsocketCommunicator(
        application, f"/ws/chat/{session.pk}/", headers=[(b"origin", b"http://localhost")]
    )
    assert await anon.connect(timeout=TIMEOUT) == (False, 4401)
    cookie = await database_sync_to_async(session_cookie)(stranger)
    other = WebsocketCommunicator(
        application,
        f"/ws/chat/{session.pk}/",
        headers=[(b"origin", b"http://localhost"), (b"cookie", cookie)],
    )
    assert await other.connect(timeout=TIMEOUT) == (False, 4404)
