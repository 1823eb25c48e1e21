import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from clapilot.asgi import application
from tests.factories import UserFactory

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.asyncio,
    pytest.mark.usefixtures("close_channel_layer"),
]


async def _session_cookie(user) -> bytes:
    from django.test import Client

    client = Client()
    await database_sync_to_async(client.force_login)(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def test_signed_in_user_gets_a_pong():
    user = await database_sync_to_async(UserFactory)()
    cookie = await _session_cookie(user)
    comm = WebsocketCommunicator(
        application, "/ws/ping/", headers=[(b"cookie", cookie), (b"origin", b"http://localhost")]
    )
    connected, _ = await comm.connect()
    assert connected
    await comm.send_json_to({"echo": "hallo"})
    assert await comm.receive_json_from() == {"type": "pong", "echo": "hallo"}
    await comm.disconnect()


async def test_anonymous_socket_is_closed():
    comm = WebsocketCommunicator(application, "/ws/ping/", headers=[(b"origin", b"http://localhost")])
    connected, code = await comm.connect()
    assert not connected
    assert code == 4401
