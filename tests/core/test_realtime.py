"""WebSocket routes are declared by their apps and sit behind one authenticator: the session
(browsers, with an allowed Origin), a device token or an API key in the Authorization header
(native clients, no Origin needed); a refused credential closes the socket with 4401."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from apps.accounts.principal import Principal
from apps.apikeys import services as keys
from apps.core import realtime
from clapilot.asgi import application
from clapilot.routing import websocket_urlpatterns
from tests.factories import UserFactory


def test_the_routes_come_from_the_apps_declarations_unchanged():
    routes = {str(route.pattern) for route in websocket_urlpatterns}
    assert routes == {"ws/ping/", "ws/mutations/", "ws/chat/<int:session_id>/"}
    assert realtime.websocket_modules()[:3] == [
        "apps.core.realtime.routing",
        "apps.mutations.routing",
        "apps.agent.routing",
    ]
    assert all(isinstance(route.callback, realtime.CredentialAuth) for route in websocket_urlpatterns)


async def _connect(headers):
    comm = WebsocketCommunicator(application, "/ws/ping/", headers=headers)
    connected, code = await comm.connect()
    if connected:
        await comm.send_json_to({"echo": "hallo"})
        assert await comm.receive_json_from() == {"type": "pong", "echo": "hallo"}
        await comm.disconnect()
    return connected, code


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.usefixtures("close_channel_layer")
async def test_a_device_token_opens_a_socket_and_a_bad_or_revoked_one_is_refused():
    user = await database_sync_to_async(UserFactory)()
    token, raw = await database_sync_to_async(keys.issue_device_token)(user, "Annas iPhone")
    assert await _connect([(b"authorization", f"Token {raw}".encode())]) == (True, None)
    assert await _connect([(b"authorization", b"Token cld_nope.nope")]) == (False, 4401)
    await database_sync_to_async(keys.revoke_device_token)(user, token.pk)
    assert await _connect([(b"authorization", f"Token {raw}".encode())]) == (False, 4401)
    assert await _connect([(b"authorization", b"Magic 123")]) == (False, 4401)  # nobody's scheme


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.usefixtures("close_channel_layer")
async def test_an_api_key_opens_only_sockets_that_declare_its_scopes():
    admin = await database_sync_to_async(UserFactory)(role="admin", is_superuser=True)
    _, raw = await database_sync_to_async(keys.create_api_key)(
        Principal.for_user(admin), name="cli", scopes=["tools:execute"]
    )
    # The ping socket declares no API-key scopes: closed to keys, as a REST view without them.
    assert await _connect([(b"authorization", f"Bearer {raw}".encode())]) == (False, 4401)
    opened = realtime.CredentialAuth(lambda *a: None, ("tools:execute",))
    assert await database_sync_to_async(opened.user_for)("Bearer", raw) == admin
    narrower = realtime.CredentialAuth(lambda *a: None, ("usage:read",))
    with pytest.raises(realtime.CredentialRefused):
        await database_sync_to_async(narrower.user_for)("Bearer", raw)


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.usefixtures("close_channel_layer")
async def test_a_cookie_socket_still_needs_an_allowed_origin():
    from django.test import Client

    user = await database_sync_to_async(UserFactory)()
    client = Client()
    await database_sync_to_async(client.force_login)(user)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    assert await _connect([(b"cookie", cookie), (b"origin", b"http://localhost")]) == (True, None)
    assert (await _connect([(b"cookie", cookie), (b"origin", b"http://evil.example")]))[0] is False
    assert (await _connect([(b"cookie", cookie)]))[0] is False
